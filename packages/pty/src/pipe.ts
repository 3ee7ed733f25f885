import { spawn, type ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { SpawnError, StdinClosedError, StdinUnavailableError } from "./errors.js";
import { ManagedProcess, type Driver } from "./managed.js";
import { assertPosix, precheckSpawn } from "./precheck.js";
import { TAG_ENV } from "./proc-tree.js";
import { nextTreeTag, registerGroup } from "./reaper.js";
import { resolveProcessSpec, type ProcessSpec, type ResolvedSpec } from "./spec.js";
import type { ProcessHandle } from "./types.js";

/**
 * What a pipe process is driven through: a `ChildProcess` of this process, or one that a launcher
 * process spawned and whose streams it handed over (see launcher.ts).
 */
export interface PipeChild {
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  /** Descriptor 3 of a prepared process is `stdio[3]`. */
  readonly stdio: ReadonlyArray<Readable | Writable | null | undefined>;
  /** Set before the `exit` event, like `ChildProcess`'s. */
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  on(event: "error", listener: (error: Error) => void): this;
  once(event: "exit", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
}

/** A validated spec, its process and its tree tag, as `launchDetached` (or a launcher) started it. */
export interface Launched {
  spec: ResolvedSpec;
  child: PipeChild;
  tag: string;
}

/**
 * Pipes are spawned with node:child_process rather than execa: everything execa adds (buffering,
 * encoding, timeout, cancelSignal, forceKillAfterDelay, cleanup) acts on the direct child only,
 * and its exit-cleanup is switched off for detached children — but here every child must be
 * detached into its own session and killed as a group. What remains is one `spawn` call, and
 * skipping execa's per-call machinery keeps spawn overhead inside the 3 ms budget (see bench).
 */
export class PipeProcess extends ManagedProcess {
  private stdinClosed = false;

  constructor(spec: ResolvedSpec, child: PipeChild, tag: string) {
    super(spec, child.pid as number, tag, true);
    let open = 2;
    const closed = () => {
      open -= 1;
      if (open === 0) this.streamsClosed();
    };
    const { stdout, stderr, stdin } = child;
    stdout?.on("data", (d: Buffer) => this.output("stdout", d));
    stderr?.on("data", (d: Buffer) => this.output("stderr", d));
    stdout?.once("close", closed);
    stderr?.once("close", closed);
    // A read error ends the stream ('close' follows); it must not become an uncaught exception.
    stdout?.on("error", () => undefined);
    stderr?.on("error", () => undefined);
    // A child that exits without reading its input makes our writes fail with EPIPE; that is not our crash.
    stdin?.on("error", () => undefined);
    child.on("error", () => undefined);
    child.once("exit", (code, signal) => this.leaderExited(code, signal));
    const driver: Driver = {
      kind: "pipe",
      termSignals: ["SIGTERM"],
      write: (data) => {
        if (!stdin) throw new StdinUnavailableError(this.pid);
        if (this.stdinClosed) throw new StdinClosedError(this.pid);
        stdin.write(data);
      },
      closeStdin: () => {
        if (!stdin) throw new StdinUnavailableError(this.pid);
        this.stdinClosed = true;
        stdin.end();
      },
      abandonStreams: () => {
        stdout?.destroy();
        stderr?.destroy();
      },
      dispose: () => {
        if (stdin && !stdin.destroyed) stdin.destroy();
      },
    };
    this.attach(driver);
  }
}

/**
 * Starts a one-shot process over pipes: stdin is /dev/null unless `stdin: "pipe"`, stdout and stderr
 * are captured apart and interleaved. The child leads its own session and process group, carries a
 * tree tag in its environment, and is killed with all its descendants on timeout (default 10 s),
 * abort, `terminate()` or the death of this process.
 *
 * Throws `InvalidProcessSpecError` for a bad spec and `SpawnError` when it cannot be started.
 */
export function spawnPipe(input: ProcessSpec): ProcessHandle {
  const { spec, child, tag } = launchDetached(input, false);
  return new PipeProcess(spec, child, tag);
}

/**
 * What every detached spawn starts from, here or in a launcher: `input` validated and resolved, its
 * cwd and program checked (a clear `SpawnError` before anything is forked), and a fresh tree tag.
 */
export function checkedSpawn(input: ProcessSpec): { spec: ResolvedSpec; tag: string } {
  assertPosix();
  const spec = resolveProcessSpec(input);
  precheckSpawn(spec);
  return { spec, tag: nextTreeTag() };
}

/**
 * Validates `input` and spawns it detached into its own session and process group, with the tree tag
 * and (unless the spec opts out) under the host-death watchdog; `commandPipe` adds a pipe as fd 3.
 */
export function launchDetached(input: ProcessSpec, commandPipe: boolean): { spec: ResolvedSpec; child: ChildProcess; tag: string } {
  const { spec, tag } = checkedSpawn(input);
  const [program, ...args] = spec.argv as [string, ...string[]];
  let child: ChildProcess;
  try {
    child = spawn(program, args, {
      cwd: spec.cwd,
      env: { ...spec.env, [TAG_ENV]: tag },
      detached: true,
      stdio: [spec.stdin === "pipe" ? "pipe" : "ignore", "pipe", "pipe", ...(commandPipe ? ["pipe" as const] : [])],
    });
  } catch (error) {
    throw new SpawnError(program, String((error as Error).message), (error as NodeJS.ErrnoException).code, { cause: error });
  }
  if (child.pid === undefined) {
    // libuv reports these failures only on the next tick; the child object is useless either way.
    child.on("error", () => undefined);
    throw new SpawnError(program, "the operating system refused to start it (permissions or resource limits)");
  }
  if (spec.hostDeathWatchdog) registerGroup(child.pid);
  return { spec, child, tag };
}
