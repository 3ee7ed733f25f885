// Placeholder directories: how a protected path that does not exist yet is kept from being created.
//
// bubblewrap can only mount over something that exists, and the writable root is the host's own
// directory, so whatever serves as the mount point appears in the user's project while a command
// runs. An empty directory is the mount point that does no harm if it is ever left behind: every
// tool reads an empty `.codex` or `.config` as "no configuration", where an empty *file* of that
// name makes them fail with ENOTDIR.
//
// Two things must never happen at cleanup: removing something that is not ours (a user's own empty
// directory, a leftover, the next run's placeholder) and removing a placeholder that another
// sandbox still has mounted. The kernel lets the host `rmdir` a directory that is a mount point in
// another mount namespace and silently detaches that mount there, which would let the other
// sandbox create the protected path after all. So: we create the directory ourselves (and remember
// its device and inode), runs of this process share it through a reference count, and every
// sandbox (of any process) holds a read lock on it through `bwrap --lock-file`, which
// `/proc/locks` shows to the process deciding whether the directory can go.
//
// The lock only shows once a sandbox is set up, and between creating (or finding) a placeholder and
// its bwrap taking the lock a run spends a process start. Another process's cleanup must not remove
// the placeholder in that window (bwrap then fails: "Can't find source path"), so a run that finds
// a placeholder already there touches its mtime, and a cleanup removes only a directory whose mtime
// is still the one it recorded itself. A touched placeholder is left behind for a later run to
// adopt, see below. The remaining window is that of one `lstat` and one `rmdir`.
//
// A run killed before its cleanup (SIGKILL of the host) leaves its placeholder behind. To tell such a
// leftover from a user's own empty directory, placeholders are made with a mode no one gives an
// empty configuration directory: 1755 (the sticky bit, meaningless on a directory only its owner
// can write). A later run adopts a leftover that still carries exactly that mode, belongs to this
// user, is empty, is locked by no sandbox and was last touched more than a minute ago (a younger one
// may be another process's, about to be mounted), and removes it after its own run like one it made.
// Inside a sandbox a placeholder is read-only, so a command cannot mark the user's own directory;
// marking a directory under a name no sandbox holds gains it nothing but the removal of an empty
// directory.
import fs from "node:fs";
import { LinuxSandboxError } from "./errors.js";

/** Device and inode of a directory this process created, and the mtime it last gave it. */
interface Identity {
  dev: bigint;
  ino: bigint;
  mtimeNs: bigint;
}

interface Entry {
  users: number;
  /** Set when this process created the directory (it may remove it); undefined when it was there already. */
  created: Identity | undefined;
}

/** The mode that marks a directory as a placeholder this mechanism made (see the top of the file). */
export const PLACEHOLDER_MODE = 0o1755;

/** How long a marked, unlocked placeholder must have been untouched before a run may adopt it. */
export const LEFTOVER_AGE_MS = 60_000;

/** Placeholders in use by runs of this process, by path. */
const entries = new Map<string, Entry>();

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/**
 * Whether a directory, as `stat` saw it before this run touched it, is a leftover placeholder:
 * marked, ours, empty, untouched for `LEFTOVER_AGE_MS` and locked by no sandbox. Anything else (the
 * user's own directory, another process's placeholder in use or about to be) is not ours to remove.
 */
function isLeftover(dir: string, stat: fs.BigIntStats): boolean {
  try {
    if (!stat.isDirectory() || Number(stat.mode & 0o7777n) !== PLACEHOLDER_MODE) return false;
    if (stat.uid !== BigInt(process.getuid?.() ?? -1)) return false;
    if (Date.now() - Number(stat.mtimeMs) < LEFTOVER_AGE_MS) return false;
    if (fs.readdirSync(dir).length > 0) return false;
    return !isLocked({ dev: stat.dev, ino: stat.ino });
  } catch {
    return false;
  }
}

function lstatOrUndefined(dir: string): fs.BigIntStats | undefined {
  try {
    return fs.lstatSync(dir, { bigint: true });
  } catch {
    return undefined;
  }
}

/** How often a run retries a placeholder that another process's cleanup removed under it. */
const VANISHED_RETRIES = 3;

function create(dir: string, retries = VANISHED_RETRIES): Identity | undefined {
  try {
    fs.mkdirSync(dir, { mode: 0o755 });
  } catch (error) {
    // Already there (a leftover, the user's own empty directory, another process's placeholder):
    // mount it all the same; only a leftover placeholder is ours to remove afterwards. A marked one
    // is touched at once, so that the process that made it does not remove it under this run; its
    // state from before the touch decides whether it is a leftover.
    if (errno(error) === "EEXIST") {
      const before = lstatOrUndefined(dir);
      if (before && !(before.isDirectory() && Number(before.mode & 0o7777n) === PLACEHOLDER_MODE)) return undefined;
      let touched: Identity | undefined;
      if (before) {
        try {
          const now = new Date();
          fs.utimesSync(dir, now, now);
          const after = fs.lstatSync(dir, { bigint: true });
          touched = { dev: after.dev, ino: after.ino, mtimeNs: after.mtimeNs };
        } catch {
          touched = undefined;
        }
      }
      // Removed by the other process's cleanup between its check and our touch: make it again.
      if (!touched || touched.ino !== before!.ino || touched.dev !== before!.dev) {
        if (!lstatOrUndefined(dir) && retries > 0) return create(dir, retries - 1);
        return undefined;
      }
      return isLeftover(dir, before!) ? touched : undefined;
    }
    throw new LinuxSandboxError(
      "setup-failed",
      `cannot create the placeholder directory ${dir} that keeps a protected path from being created inside the sandbox (${errno(error) ?? String(error)})`,
      { cause: error },
    );
  }
  try {
    // chmod, not mkdir's mode: the umask must not strip the mark
    fs.chmodSync(dir, PLACEHOLDER_MODE);
  } catch {
    // unmarked, it is still a sound placeholder; only a leftover of it would not be recognised
  }
  const stat = fs.lstatSync(dir, { bigint: true });
  return { dev: stat.dev, ino: stat.ino, mtimeNs: stat.mtimeNs };
}

/**
 * A run is about to mount these placeholders: create those that do not exist (non-recursively —
 * their parents exist, `planMounts` picked the first missing component) and count the run as a
 * user. Synchronous, so that runs of this process cannot interleave between check and create.
 */
export function acquirePlaceholders(dirs: readonly string[]): void {
  const done: string[] = [];
  try {
    for (const dir of dirs) {
      let entry = entries.get(dir);
      if (!entry) {
        entry = { users: 0, created: create(dir) };
        entries.set(dir, entry);
      }
      entry.users += 1;
      done.push(dir);
    }
  } catch (error) {
    releasePlaceholders(done);
    throw error;
  }
}

/** glibc's `major()`/`minor()` of a `dev_t`, as `/proc/locks` prints them (hex). */
function devNumbers(dev: bigint): string {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major.toString(16).padStart(2, "0")}:${minor.toString(16).padStart(2, "0")}`;
}

/**
 * Whether any process holds a lock on this inode, i.e. a sandbox (of this or another process) still
 * has it mounted. Unreadable `/proc/locks` counts as locked: a leftover empty directory is harmless,
 * detaching another sandbox's mount is not.
 */
export function isLocked(id: Pick<Identity, "dev" | "ino">): boolean {
  let table: string;
  try {
    table = fs.readFileSync("/proc/locks", "utf8");
  } catch {
    return true;
  }
  const key = `${devNumbers(id.dev)}:${id.ino}`;
  return table.split("\n").some((line) => line.split(/\s+/).includes(key));
}

function removeIfUnused(dir: string, id: Identity): void {
  try {
    const stat = fs.lstatSync(dir, { bigint: true });
    if (!stat.isDirectory() || stat.dev !== id.dev || stat.ino !== id.ino) return; // replaced: not ours any more
    if (stat.mtimeNs !== id.mtimeNs) return; // touched by another process's run: in use, or about to be
    if (fs.readdirSync(dir).length > 0) return;
    if (isLocked(id)) return;
    fs.rmdirSync(dir);
  } catch {
    // gone already (another run removed it), filled meanwhile (ENOTEMPTY), busy: leave it be
  }
}

/**
 * A run is over: the last run of this process to use a placeholder removes it, if this process
 * created it, it is still that same empty directory, and no sandbox holds its lock. Never recursive.
 */
export function releasePlaceholders(dirs: readonly string[]): void {
  for (const dir of dirs) {
    const entry = entries.get(dir);
    if (!entry) continue;
    entry.users -= 1;
    if (entry.users > 0) continue;
    entries.delete(dir);
    if (entry.created) removeIfUnused(dir, entry.created);
  }
}
