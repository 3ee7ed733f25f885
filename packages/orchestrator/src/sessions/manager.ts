import { decodeLossy } from "@shellgate/pty";
import type { EventBus } from "../events.js";
import { OutputDeltaEmitter } from "../output/deltas.js";
import { formatUnifiedExec, newChunkId } from "../output/format.js";
import { describeSpill } from "../output/spill.js";
import type { OutputSpill, SpillStream } from "../output/spill.js";
import { collectOutput } from "./collect.js";
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
  /** Where full outputs go when the model sees them truncated (one file per session, see `createSession`). */
  spill?: OutputSpill;
  /** Output a session holds in memory before its spill file is created (default 64 KiB). */
  spillMemoryBytes?: number;
  /** Ceiling of an empty poll's wait (default 300 000 ms, never below 5 000). */
  maxEmptyPollMs?: number;
}

/** How a response to the model is built after a session starts or is written to. */
export interface RespondOptions {
  callId: string;
  /** When the call started (performance.now()); the yield counts from here. */
  startedAt: number;
  yieldMs: number;
  /** The model's token budget for this response's output. */
  maxOutputTokens: number;
  signal?: AbortSignal;
  warnings?: readonly string[];
}

/**
 * What a session call returns; shaped like the tool layer's `ToolOutput` (which it is assignable to)
 * without importing it, so sessions depend on nothing from tools.
 */
export interface SessionResponse {
  content: string;
  success: boolean;
  exitCode: number | null;
  sessionId?: number;
  fullOutputPath?: string;
  warnings?: string[];
}

/**
 * Interactive (unified exec) sessions: turns processes into stored sessions, gathers their output
 * for each call, reports exits once (then forgets the session), and kills everything on close.
 */
export class UnifiedExecManager {
  readonly store: SessionStore;
  readonly #events: EventBus | undefined;
  readonly #spill: OutputSpill | undefined;
  readonly #spillMemoryBytes: number;
  readonly #spills = new WeakMap<Session, SpillStream>();
  /** Ceiling of an empty `write_stdin` poll, when the integrator set one (see `clampWriteYield`). */
  readonly maxEmptyPollMs: number | undefined;

  constructor(options: UnifiedExecManagerOptions = {}) {
    this.store = options.store instanceof SessionStore ? options.store : new SessionStore(options.store);
    this.#events = options.events;
    this.#spill = options.spill;
    this.#spillMemoryBytes = options.spillMemoryBytes ?? 64 * 1024;
    this.maxEmptyPollMs = options.maxEmptyPollMs;
  }

  /**
   * Wrap a spawned process as a session under a reserved id; its output is streamed as delta events.
   * Pass the call's `deltas` emitter when one call starts more than one process (an unsandboxed
   * retry), so the per-call cap covers them all.
   * With a spill, the session's whole output stream goes to one file as it arrives (appended
   * across polls); a response whose view is cut names it, and the file is removed when the session
   * ends without it ever having been named.
   */
  createSession(id: number, process: SessionProcess, callId: string, deltas = new OutputDeltaEmitter(this.#events, callId)): Session {
    const stream = process.tty ? "pty" : "stdout";
    const spill = this.#spill?.open(`session-${id}`, { memoryBytes: this.#spillMemoryBytes });
    const session = new Session(id, process, callId, this.store.tick(), {
      onDetach: () => void spill?.end(),
      onOutput: (chunk) => {
        spill?.push(chunk);
        for (const piece of splitUtf8(chunk, OUTPUT_DELTA_MAX_BYTES)) {
          if (!deltas.emit(stream, piece)) return;
        }
      },
    });
    if (spill) this.#spills.set(session, spill);
    return session;
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
  async respond(session: Session, options: RespondOptions): Promise<SessionResponse> {
    const remaining = options.startedAt + options.yieldMs - performance.now();
    const collected = await collectOutput(session, remaining, options.signal);
    // An exit is reported exactly once; afterwards the id is unknown.
    if (collected.exitCode !== undefined) this.store.remove(session.id);
    const output = decodeLossy(collected.bytes);
    const exitCode = collected.exitCode;
    const response = {
      chunkId: newChunkId(),
      wallTimeMs: performance.now() - options.startedAt,
      ...(exitCode !== undefined ? { exitCode } : { sessionId: session.id }),
      output,
      // The retained text lost its middle: its own size would undercount what the command printed.
      ...(collected.droppedBytes > 0 ? { totals: collected.totals } : {}),
      maxOutputTokens: options.maxOutputTokens,
      ...(options.warnings?.length ? { warnings: options.warnings } : {}),
    };
    const first = formatUnifiedExec(response);
    let rendered: { text: string; fullOutputPath?: string } = first;
    const spill = this.#spills.get(session);
    try {
      // Bytes dropped between polls count as cut too: the file has them.
      if (spill && (first.truncation.truncated || collected.droppedBytes > 0)) {
        const summary = await spill.reveal();
        if (summary.path !== undefined) {
          const fullOutputPath = summary.path;
          const fullOutputNote = describeSpill(summary, { responseStart: collected.startOffset });
          rendered = { text: formatUnifiedExec({ ...response, fullOutputPath, ...(fullOutputNote ? { fullOutputNote } : {}) }).text, fullOutputPath };
        }
      }
    } finally {
      if (exitCode !== undefined) await spill?.end();
    }
    return {
      content: rendered.text,
      success: exitCode === undefined || exitCode === 0,
      exitCode: exitCode ?? null,
      ...(exitCode === undefined ? { sessionId: session.id } : {}),
      ...(rendered.fullOutputPath !== undefined ? { fullOutputPath: rendered.fullOutputPath } : {}),
      ...(options.warnings?.length ? { warnings: [...options.warnings] } : {}),
    };
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
