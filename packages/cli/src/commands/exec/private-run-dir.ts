// Files `shellgate exec` writes while a command runs (the `--json` capture, output held behind a
// prompt) hold what the command printed. They go to a directory of their own in the orchestrator's
// spill location (shellgate's cache directory, held read-only in every sandbox), never a temp directory
// the command can write, and nothing is removed by name once that directory is not the one made.
import { constants, lstatSync, mkdirSync, mkdtempSync } from "node:fs";
import path from "node:path";
import { defaultSpillDir } from "@shellgate/orchestrator";

/** A directory made for one run, with the identity it had when made. */
export interface PrivateRunDir {
  path: string;
  dev: number;
  ino: number;
}

/** Open flags for a new file in a private run directory: created here, never through a link. */
export const CREATE_PRIVATE_FILE = constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** A directory's device and inode, looked at without following a link; throws unless it is this user's own private directory. */
function privateDirIdentity(dir: string): { dev: number; ino: number } {
  const info = lstatSync(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory (a symlink is not accepted)`);
  if (uid !== undefined && info.uid !== uid) throw new Error(`${dir} is owned by uid ${info.uid}, not by this user (${uid})`);
  if (process.platform !== "win32" && (info.mode & 0o022) !== 0) throw new Error(`${dir} is writable by group or others`);
  return { dev: info.dev, ino: info.ino };
}

/**
 * Make a new 0700 directory named `<prefix>XXXXXX` in `parent` (default: the orchestrator's
 * `defaultSpillDir()`), after checking that `parent` is this user's own private directory.
 * @throws Error naming the directory when either is not fit (a link, another owner, group-writable).
 */
export function makePrivateRunDir(prefix: string, parent: string = defaultSpillDir()): PrivateRunDir {
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  privateDirIdentity(parent);
  const made = mkdtempSync(path.join(parent, prefix));
  return { path: made, ...privateDirIdentity(made) };
}

/** Whether `dir` is still the directory that was made (not renamed away, no link in its place). */
export function stillPrivateRunDir(dir: PrivateRunDir): boolean {
  try {
    const now = privateDirIdentity(dir.path);
    return now.dev === dir.dev && now.ino === dir.ino;
  } catch {
    return false;
  }
}
