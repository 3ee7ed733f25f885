import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import type { Socket } from "node:net";
import { InvalidProcessSpecError, LauncherError, SpawnError } from "./errors.js";
import { checkedSpawn, type Launched, type PipeChild } from "./pipe.js";
import { preparedFrom, waitingSpec, type PreparedPipe } from "./prepared.js";
import { signalGroup, TAG_ENV } from "./proc-tree.js";
import { registerGroup } from "./reaper.js";
import type { ProcessSpec } from "./spec.js";
import { LAUNCHER_SOURCE } from "./launcher-source.js";

/**
 * Prepares pipe processes from a small process of its own instead of this one (see
 * `createPipeLauncher`). One launcher serves any number of prepared processes, one after another
 * or at once.
 */
export interface PipeLauncher {
  /**
   * As `preparePipe(spec)`, with the process spawned by the launcher: resolves once it runs and its
   * stdout, stderr and descriptor 3 are here. Only `stdin: "ignore"` is supported.
   * Rejects with `InvalidProcessSpecError` for a bad spec, `SpawnError` when it cannot be started,
   * `LauncherError` when the launcher is closed or cannot be started.
   */
  prepare(spec: ProcessSpec): Promise<PreparedPipe>;
  /** Stops the launcher; every process it prepared that has not exited is killed with its group. */
  close(): Promise<void>;
}

type Message =
  | { op: "spawned"; id: number; pid: number }
  | { op: "fd"; id: number; fd: 1 | 2 | 3 }
  | { op: "failed"; id: number; message: string; code?: string }
  | { op: "exit"; id: number; code: number | null; signal: NodeJS.Signals | null };

/** A process of the launcher, seen from here: its streams were handed over, its exit is reported. */
class RemoteChild extends EventEmitter implements PipeChild {
  readonly pid: number;
  readonly stdin = null;
  readonly stdio: [null, Socket, Socket, Socket];
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;

  constructor(pid: number, fds: Record<1 | 2 | 3, Socket>) {
    super();
    this.pid = pid;
    this.stdio = [null, fds[1], fds[2], fds[3]];
  }

  get stdout(): Socket {
    return this.stdio[1];
  }

  get stderr(): Socket {
    return this.stdio[2];
  }

  exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitCode !== null || this.signalCode !== null) return;
    // Like ChildProcess: the fields are set before `exit` is emitted.
    this.exitCode = code;
    this.signalCode = signal;
    this.emit("exit", code, signal);
  }
}

/** How long a spawn may take the launcher to answer (the pid and the three descriptors). */
const ANSWER_TIMEOUT_MS = 10_000;

/** One `prepare` on its way: the pid and descriptors gathered until all three are here. */
interface Request {
  program: string;
  pid?: number;
  fds: Partial<Record<1 | 2 | 3, Socket>>;
  child?: RemoteChild;
  resolve(child: RemoteChild): void;
  reject(error: Error): void;
}

class Launcher implements PipeLauncher {
  #process: ChildProcess | undefined;
  #nextId = 0;
  #closed = false;
  readonly #requests = new Map<number, Request>();

  async prepare(input: ProcessSpec): Promise<PreparedPipe> {
    const waiting = waitingSpec(input);
    const { spec, tag } = checkedSpawn(waiting);
    if (spec.stdin !== "ignore") throw new InvalidProcessSpecError("stdin", 'a launcher\'s processes have no stdin: it must be "ignore"');
    const child = await this.#spawn(spec.argv, spec.cwd, { ...spec.env, [TAG_ENV]: tag });
    if (spec.hostDeathWatchdog) registerGroup(child.pid);
    const launched: Launched = { spec, child, tag };
    return preparedFrom(waiting, launched);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const proc = this.#process;
    if (!proc) return;
    const gone = new Promise<void>((resolve) => (proc.exitCode !== null || proc.signalCode !== null ? resolve() : proc.once("exit", () => resolve())));
    // Held until it has gone: a host whose loop has nothing else left would otherwise exit here,
    // in the middle of whatever its own shutdown still has to do after this.
    proc.ref();
    // The launcher kills what it started and exits when its channel closes (see launcher-source.ts).
    if (proc.connected) proc.disconnect();
    await gone;
  }

  #spawn(argv: readonly string[], cwd: string, env: Record<string, string>): Promise<RemoteChild> {
    if (this.#closed) return Promise.reject(new LauncherError("the launcher is closed"));
    const proc = this.#ensureProcess();
    const id = ++this.#nextId;
    return new Promise<RemoteChild>((resolve, reject) => {
      // A launcher that stopped answering must not leave the caller waiting for ever.
      const timer = setTimeout(() => {
        const request = this.#requests.get(id);
        if (request?.pid !== undefined) signalGroup(request.pid, "SIGKILL");
        this.#fail(id, new LauncherError(`no answer to a spawn of ${JSON.stringify(argv[0])} within ${ANSWER_TIMEOUT_MS} ms`));
      }, ANSWER_TIMEOUT_MS);
      timer.unref();
      const settle = { resolve: (child: RemoteChild) => (clearTimeout(timer), resolve(child)), reject: (error: Error) => (clearTimeout(timer), reject(error)) };
      this.#requests.set(id, { program: argv[0] as string, fds: {}, ...settle });
      this.#refresh();
      proc.send({ op: "spawn", id, argv, cwd, env }, (error) => {
        if (error) this.#fail(id, new LauncherError(`cannot reach the launcher: ${error.message}`, { cause: error }));
      });
    });
  }

  #ensureProcess(): ChildProcess {
    if (this.#process) return this.#process;
    let proc: ChildProcess;
    try {
      // `-e`, not a file: this package may be bundled into another, where no file of ours lies next
      // to the running code. No NODE_OPTIONS and no inherited flags: only the source below runs.
      proc = spawn(process.execPath, ["-e", LAUNCHER_SOURCE], {
        stdio: ["ignore", "ignore", "ignore", "ipc"],
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
      });
    } catch (error) {
      throw new LauncherError(`cannot start the launcher: ${(error as Error).message}`, { cause: error });
    }
    // A launcher that could not be started reports it here, with no `exit` to follow.
    proc.on("error", () => this.#lost(proc));
    proc.on("message", (message: Message, handle: unknown) => this.#receive(message, handle as Socket | undefined));
    proc.once("exit", () => this.#lost(proc));
    this.#process = proc;
    return proc;
  }

  #receive(message: Message, handle: Socket | undefined): void {
    const request = this.#requests.get(message.id);
    if (!request) {
      handle?.destroy();
      return;
    }
    switch (message.op) {
      case "spawned":
        request.pid = message.pid;
        return;
      case "fd":
        if (handle) request.fds[message.fd] = handle;
        if (request.pid !== undefined && request.fds[1] && request.fds[2] && request.fds[3]) {
          request.child = new RemoteChild(request.pid, request.fds as Record<1 | 2 | 3, Socket>);
          request.resolve(request.child);
        }
        return;
      case "failed":
        this.#fail(message.id, new SpawnError(request.program, message.message, message.code));
        return;
      case "exit":
        this.#requests.delete(message.id);
        this.#refresh();
        if (request.child) request.child.exited(message.code, message.signal);
        else {
          this.#destroyFds(request);
          request.reject(new SpawnError(request.program, `exited (${message.signal ?? message.code}) before its descriptors were handed over`));
        }
    }
  }

  #fail(id: number, error: Error): void {
    const request = this.#requests.get(id);
    if (!request) return;
    this.#requests.delete(id);
    this.#refresh();
    this.#destroyFds(request);
    request.reject(error);
  }

  #destroyFds(request: Request): void {
    for (const fd of [1, 2, 3] as const) request.fds[fd]?.destroy();
  }

  /**
   * The launcher is gone. What it started is killed here (a process that does not die with its
   * parent, as bubblewrap does, would otherwise run on unwatched) and reported as killed.
   */
  #lost(proc: ChildProcess): void {
    if (this.#process === proc) this.#process = undefined;
    for (const [id, request] of this.#requests) {
      this.#requests.delete(id);
      if (request.pid !== undefined) signalGroup(request.pid, "SIGKILL");
      if (request.child) request.child.exited(null, "SIGKILL");
      else {
        this.#destroyFds(request);
        request.reject(new LauncherError("the launcher exited"));
      }
    }
  }

  /**
   * The launcher keeps this process alive only while it owes an answer: a spawn's result, or the exit
   * of a process it prepared (as a spawned `ChildProcess` would).
   */
  #refresh(): void {
    const proc = this.#process;
    if (!proc) return;
    const channel = proc.channel as { ref?: () => void; unref?: () => void } | null | undefined;
    if (this.#requests.size > 0) {
      proc.ref();
      channel?.ref?.();
    } else {
      proc.unref();
      channel?.unref?.();
    }
  }
}

/**
 * A launcher: a small Node process (started on the first `prepare`) that spawns prepared pipe
 * processes for this one and hands their stdout, stderr and descriptor 3 back over its IPC channel.
 *
 * Why: libuv spawns by `fork` on Linux, which copies this process's page tables and marks every
 * page copy-on-write; until each page is written again, each first write faults. In a large host
 * (an MCP server) that is several milliseconds of the fork itself plus a fault per page the next
 * tool call writes (see the cli bench RESULTS). Spawning from the launcher moves both out of this
 * process. Everything else is as with `preparePipe`: own session and process group, tree tag,
 * host-death watchdog, kill of the whole tree. The launcher's processes die with it.
 */
export function createPipeLauncher(): PipeLauncher {
  return new Launcher();
}
