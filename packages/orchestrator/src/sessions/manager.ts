import { decodeLossy } from "@shellgate/pty";
import { errorMessage, SessionNotTtyError, SpawnFailedError } from "../errors.js";
import type { EventBus } from "../events.js";
import { OutputDeltaEmitter } from "../output/deltas.js";
import { formatUnifiedExec, newChunkId } from "../output/format.js";
import { renderWithSpill } from "../output/spill.js";
import type { OutputSpill } from "../output/spill.js";
import type { ToolContext, ToolOutput } from "../tools/registry.js";
import { DEFAULT_MAX_OUTPUT_TOKENS, DEFAULT_WRITE_STDIN_YIELD_MS } from "../tools/schemas.js";
import type { WriteStdinArgs } from "../tools/schemas.js";
import { clampWriteYield, collectOutput, POST_WRITE_DELAY_MS } from "./collect.js";
import { Session } from "./session.js";
import type { SessionProcess } from "./session.js";
import { SessionStore } from "./store.js";
import type { SessionStoreOptions } from "./store.js";

/** Largest output delta event, in bytes (split at UTF-8 boundaries). */
export const OUTPUT_DELTA_MAX_BYTES = 8192;

/** Options of a `UnifiedExecManager`. */
export interface UnifiedExecManagerOptions {
  /** The store, or options for a new one. */
  store?: SessionStore | SessionStoreOptions;
  /** Where output deltas and end events go. */
  events?: EventBus;
  /** Where full outputs go when the model sees them truncated. */
  spill?: OutputSpill;
  /** Ceiling of an empty poll's wait (default 300 000 ms, never below 5 000). */
  maxEmptyPollMs?: number;
}

/** How a response to the model is built after a session starts or is written to. */
export interface RespondOptions {
  callId: string;
  /** When the call started (performance.now()); the yield counts from here. */
  startedAt: number;
  yieldMs: number;
  maxOutputTokens?: number;
  signal?: AbortSignal;
  warnings?: readonly string[];
}

/**
 * Interactive (unified exec) sessions: turns processes into stored sessions, gathers their output
 * for each call, reports exits once (then forgets the session), and kills everything on close.
 */
export class UnifiedExecManager {
  readonly store: SessionStore;
  readonly #events: EventBus | undefined;
  readonly #spill: OutputSpill | undefined;
  readonly #maxEmptyPollMs: number | undefined;

  constructor(options: UnifiedExecManagerOptions = {}) {
    this.store = options.store instanceof SessionStore ? options.store : new SessionStore(options.store);
    this.#events = options.events;
    this.#spill = options.spill;
    this.#maxEmptyPollMs = options.maxEmptyPollMs;
  }

  /**
   * Wrap a spawned process as a session under a reserved id; its output is streamed as delta events.
   * Pass the call's `deltas` emitter when one call starts more than one process (an unsandboxed
   * retry), so the per-call cap covers them all.
   */
  createSession(id: number, process: SessionProcess, callId: string, deltas = new OutputDeltaEmitter(this.#events, callId)): Session {
    const stream = process.tty ? "pty" : "stdout";
    return new Session(id, process, callId, this.store.tick(), {
      onOutput: (chunk) => {
        for (const piece of splitUtf8(chunk, OUTPUT_DELTA_MAX_BYTES)) {
          if (!deltas.emit(stream, piece)) return;
        }
      },
    });
  }

  /** Emit `exec.end` for the call when the session's process exits. */
  trackExit(session: Session): void {
    void session.process.exited.then(
      ({ exitCode }) =>
        this.#events?.emit({
          type: "exec.end",
          callId: session.callId,
          exitCode,
          durationMs: performance.now() - session.startedAt,
          timedOut: false,
        }),
      () => undefined,
    );
  }

  /** Keep a live session (pruning one at capacity); returns warnings for the model. */
  async admit(session: Session): Promise<string[]> {
    const { warning } = await this.store.insert(session);
    return warning ? [warning] : [];
  }

  /** Gather output until the yield deadline or exit, forget an exited session, and format the response. */
  async respond(session: Session, options: RespondOptions): Promise<ToolOutput> {
    const remaining = options.startedAt + options.yieldMs - performance.now();
    const collected = await collectOutput(session, remaining, options.signal);
    // An exit is reported exactly once; afterwards the id is unknown.
    if (collected.exitCode !== undefined) this.store.remove(session.id);
    const output = decodeLossy(collected.bytes);
    const exitCode = collected.exitCode;
    const rendered = await renderWithSpill(
      (fullOutputPath) =>
        formatUnifiedExec({
          chunkId: newChunkId(),
          wallTimeMs: performance.now() - options.startedAt,
          ...(exitCode !== undefined ? { exitCode } : { sessionId: session.id }),
          output,
          maxOutputTokens: options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
          ...(fullOutputPath !== undefined ? { fullOutputPath } : {}),
          ...(options.warnings?.length ? { warnings: options.warnings } : {}),
        }),
      output,
      this.#spill,
      options.callId,
    );
    return {
      content: rendered.text,
      success: exitCode === undefined || exitCode === 0,
      exitCode: exitCode ?? null,
      ...(exitCode === undefined ? { sessionId: session.id } : {}),
      ...(rendered.fullOutputPath !== undefined ? { fullOutputPath: rendered.fullOutputPath } : {}),
      ...(options.warnings?.length ? { warnings: [...options.warnings] } : {}),
    };
  }

  /**
   * `write_stdin`: send `chars` (empty = poll) to a session and return what it printed.
   * @throws UnknownSessionError, SessionNotTtyError (input to a session without a terminal).
   */
  async writeStdin(args: WriteStdinArgs, ctx: ToolContext): Promise<ToolOutput> {
    const startedAt = performance.now();
    const session = this.store.get(args.session_id);
    const chars = args.chars ?? "";
    if (chars !== "" && !session.tty) throw new SessionNotTtyError(session.id);
    if (chars !== "" && !session.hasExited) {
      try {
        session.process.write(chars);
      } catch (error) {
        // A process that exited between our check and the write is reported as exited below.
        if (!session.hasExited) {
          throw new SpawnFailedError(`cannot write to session ${session.id}: ${errorMessage(error)}`, {
            cause: error,
          });
        }
      }
      await new Promise((resolve) => setTimeout(resolve, POST_WRITE_DELAY_MS));
    }
    const yieldMs = clampWriteYield(args.yield_time_ms ?? DEFAULT_WRITE_STDIN_YIELD_MS, chars !== "", this.#maxEmptyPollMs);
    return this.respond(session, {
      callId: ctx.callId,
      startedAt,
      yieldMs,
      ...(args.max_output_tokens !== undefined ? { maxOutputTokens: args.max_output_tokens } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
  }

  /** Kill every session (on orchestrator close). */
  terminateAll(): Promise<void> {
    return this.store.terminateAll();
  }
}

/** Split bytes into pieces of at most `max` bytes without cutting a UTF-8 sequence (when avoidable). */
export function splitUtf8(bytes: Uint8Array, max: number): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  while (bytes.byteLength - start > max) {
    let end = start + max;
    while (end > start && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
    if (end === start) end = start + max;
    pieces.push(bytes.subarray(start, end));
    start = end;
  }
  if (start < bytes.byteLength) pieces.push(bytes.subarray(start));
  return pieces;
}
