// Placeholder directories: how a protected path that does not exist yet is kept from being created.
//
// bubblewrap can only mount over something that exists, and the writable root is the host's own
// directory, so whatever serves as the mount point appears in the user's project while a command
// runs. An empty directory is the mount point that does no harm if it is ever left behind: every
// tool reads an empty `.codex` or `.config` as "no configuration", where an empty *file* of that
// name makes them fail with ENOTDIR.
//
// The host may `rmdir` a directory that is a mount point in another mount namespace, and the kernel
// then silently detaches that mount there: a cleanup that removed a placeholder another sandbox has
// mounted would hand that sandbox the protected name, writable. The native helper therefore makes
// and removes placeholders itself, under locks (its source says how, at "placeholders"): a run holds
// a shared flock on each placeholder's lock file from before the directory is made until bubblewrap
// holds its own `--lock-file` lock on it; a cleanup takes the exclusive flock without waiting and
// removes only a directory no sandbox holds. Whoever finishes last removes the placeholder, whatever
// process it belongs to, and nothing has to be remembered here between a run and its cleanup.
//
// A run killed before its cleanup (SIGKILL of the host) leaves its placeholder behind. To tell such a
// leftover from a user's own empty directory, placeholders are made with a mode no one gives an
// empty configuration directory: 1755 (the sticky bit, meaningless on a directory only its owner can
// write). A later run's cleanup removes a leftover that carries exactly that mode, belongs to this
// user, is empty and is held by no run. Inside a sandbox a placeholder is read-only, so a command
// cannot mark the user's own directory; marking a directory under a name no sandbox holds gains it
// nothing but the removal of an empty directory.
//
// The lock files live in a directory of their own (`placeholderLockDir`), kept read-only and hidden
// under an empty tmpfs in every sandbox: a command that could open one could hold its lock and stall
// other runs (they give up after 10 s and refuse to run) or keep placeholders from being removed.
import { execFile, spawn } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync } from "node:fs";
import path from "node:path";
import { placeholderLockDir } from "@shellgate/user-paths";
import { LinuxSandboxError } from "./errors.js";

/** The mode that marks a directory as a placeholder this mechanism made (see the top of the file). */
export const PLACEHOLDER_MODE = 0o1755;

/**
 * `$XDG_CACHE_HOME/shellgate/locks` (or `~/.cache/shellgate/locks`): the default directory of the
 * placeholders' lock files, next to the default probe cache.
 */
export function defaultPlaceholderLockDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return placeholderLockDir(env);
}

/**
 * Where the lock files go when the default directory cannot be made (no writable home, as for a
 * service account): `/tmp/shellgate-UID/locks`, one per user whatever the environment. Another user
 * who made `/tmp/shellgate-UID` first is refused (the directory must be this user's own).
 */
export function fallbackPlaceholderLockDir(): string {
  return path.join("/tmp", `shellgate-${process.getuid?.() ?? "user"}`, "locks");
}

/**
 * Two FNV-1a hashes (different offsets) of a path's UTF-16 units: 64 bits, no `node:crypto` on the
 * start-up path. Two paths that happened to share a lock file would only wait for each other's runs
 * more often than needed: a collision never lets a placeholder go that a run holds.
 */
function pathHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/** The lock file of one placeholder path: named by a hash of the path, so any path fits. */
export function placeholderLockFile(lockDir: string, dir: string): string {
  return path.join(lockDir, `${pathHash(dir)}.lock`);
}

/** The helper's `--placeholder LOCK DIR` arguments for these placeholders. */
export function placeholderArgs(lockDir: string, dirs: readonly string[]): string[] {
  return dirs.flatMap((dir) => ["--placeholder", placeholderLockFile(lockDir, dir), dir]);
}

const prepared = new Map<string, Promise<void>>();

async function prepare(dir: string): Promise<void> {
  const uid = process.getuid?.();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  if (!stat.isDirectory()) throw new Error("not a directory");
  // Another user who could write here could plant lock files and hold them.
  if (uid !== undefined && stat.uid !== uid) throw new Error(`owned by uid ${stat.uid}, not by this user (${uid})`);
  if ((stat.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

function prepareOnce(dir: string): Promise<void> {
  let done = prepared.get(dir);
  if (!done) {
    done = prepare(dir);
    prepared.set(dir, done);
    done.catch(() => prepared.delete(dir));
  }
  return done;
}

// Anything at the path counts (lstat: without following a link); the helper decides what it may remove.
const present = (dir: string) => lstatSync(dir, { throwIfNoEntry: false }) !== undefined;

const describe = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/**
 * Make the lock directory (owner-only, this user's own, a real directory), once per process: the
 * configured one, or the default and failing that the fallback. Returns the directory in use.
 * @throws LinuxSandboxError (failure `setup-failed`) naming the directory when none can be made or is fit.
 */
export async function preparePlaceholderLockDir(configured?: string): Promise<string> {
  const candidates = configured ? [configured] : [defaultPlaceholderLockDir(), fallbackPlaceholderLockDir()];
  const problems: string[] = [];
  for (const dir of candidates) {
    try {
      await prepareOnce(dir);
      return dir;
    } catch (error) {
      problems.push(`${dir}: ${describe(error)}`);
    }
  }
  throw new LinuxSandboxError(
    "setup-failed",
    `cannot prepare a directory for the placeholder lock files (${problems.join("; ")}); choose one with the placeholderLockDir option`,
  );
}

/**
 * A run is over: have the helper remove those of its placeholders that no run holds any more. The
 * helper that started the run normally has (it waits for bubblewrap, then releases); this is for
 * the rest, a helper killed before it could or a placeholder another run held then, so it starts a
 * process only when one of them is still there. Never throws — a placeholder left behind is an
 * empty directory the next run's cleanup removes.
 */
export function releasePlaceholders(helperPath: string, lockDir: string, dirs: readonly string[]): Promise<void> {
  if (!dirs.some(present)) return Promise.resolve();
  return new Promise((resolve) => {
    execFile(helperPath, ["--release-placeholders", ...placeholderArgs(lockDir, dirs)], { env: {}, timeout: 30_000 }, () => resolve());
  });
}

/**
 * Placeholders kept for a session (the backend's `placeholders: "per-session"`): one
 * `helper --hold-placeholders` process per new set of them holds the shared locks a run takes before
 * making its placeholders, so the session's runs neither make nor remove them, and no cleanup can.
 * The holders end when this process does (their stdin closes) and then remove what no run holds.
 */
export class SessionPlaceholders {
  private readonly held = new Map<string, Promise<boolean>>();

  constructor(
    private readonly helperPath: string,
    private readonly lockDir: string,
  ) {}

  /** Hold these placeholders from now on; resolves once they are (a holder that failed: not held). */
  async hold(dirs: readonly string[]): Promise<void> {
    const fresh = dirs.filter((dir) => !this.held.has(dir));
    if (fresh.length > 0) {
      // A holder that ends (killed) holds nothing from then on: the next run that needs them starts another.
      const started = this.start(fresh, () => {
        for (const dir of fresh) if (this.held.get(dir) === started) this.held.delete(dir);
      });
      for (const dir of fresh) this.held.set(dir, started);
    }
    await Promise.all(dirs.map((dir) => this.held.get(dir)));
  }

  /** The placeholders of `dirs` a run must release itself: those no holder of this session keeps. */
  async notHeld(dirs: readonly string[]): Promise<string[]> {
    const kept = await Promise.all(dirs.map((dir) => this.held.get(dir) ?? Promise.resolve(false)));
    return dirs.filter((_, i) => !kept[i]);
  }

  private start(dirs: readonly string[], ended: () => void): Promise<boolean> {
    return new Promise((resolve) => {
      const child = spawn(this.helperPath, ["--hold-placeholders", ...placeholderArgs(this.lockDir, dirs)], { stdio: ["pipe", "pipe", "ignore"], env: {} });
      let out = "";
      const settle = (ok: boolean) => {
        child.stdout.destroy();
        // Nothing of the holder keeps this process alive; its stdin closes when the process ends.
        child.unref();
        (child.stdin as unknown as { unref?: () => void }).unref?.();
        resolve(ok);
      };
      child.on("error", () => settle(false));
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("ready\n")) settle(true);
      });
      // A holder that ended before saying "ready" holds nothing: the runs make their own, as without it.
      child.on("exit", () => {
        settle(out.includes("ready\n"));
        ended();
      });
    });
  }
}
