import { HeadTailBuffer } from "@shellgate/pty";
import { OutputTally, type OutputTotals } from "../output/truncate.js";

/**
 * What a session needs from a running process. `@shellgate/pty` handles are adapted to it; tests
 * and embedders (e.g. remote execution) may supply their own.
 */
export interface SessionProcess {
  readonly pid: number;
  /** Whether the process runs on a terminal (and so takes input). */
  readonly tty: boolean;
  /** Send input; only called for tty sessions. */
  write(data: string): void;
  /** Subscribe to output (stdout and stderr merged); earlier output is replayed. Returns unsubscribe. */
  onOutput(listener: (chunk: Uint8Array) => void): () => void;
  /** Resolves once with the exit code (128+n for a signal). */
  readonly exited: Promise<{ exitCode: number }>;
  /** Kill the process and all its descendants. */
  terminate(): Promise<void>;
  /** Optional: settles once every byte of output has been delivered after the exit. */
  readonly drained?: Promise<unknown>;
}

/** Bytes of output a session keeps between two polls (head and tail survive beyond it). */
export const SESSION_PENDING_OUTPUT_CAP_BYTES = 1024 * 1024;

/** Hooks a session reports through (output deltas for events, the output spill). */
export interface SessionHooks {
  onOutput?: (chunk: Uint8Array) => void;
  /** Called once when the session stops listening to its process (`detach`, `terminate`). */
  onDetach?: () => void;
}

/**
 * One live unified exec process: pending output between polls (head+tail capped), exit tracking,
 * and waiters woken by new output or exit.
 */
export class Session {
  readonly id: number;
  readonly process: SessionProcess;
  /** The call that started the session; output events are attributed to it. */
  readonly callId: string;
  readonly startedAt: number;
  /** Order of last use; larger is more recent. */
  lastUsed: number;
  readonly #pending = new HeadTailBuffer(SESSION_PENDING_OUTPUT_CAP_BYTES);
  #exitCode: number | undefined;
  #waiters = new Set<() => void>();
  readonly #unsubscribe: () => void;
  #onDetach: (() => void) | undefined;
  /** Bytes of output so far, and where the next drain's output starts in that stream. */
  #streamBytes = 0;
  #drainedUpTo = 0;
  /** Lines and bytes of every chunk, counted as it arrives: `#pending` keeps only a head and tail of them. */
  readonly #tally = new OutputTally();

  constructor(id: number, process: SessionProcess, callId: string, lastUsed: number, hooks: SessionHooks = {}) {
    this.id = id;
    this.process = process;
    this.callId = callId;
    this.lastUsed = lastUsed;
    this.startedAt = performance.now();
    this.#onDetach = hooks.onDetach;
    this.#unsubscribe = process.onOutput((chunk) => {
      this.#push(chunk);
      hooks.onOutput?.(chunk);
    });
    process.exited.then(
      ({ exitCode }) => {
        this.#exitCode = exitCode;
        this.#wake();
      },
      () => {
        this.#exitCode = -1;
        this.#wake();
      },
    );
  }

  get tty(): boolean {
    return this.process.tty;
  }

  /** The exit code once the process has exited. */
  get exitCode(): number | undefined {
    return this.#exitCode;
  }

  get hasExited(): boolean {
    return this.#exitCode !== undefined;
  }

  /** Bytes waiting to be collected. */
  get pendingBytes(): number {
    return this.#pending.retainedBytes;
  }

  /**
   * Take everything collected since the last drain (middle bytes beyond the cap are dropped);
   * `startOffset` is where it begins in the session's whole output stream, `totals` the lines and
   * bytes of all of it, the dropped middle included.
   */
  drain(): { bytes: Uint8Array; droppedBytes: number; startOffset: number; totals: OutputTotals } {
    const droppedBytes = this.#pending.droppedBytes;
    const bytes = Buffer.concat(this.#pending.drain().map((c) => c.data));
    const startOffset = this.#drainedUpTo;
    this.#drainedUpTo = this.#streamBytes;
    return { bytes, droppedBytes, startOffset, totals: this.#tally.take() };
  }

  /** Output collected so far, without taking it (used to judge an early exit). */
  peek(): Uint8Array {
    return this.#pending.toBytes();
  }

  /** Resolve on the next output or exit, or after `ms`, whichever comes first. */
  waitForActivity(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.#waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** After the exit, wait until the last output arrived (when the process can tell) or `ms` passed. */
  async waitForDrain(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, ms));
    });
    const drained = this.process.drained?.then(
      () => undefined,
      () => undefined,
    );
    await Promise.race(drained ? [drained, timeout] : [timeout]);
    clearTimeout(timer);
  }

  /** Stop listening and kill the process tree. */
  async terminate(): Promise<void> {
    try {
      await this.process.terminate();
    } finally {
      this.detach();
    }
  }

  /**
   * Stop listening to the process without killing it: for an attempt that was judged and replaced
   * (an exited sandboxed attempt before its unsandboxed retry). Idempotent.
   */
  detach(): void {
    this.#unsubscribe();
    const onDetach = this.#onDetach;
    this.#onDetach = undefined;
    onDetach?.();
    this.#wake();
  }

  #push(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    this.#streamBytes += chunk.byteLength;
    this.#tally.push(chunk);
    // Head and newest bytes survive when the model stops polling a chatty process.
    this.#pending.push(chunk);
    this.#wake();
  }

  #wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}
