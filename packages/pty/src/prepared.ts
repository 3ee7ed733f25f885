import type { Readable, Writable } from "node:stream";
import { killTree } from "./kill-tree.js";
import { launchDetached, PipeProcess, type Launched, type PipeChild } from "./pipe.js";
import { groupAlive, pidAlive } from "./proc-tree.js";
import { unregisterGroup } from "./reaper.js";
import { resolveProcessSpec, type ProcessSpec, type ResolvedSpec } from "./spec.js";
import type { ProcessHandle } from "./types.js";

/** When a prepared process is started: its own timeout (counted from the start) and cancellation. */
export interface StartOptions {
  /** As `ProcessSpec.timeoutMs`, counted from `start`. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * A process spawned ahead of its use, waiting for what to run on file descriptor 3 (see
 * `preparePipe`). It is used at most once: started, or discarded.
 */
export interface PreparedPipe {
  readonly pid: number;
  /** True while it can still be started: not started or discarded, not exited, and it wrote nothing. */
  readonly alive: boolean;
  /**
   * Writes `payload` to its descriptor 3, closes it, and returns the running process, as `spawnPipe`
   * would have. Returns undefined, and discards it, when it is no longer `alive` (it wrote output or
   * exited while waiting): the caller then spawns the command the ordinary way.
   */
  start(payload: Uint8Array, options?: StartOptions): ProcessHandle | undefined;
  /** Closes descriptor 3 and, unless the process then exits within the kill grace, kills its tree. Safe to call more than once; a no-op once started. */
  discard(): Promise<void>;
}

class Prepared implements PreparedPipe {
  readonly pid: number;
  #state: "waiting" | "started" | "discarded" = "waiting";
  #broken = false;
  readonly #exit: Promise<void>;
  #discarding: Promise<void> | undefined;
  readonly #child: PipeChild;
  readonly #input: ProcessSpec;
  readonly #spec: ResolvedSpec;
  readonly #tag: string;
  readonly #command: Writable;
  readonly #onOutput = () => {
    this.#broken = true;
  };

  constructor(input: ProcessSpec, { spec, child, tag }: Launched) {
    this.#input = input;
    this.#spec = spec;
    this.#child = child;
    this.#tag = tag;
    this.pid = child.pid as number;
    this.#command = child.stdio[3] as Writable;
    // A sandbox that fails before its command exits early; its descriptor 3 then refuses our write.
    this.#command.on("error", () => undefined);
    child.on("error", () => undefined);
    this.#exit = new Promise((resolve) => child.once("exit", () => resolve()));
    // Anything it says before it has a command means it did not set up as it should.
    for (const s of this.#streams()) {
      s.on("data", this.#onOutput);
      s.on("error", () => undefined);
    }
  }

  get alive(): boolean {
    return this.#state === "waiting" && !this.#broken && !this.#exited() &&
      pidAlive(this.pid);
  }

  start(payload: Uint8Array, options: StartOptions = {}): ProcessHandle | undefined {
    if (!this.alive) {
      void this.discard();
      return undefined;
    }
    this.#state = "started";
    for (const s of this.#streams()) s.off("data", this.#onOutput);
    const spec = resolveProcessSpec({
      ...this.#input,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const handle = new PipeProcess(spec, this.#child, this.#tag);
    this.#command.end(payload);
    return handle;
  }

  discard(): Promise<void> {
    if (this.#state === "started") return Promise.resolve();
    this.#state = "discarded";
    this.#discarding ??= (async () => {
      // Without a command the program is expected to exit by itself; the tree kill is the fallback.
      this.#command.end();
      const graceful = await Promise.race([
        this.#exit.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), this.#spec.killGraceMs).unref()),
      ]);
      if (!graceful || groupAlive(this.pid)) {
        await killTree({ pid: this.pid, tag: this.#tag }, this.#spec.killGraceMs, () => this.#exited()).catch(() => undefined);
      }
      await this.#exit;
      for (const s of this.#streams()) s.destroy();
      unregisterGroup(this.pid);
    })();
    return this.#discarding;
  }

  /** Whether Node has seen it exit (it sets `exitCode` or `signalCode` before the `exit` event). */
  #exited(): boolean {
    return this.#child.exitCode !== null || this.#child.signalCode !== null;
  }

  #streams(): Readable[] {
    return [this.#child.stdout, this.#child.stderr].filter((s): s is Readable => s !== null);
  }
}

/**
 * Spawns a process ahead of the command it will run, as `spawnPipe` does (own session and process
 * group, tree tag, host-death watchdog, stdin as `spec.stdin`, stdout and stderr on pipes) plus a
 * pipe as file descriptor 3 on which it receives what to run when `start`ed. The spec's timeout and
 * signal are ignored until then; `start` gives its own.
 *
 * Throws `InvalidProcessSpecError` for a bad spec and `SpawnError` when it cannot be started.
 */
export function preparePipe(spec: ProcessSpec): PreparedPipe {
  const waiting = waitingSpec(spec);
  return new Prepared(waiting, launchDetached(waiting, true));
}

/** `spec` without what `start` gives (timeout, signal): a waiting process has neither. */
export function waitingSpec(spec: ProcessSpec): ProcessSpec {
  const { timeoutMs: _timeout, signal: _signal, ...waiting } = spec;
  return waiting;
}

/** A prepared pipe over a process that was started elsewhere (a launcher) with descriptor 3 as `stdio[3]`. */
export function preparedFrom(waiting: ProcessSpec, launched: Launched): PreparedPipe {
  return new Prepared(waiting, launched);
}
