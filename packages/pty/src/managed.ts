import { OutputCapture } from "./capture.js";
import { ProcessExitedError } from "./errors.js";
import { killTree } from "./kill-tree.js";
import { groupAlive, signalGroup, signalNumber } from "./proc-tree.js";
import { unregisterGroup } from "./reaper.js";
import type { ResolvedSpec } from "./spec.js";
import type { ExecResult, ExitInfo, OutputChunk, OutputStream, ProcessHandle } from "./types.js";

/** Milliseconds on a monotonic clock; `process.hrtime` needs none of the modules that the global `performance` loads on first use. */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Exit code reported for a process killed because its timeout expired (as `timeout(1)` does). */
export const TIMEOUT_EXIT_CODE = 124;

const GROUP_RECHECK_MS = 5_000;

/** What a spawning backend (pipes or node-pty) provides to the shared lifecycle. */
export interface Driver {
  readonly kind: "pipe" | "pty";
  /** Signals sent first on termination; a PTY shell ignores TERM but not HUP. */
  readonly termSignals: readonly NodeJS.Signals[];
  write(data: string | Uint8Array): void;
  closeStdin(): void;
  /** Stop reading output that a descendant keeps open past the drain timeout. */
  abandonStreams(): void;
  /** Release resources once everything is over. */
  dispose(): void;
}

/**
 * The lifecycle shared by pipes and PTYs: output capture and broadcast, timeout and cancellation,
 * tree termination, exit classification, the drain guard and the result.
 */
export class ManagedProcess implements ProcessHandle {
  readonly pid: number;
  readonly tag: string;
  readonly exited: Promise<ExitInfo>;
  protected readonly capture: OutputCapture;
  private readonly spec: ResolvedSpec;
  private readonly started = monotonicMs();
  private driver!: Driver;
  private exitInfo: ExitInfo | undefined;
  private exitAt = 0;
  private streamsOpen = true;
  private drainTimedOut = false;
  private timedOut = false;
  private cancelled = false;
  private timer: NodeJS.Timeout | undefined;
  private drainTimer: NodeJS.Timeout | undefined;
  private terminating: Promise<void> | undefined;
  private reaping: Promise<void> = Promise.resolve();
  private resolveExit!: (info: ExitInfo) => void;
  private finished = false;
  private readonly done: Promise<ExecResult>;
  private resolveDone!: (r: ExecResult) => void;
  private readonly onAbort = () => {
    if (this.exitInfo) return;
    this.cancelled = true;
    void this.terminate();
  };

  constructor(spec: ResolvedSpec, pid: number, tag: string, separateStreams: boolean) {
    this.spec = spec;
    this.pid = pid;
    this.tag = tag;
    this.capture = new OutputCapture(spec.outputCapBytes, separateStreams);
    this.exited = new Promise((r) => (this.resolveExit = r));
    this.done = new Promise((r) => (this.resolveDone = r));
  }

  /** Wires the backend and arms the timeout and the abort signal. Called once, right after spawning. */
  protected attach(driver: Driver): void {
    this.driver = driver;
    if (this.spec.timeoutMs > 0) {
      this.timer = setTimeout(() => {
        if (this.exitInfo) return;
        this.timedOut = true;
        void this.terminate();
      }, this.spec.timeoutMs);
    }
    const signal = this.spec.signal;
    if (signal) {
      if (signal.aborted) queueMicrotask(this.onAbort);
      else signal.addEventListener("abort", this.onAbort, { once: true });
    }
  }

  get kind(): "pipe" | "pty" {
    return this.driver.kind;
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  write(data: string | Uint8Array): void {
    if (this.exitInfo) throw new ProcessExitedError(this.pid, "write");
    this.driver.write(data);
  }

  closeStdin(): void {
    if (this.exitInfo) throw new ProcessExitedError(this.pid, "close stdin");
    this.driver.closeStdin();
  }

  onOutput(cb: (chunk: OutputChunk) => void): () => void {
    return this.capture.subscribe(cb);
  }

  result(): Promise<ExecResult> {
    return this.done;
  }

  terminate(): Promise<void> {
    if (!this.terminating) {
      this.terminating = (async () => {
        await killTree({ pid: this.pid, tag: this.tag }, this.spec.killGraceMs, () => this.exitInfo !== undefined,
          this.driver.termSignals).catch(() => {
          // Listing the tree failed (an unreadable /proc?); the group kill below still ends the leader.
          signalGroup(this.pid, "SIGKILL");
        });
        await this.exited;
      })();
    }
    return this.terminating;
  }

  /** Backend callback: a chunk of output arrived. */
  protected output(stream: OutputStream, data: Uint8Array): void {
    this.capture.push(stream, data);
  }

  /** Backend callback: the leader exited with a code or was killed by a signal (by name). */
  protected leaderExited(code: number | null, signal: string | null): void {
    if (this.exitInfo) return;
    this.exitAt = monotonicMs();
    if (this.timer) clearTimeout(this.timer);
    this.spec.signal?.removeEventListener("abort", this.onAbort);
    const num = signal ? signalNumber(signal) : undefined;
    let exitCode: number;
    if (this.timedOut) exitCode = TIMEOUT_EXIT_CODE;
    else if (signal) exitCode = 128 + (num ?? 0);
    else exitCode = code ?? -1;
    this.exitInfo = { exitCode, signal, timedOut: this.timedOut, cancelled: this.cancelled };
    this.resolveExit(this.exitInfo);
    // Background jobs left in the group would hold our pipes and outlive the command; end them now.
    if (this.spec.reapOnExit && !this.terminating && groupAlive(this.pid)) {
      this.reaping = killTree({ pid: this.pid, tag: this.tag }, this.spec.killGraceMs, () => true, this.driver.termSignals)
        .catch(() => undefined);
    }
    void Promise.all([this.reaping, this.terminating]).then(() => this.releaseWhenEmpty());
    if (!this.streamsOpen) this.finish();
    else {
      this.drainTimer = setTimeout(() => {
        this.drainTimedOut = true;
        this.driver.abandonStreams();
        this.streamsClosed();
      }, this.spec.drainTimeoutMs);
    }
  }

  // The watchdog must forget the group once it is empty: a later process could reuse the number.
  // Groups left alive on purpose (reapOnExit: false) are re-checked now and then until they empty.
  private releaseWhenEmpty(): void {
    if (!groupAlive(this.pid)) {
      unregisterGroup(this.pid);
      return;
    }
    setTimeout(() => this.releaseWhenEmpty(), GROUP_RECHECK_MS).unref();
  }

  /** Backend callback: every output stream reached EOF (or was abandoned). */
  protected streamsClosed(): void {
    this.streamsOpen = false;
    if (this.exitInfo) this.finish();
  }

  /** Extra fields a backend adds to the result (the PTY's rendered text). */
  protected async extraResult(): Promise<Partial<ExecResult>> {
    return {};
  }

  private finish(): void {
    if (this.finished || !this.exitInfo) return;
    this.finished = true;
    if (this.drainTimer) clearTimeout(this.drainTimer);
    const info = this.exitInfo;
    const c = this.capture;
    const aggregated = c.aggregated.toText();
    const base: ExecResult = {
      exitCode: info.exitCode,
      signal: info.signal,
      stdout: c.stdout ? c.stdout.toText() : aggregated,
      stderr: c.stderr ? c.stderr.toText() : "",
      aggregated,
      durationMs: this.exitAt - this.started,
      timedOut: info.timedOut,
      cancelled: info.cancelled,
      truncated: c.truncated,
      droppedBytes: c.aggregated.droppedBytes,
      drainTimedOut: this.drainTimedOut,
    };
    c.close();
    void this.extraResult()
      .then((extra) => this.resolveDone({ ...base, ...extra }), () => this.resolveDone(base))
      .finally(() => this.driver.dispose());
  }
}
