import { MAX_OUTPUT_DELTAS_PER_CALL } from "../events.js";
import type { EventBus, OrchestratorEvent } from "../events.js";

/** The stream an output delta came from. */
export type DeltaStream = Extract<OrchestratorEvent, { type: "exec.output_delta" }>["stream"];

/**
 * Emits one call's `exec.output_delta` events, at most `MAX_OUTPUT_DELTAS_PER_CALL` of them. One
 * emitter serves every attempt of a call (the sandboxed one and an unsandboxed retry), so a retry
 * cannot double the cap. Capture is unaffected: only the events stop, and the first delta over the
 * cap is replaced by one `exec.output_capped` event so the stop is never silent.
 */
export class OutputDeltaEmitter {
  readonly #events: EventBus | undefined;
  readonly #callId: string;
  #emitted = 0;
  #capped = false;

  constructor(events: EventBus | undefined, callId: string) {
    this.#events = events;
    this.#callId = callId;
  }

  /** Deltas emitted so far for the call. */
  get emitted(): number {
    return this.#emitted;
  }

  /** Whether the cap was reached and output was held back from events. */
  get capped(): boolean {
    return this.#capped;
  }

  /** Emit `chunk` unless the call's cap is reached (or nobody listens); true when emitted. */
  emit(stream: DeltaStream, chunk: Uint8Array): boolean {
    if (!this.#events) return false;
    if (this.#emitted >= MAX_OUTPUT_DELTAS_PER_CALL) {
      if (!this.#capped) {
        this.#capped = true;
        this.#events.emit({ type: "exec.output_capped", callId: this.#callId, deltas: this.#emitted });
      }
      return false;
    }
    this.#emitted += 1;
    this.#events.emit({ type: "exec.output_delta", callId: this.#callId, stream, chunk });
    return true;
  }
}
