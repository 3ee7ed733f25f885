import { randomIntBetween } from "../ids.js";
import { UnknownSessionError } from "../errors.js";
import type { Session } from "./session.js";

/** Most live unified exec sessions kept at once; inserting beyond it prunes one. */
export const MAX_SESSIONS = 64;
/** From this many sessions on, the model is warned that pruning is near. */
export const WARNING_SESSIONS = 60;
/** The most recently used sessions never pruned. */
export const PROTECTED_RECENT_SESSIONS = 8;
/** Session ids are drawn from [MIN_SESSION_ID, MAX_SESSION_ID). */
export const MIN_SESSION_ID = 1000;
export const MAX_SESSION_ID = 100_000;

/** The warning shown to the model once `count` sessions are open. */
export function sessionCountWarning(count: number): string {
  return (
    `The maximum number of unified exec processes you can keep open is ${WARNING_SESSIONS} and you currently have ` +
    `${count} processes open. Reuse older processes or close them to prevent automatic pruning of old processes`
  );
}

/** How many exited sessions' exit codes are remembered, so input to them says they exited. */
export const REMEMBERED_EXITS = 256;

/** Options of a `SessionStore`; the defaults are the spec's numbers. */
export interface SessionStoreOptions {
  capacity?: number;
  warningAt?: number;
  protectedRecent?: number;
  /** Id source; default random in [1000, 100000). Must return integers. */
  nextId?: () => number;
}

/** What inserting a session did besides storing it. */
export interface InsertResult {
  /** The session that was pruned (and terminated) to make room. */
  pruned?: Session;
  /** Set when the store is at or above the warning threshold. */
  warning?: string;
}

/**
 * Live sessions by id. Ids are reserved when a call starts (so two concurrent calls never share
 * one) and released when the session ends. At capacity, the least recently used *exited* session
 * outside the protected recent ones is pruned, else the least recently used one outside them.
 */
export class SessionStore {
  readonly capacity: number;
  readonly warningAt: number;
  readonly protectedRecent: number;
  readonly #sessions = new Map<number, Session>();
  readonly #reserved = new Set<number>();
  /** Exit codes of sessions whose exit was reported, oldest first (bounded by REMEMBERED_EXITS). */
  readonly #exited = new Map<number, number>();
  readonly #nextId: () => number;
  #clock = 0;

  constructor(options: SessionStoreOptions = {}) {
    this.capacity = options.capacity ?? MAX_SESSIONS;
    this.warningAt = options.warningAt ?? WARNING_SESSIONS;
    this.protectedRecent = options.protectedRecent ?? PROTECTED_RECENT_SESSIONS;
    this.#nextId = options.nextId ?? (() => randomIntBetween(MIN_SESSION_ID, MAX_SESSION_ID));
  }

  /** Number of stored sessions. */
  get size(): number {
    return this.#sessions.size;
  }

  /** A fresh use stamp (monotonic). */
  tick(): number {
    this.#clock += 1;
    return this.#clock;
  }

  /** Reserve an unused id. */
  reserveId(): number {
    for (let attempt = 0; attempt < 10_000; attempt += 1) {
      const id = this.#nextId();
      // A remembered exit keeps its id, so a late write_stdin to it is never taken for a newer session.
      if (!this.#sessions.has(id) && !this.#reserved.has(id) && !this.#exited.has(id)) {
        this.#reserved.add(id);
        return id;
      }
    }
    throw new Error("could not allocate a session id");
  }

  /** Give back a reserved id that never became a session. */
  releaseId(id: number): void {
    this.#reserved.delete(id);
  }

  /** Store a session under its (reserved) id, pruning first when at capacity. */
  async insert(session: Session): Promise<InsertResult> {
    const result: InsertResult = {};
    if (this.#sessions.size >= this.capacity) {
      const victim = this.pruneCandidate();
      if (victim) {
        this.#sessions.delete(victim.id);
        result.pruned = victim;
        await victim.terminate().catch(() => undefined);
      }
    }
    this.#reserved.delete(session.id);
    session.lastUsed = this.tick();
    this.#sessions.set(session.id, session);
    if (this.#sessions.size >= this.warningAt) result.warning = sessionCountWarning(this.#sessions.size);
    return result;
  }

  /** Which session pruning would take now (none when everything is protected). */
  pruneCandidate(): Session | undefined {
    const byRecency = [...this.#sessions.values()].sort((a, b) => b.lastUsed - a.lastUsed);
    const unprotected = byRecency.slice(this.protectedRecent).reverse(); // least recently used first
    return unprotected.find((s) => s.hasExited) ?? unprotected[0];
  }

  /**
   * The session with `id`, marked as used.
   * @throws UnknownSessionError when there is none (never started, exited and reported — then with its
   * exit code —, or pruned).
   */
  get(id: number): Session {
    const session = this.#sessions.get(id);
    if (!session) throw new UnknownSessionError(id, this.#exited.get(id));
    session.lastUsed = this.tick();
    return session;
  }

  /** Whether `id` is stored. */
  has(id: number): boolean {
    return this.#sessions.has(id);
  }

  /** Stored ids, most recently used first. */
  ids(): number[] {
    return [...this.#sessions.values()].sort((a, b) => b.lastUsed - a.lastUsed).map((s) => s.id);
  }

  /**
   * Forget a session (after its exit was reported); does not kill it. `keepReservation` keeps the
   * id reserved for another attempt of the same call (an unsandboxed retry).
   */
  remove(id: number, options: { keepReservation?: boolean } = {}): Session | undefined {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    if (options.keepReservation) this.#reserved.add(id);
    else this.#reserved.delete(id);
    if (!options.keepReservation && session?.exitCode !== undefined) this.#rememberExit(id, session.exitCode);
    return session;
  }

  /** The exit code of a session whose exit was reported, while it is remembered. */
  exitCodeOf(id: number): number | undefined {
    return this.#exited.get(id);
  }

  #rememberExit(id: number, exitCode: number): void {
    this.#exited.delete(id);
    this.#exited.set(id, exitCode);
    if (this.#exited.size > REMEMBERED_EXITS) {
      const oldest = this.#exited.keys().next().value;
      if (oldest !== undefined) this.#exited.delete(oldest);
    }
  }

  /** Kill and forget every session. */
  async terminateAll(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    this.#reserved.clear();
    await Promise.all(all.map((s) => s.terminate().catch(() => undefined)));
  }
}
