// Files `shellgate exec` writes while a command runs (the `--json` capture, output held behind a
// prompt) hold what the command printed. They go to a directory of their own in the orchestrator's
// spill location (shellgate's cache directory, held read-only in every sandbox), never a temp directory
// the command can write, and nothing is removed by name once that directory is not the one made.
import { constants, mkdirSync, mkdtempSync } from "node:fs";
import path from "node:path";
import { checkPrivateDirSync, defaultSpillDir } from "@shellgate/orchestrator";

/** A directory made for one run, with the identity it had when made. */
export interface PrivateRunDir {
  path: string;
  dev: number;
  ino: number;
}

/** Open flags for a new file in a private run directory: created here, never through a link. */
export const CREATE_PRIVATE_FILE = constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** A directory's device and inode; throws unless it is this user's own private directory (the orchestrator's check). */
function privateDirIdentity(dir: string): { dev: number; ino: number } {
  const { dev, ino } = checkPrivateDirSync(dir);
  return { dev, ino };
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
