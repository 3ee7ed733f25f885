/**
 * A cross-process exclusive lock for appending to a rules file.
 *
 * Node has no `flock`, so the lock is a sibling file `<file>.lock` created with `O_CREAT|O_EXCL`
 * (atomic on local filesystems): whoever creates it holds the lock; it holds `pid`, host name and
 * creation time. Waiters retry with jittered exponential backoff up to a deadline.
 *
 * Stale locks (holder crashed): a lock is stale when its holder pid is not alive on this host, or
 * it is older than `staleMs`. Breaking is itself serialised through a second O_EXCL file
 * `<file>.lock.break`, and the breaker re-reads the lock under that guard and deletes it only if
 * it is still the same stale lock, so two waiters can never delete a fresh lock that a third just
 * took. A `.break` guard older than `staleMs` is removed (its holder died mid-break).
 */
// `fs.promises` is read where it is used: importing node:fs/promises would load it on every CLI start.
import fs from "node:fs";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { readRegularFileSync } from "../policy/regular-file.js";

/** Lock tuning (tests shorten the timings). */
export interface LockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** A lock older than this is considered abandoned (default 30 s). */
  staleMs?: number;
}

interface LockInfo {
  pid: number;
  host: string;
  time: number;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function tryCreate(path: string, content: string): Promise<boolean> {
  try {
    const fh = await fs.promises.open(path, "wx");
    try {
      await fh.writeFile(content);
    } finally {
      await fh.close();
    }
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
}

async function readInfo(path: string): Promise<{ raw: string; info: LockInfo | undefined; mtime: number } | undefined> {
  try {
    // Only ever a regular file made by `tryCreate`: a FIFO in its place would block the read forever.
    const raw = readRegularFileSync(path, { followLinks: false }).toString("utf8");
    const st = await fs.promises.stat(path);
    let info: LockInfo | undefined;
    try {
      const parsed = JSON.parse(raw) as Partial<LockInfo>;
      if (typeof parsed.pid === "number" && typeof parsed.host === "string" && typeof parsed.time === "number") info = parsed as LockInfo;
    } catch {
      info = undefined; // being written right now, or garbage: judged by age only
    }
    return { raw, info, mtime: st.mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

function isStale(l: { info: LockInfo | undefined; mtime: number }, staleMs: number): boolean {
  if (Date.now() - l.mtime > staleMs) return true;
  return !!l.info && l.info.host === hostname() && !isAlive(l.info.pid);
}

async function breakIfStale(lockPath: string, staleMs: number): Promise<void> {
  const guard = `${lockPath}.break`;
  if (!(await tryCreate(guard, String(process.pid)))) {
    const g = await fs.promises.stat(guard).catch(() => undefined);
    if (g && Date.now() - g.mtimeMs > staleMs) await fs.promises.rm(guard, { force: true });
    return;
  }
  try {
    const again = await readInfo(lockPath);
    if (again && isStale(again, staleMs)) await fs.promises.rm(lockPath, { force: true });
  } finally {
    await fs.promises.rm(guard, { force: true });
  }
}

/**
 * Run `fn` while holding the exclusive lock for `file`. Throws `Error` with code `ELOCKTIMEOUT`
 * when the lock cannot be taken before the deadline.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lockPath = `${file}.lock`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  const me = JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now() } satisfies LockInfo);
  let delay = 2;
  for (;;) {
    if (await tryCreate(lockPath, me)) break;
    const current = await readInfo(lockPath);
    if (current && isStale(current, staleMs)) {
      await breakIfStale(lockPath, staleMs);
      continue;
    }
    if (Date.now() >= deadline) {
      throw Object.assign(new Error(`timed out after ${timeoutMs} ms waiting for ${lockPath}`), { code: "ELOCKTIMEOUT" });
    }
    await sleep(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 100);
  }
  try {
    return await fn();
  } finally {
    await fs.promises.rm(lockPath, { force: true });
  }
}
