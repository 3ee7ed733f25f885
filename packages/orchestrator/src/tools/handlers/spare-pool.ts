import type { PreparedPipe, ProcessHandle, ProcessSpec, StartOptions } from "@shellgate/pty";
import type { CommandSpec, ExecEnv, SandboxPolicy, TransformOptions } from "@shellgate/sandbox";
import { releaseSandbox } from "../../pipeline/decisions.js";
import type { PipeSpawner, SessionProcessFactory } from "./runtime.js";

/** The spawn options of a one-shot run that a spare must share to stand in for its spawn. */
export interface SpareSpawnOptions {
  cwd: string;
  env: Readonly<Record<string, string>>;
  stdin: "ignore";
  hostDeathWatchdog: boolean;
}

/**
 * Spawns processes that wait for their command on descriptor 3: `@shellgate/pty`'s pipe launcher
 * (spawned from a small process of its own, so that this one is not forked; see `createPipeLauncher`),
 * or anything of that shape.
 */
export interface SparePreparer {
  prepare(spec: ProcessSpec): PreparedPipe | Promise<PreparedPipe>;
  /** Called once by `SparePool.close`, after the last spare is gone. */
  close?(): Promise<void>;
}

/** How long a call waits for a spare still being prepared before it sets its sandbox up itself. */
const REFILL_WAIT_MS = 1_000;

interface Spare {
  prepared: PreparedPipe;
  env: ExecEnv;
  key: string;
  generation: number;
}

/** A one-shot run that a spare stands in for: its process, and the spare's ExecEnv cleanup to run when it ends. */
export interface SpareRun {
  handle: ProcessHandle;
  release(): Promise<void>;
}

function spareKey(reuseKey: string, options: SpareSpawnOptions): string {
  const env = Object.entries(options.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([reuseKey, options.cwd, env, options.stdin, options.hostDeathWatchdog]);
}

/**
 * At most one pre-warmed sandbox for the next one-shot run: prepared in the background after a
 * sandboxed one-shot run, used by the next run whose fresh ExecEnv has the same reuse key and spawn
 * options. It is used only when nothing else of this orchestrator ran since it was prepared: every
 * spawn and every exit moves a generation counter, and none is prepared or used while a process or
 * a session is alive — a sandbox set up while another command could change what it mounts is not the sandbox
 * the next call's own transform describes.
 */
export class SparePool {
  readonly #prepare: SparePreparer;
  #generation = 0;
  #running = 0;
  #spare: Spare | undefined;
  /**
   * Spares `claim` gave out, by the ExecEnv it made of each, until that call's `take` (or a discard).
   * The ExecEnv (with the spare's cgroup and placeholders) is then the call's: dropping a claimed
   * spare kills its process but leaves the ExecEnv's cleanup to the call.
   */
  readonly #claims = new Map<ExecEnv, Spare>();
  #refilling: Promise<void> | undefined;
  readonly #dropping = new Set<Promise<void>>();
  #closed = false;

  constructor(prepare: SparePreparer) {
    this.#prepare = prepare;
  }

  /**
   * Records a process (or session) this orchestrator is spawning, sandboxed or not; call the
   * returned function once when it has exited (or failed to start).
   */
  begin(): () => void {
    this.#generation++;
    this.#running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#running--;
      this.#generation++;
    };
  }

  /** `begin` for a process that is already running: ended when `exited` settles. */
  track(process: { readonly exited: Promise<unknown> }): void {
    const end = this.begin();
    void process.exited.finally(end);
  }

  /**
   * Runs `env`'s command in the spare when it may stand in for the spawn (see the class comment);
   * otherwise discards the spare and resolves to undefined, and the caller spawns the ordinary way.
   * A spare still being prepared is waited for (up to a second).
   */
  async take(env: ExecEnv, options: SpareSpawnOptions, start: StartOptions): Promise<SpareRun | undefined> {
    let spare = this.#claims.get(env);
    const claimed = spare !== undefined;
    if (claimed) {
      this.#claims.delete(env);
    } else {
      await this.#waitForRefill();
      spare = this.#spare;
      this.#spare = undefined;
    }
    if (!spare) return undefined;
    const usable =
      env.deferred !== undefined &&
      spare.key === spareKey(env.deferred.reuseKey, options) &&
      spare.generation === this.#generation &&
      this.#running === 0;
    const handle = usable && env.deferred ? spare.prepared.start(env.deferred.payload, start) : undefined;
    if (!handle) {
      // A claimed spare's ExecEnv is the caller's now (it spawns its argv instead).
      this.#dropLater(spare, { keepEnv: claimed });
      return undefined;
    }
    this.track(handle);
    return { handle, release: () => releaseSandbox(spare.env) };
  }

  /**
   * The spare as the ExecEnv of a call about to be prepared with `spec`, `policy` and `options`,
   * when its backend can tell, without transforming, that a transform would give this very sandbox
   * (`DeferredLaunch.reuseFor`), and nothing ran since it was prepared; else undefined (the spare
   * stays for `take`). The ExecEnv is the spare's, with this call's command; pass it to `take` to
   * start it (spawning its `argv` instead runs the command in a sandbox of its own, as good).
   */
  async claim(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions): Promise<ExecEnv | undefined> {
    await this.#waitForRefill();
    const spare = this.#spare;
    const usable = () => spare !== undefined && this.#spare === spare && spare.generation === this.#generation && this.#running === 0;
    if (!usable() || !spare?.env.deferred?.reuseFor) return undefined;
    const standIn = await spare.env.deferred.reuseFor(spec, policy, options);
    if (!standIn || !usable()) return undefined;
    this.#spare = undefined;
    const env: ExecEnv = { ...spare.env, argv: standIn.argv, deferred: { ...spare.env.deferred, payload: standIn.payload } };
    this.#claims.set(env, spare);
    return env;
  }

  /** A spare still on its way is waited for (it is up sooner than a sandbox set up from scratch), at most `REFILL_WAIT_MS`. */
  async #waitForRefill(): Promise<void> {
    if (!this.#refilling) return;
    // Bounded, so that a launcher that stopped answering costs a call no more than this.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#refilling, new Promise<void>((resolve) => (timer = setTimeout(resolve, REFILL_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /**
   * Prepares the next spare in the background from `prepareAgain` (the finished run's own request,
   * transformed again). Only when the finished run's ExecEnv had `deferred`, nothing else is alive,
   * and nothing spawns until the spare is up.
   */
  refill(prepareAgain: () => Promise<ExecEnv>, options: Omit<SpareSpawnOptions, "cwd" | "env">): void {
    if (this.#closed || this.#refilling || this.#running > 0) return;
    const generation = this.#generation;
    const stale = () => this.#closed || generation !== this.#generation || this.#running > 0;
    this.#refilling = (async () => {
      let env: ExecEnv | undefined;
      try {
        // After the finished call's own remaining steps have had their turn: the spare is for the next call.
        await new Promise((resolve) => setImmediate(resolve));
        if (stale()) return;
        env = await prepareAgain();
        if (!env.deferred || stale()) return void (await releaseSandbox(env));
        const spawn: SpareSpawnOptions = { cwd: env.cwd, env: env.env, ...options };
        const prepared = await this.#prepare.prepare({
          argv: [...env.deferred.argv],
          cwd: spawn.cwd,
          env: { ...spawn.env },
          stdin: spawn.stdin,
          hostDeathWatchdog: spawn.hostDeathWatchdog,
        });
        const spare = { prepared, env, key: spareKey(env.deferred.reuseKey, spawn), generation };
        // Something ran (or the pool closed) while it was being spawned: it is not the next call's sandbox.
        if (stale()) return this.#dropLater(spare);
        env = undefined;
        const previous = this.#spare;
        this.#spare = spare;
        if (previous) this.#dropLater(previous);
      } catch {
        // A spare is an optimisation: a failed one only means the next call spawns the ordinary way.
        if (env) await releaseSandbox(env);
      }
    })().finally(() => {
      this.#refilling = undefined;
    });
  }

  /** Discards the spare (and waits for one being prepared); no process of a spare is left when this resolves. */
  async discard(): Promise<void> {
    await this.#refilling;
    const spare = this.#spare;
    this.#spare = undefined;
    if (spare) this.#dropLater(spare);
    for (const spare of this.#claims.values()) this.#dropLater(spare, { keepEnv: true });
    this.#claims.clear();
    await Promise.all(this.#dropping);
  }

  /** Discards the spare, prepares none from now on, and closes the preparer. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.discard();
    await this.#prepare.close?.();
  }

  #dropLater(spare: Spare, { keepEnv = false } = {}): void {
    const dropping = (async () => {
      await spare.prepared.discard().catch(() => undefined);
      if (!keepEnv) await releaseSandbox(spare.env);
    })();
    this.#dropping.add(dropping);
    void dropping.finally(() => this.#dropping.delete(dropping));
  }
}

/** `spawn` with every process it starts recorded in `pool`. */
export function trackedPipes(pool: SparePool, spawn: PipeSpawner): PipeSpawner {
  return (spec) => {
    const end = pool.begin();
    try {
      const handle = spawn(spec);
      void handle.exited.finally(end);
      return handle;
    } catch (error) {
      end();
      throw error;
    }
  };
}

/** `factory` with every session process it starts recorded in `pool`. */
export function trackedSessions(pool: SparePool, factory: SessionProcessFactory): SessionProcessFactory {
  return async (spec) => {
    const end = pool.begin();
    try {
      const process = await factory(spec);
      void process.exited.finally(end);
      return process;
    } catch (error) {
      end();
      throw error;
    }
  };
}
