// `fs.promises` is read where it is used: importing node:fs/promises would load it on every CLI start.
import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";

/** A directory checked to be private, and the device + inode it had then. */
export interface PrivateDir {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
}

/** Why a directory is not fit to hold host-written files; `code` mirrors an errno where one applies. */
export class UnfitDirectoryError extends Error {
  readonly code: string;
  constructor(dir: string, why: string, code = "EUNFIT") {
    super(`${dir} ${why}`);
    this.name = "UnfitDirectoryError";
    this.code = code;
  }
}

const uid = () => process.getuid?.();

/** Judge what `lstat` found at `dir` (see `checkPrivateDir`). */
function judgePrivateDir(dir: string, info: fs.Stats): PrivateDir {
  if (info.isSymbolicLink()) throw new UnfitDirectoryError(dir, "is a symlink; a private directory is never reached through a link", "ELOOP");
  if (!info.isDirectory()) throw new UnfitDirectoryError(dir, "is not a directory", "ENOTDIR");
  const me = uid();
  if (me !== undefined && info.uid !== me) throw new UnfitDirectoryError(dir, `is owned by uid ${info.uid}, not by this user (${me})`, "EPERM");
  if (process.platform !== "win32" && (info.mode & 0o022) !== 0) {
    throw new UnfitDirectoryError(dir, `is writable by group or others (mode ${(info.mode & 0o777).toString(8)})`, "EPERM");
  }
  return { path: dir, dev: info.dev, ino: info.ino };
}

/**
 * Check, without following a link, that `dir` is a directory (not a symlink), owned by this user
 * (POSIX), and writable by neither group nor others: nobody else can then put a name into it.
 * @throws UnfitDirectoryError saying which of these fails; the lstat error when it does not exist.
 */
export async function checkPrivateDir(dir: string): Promise<PrivateDir> {
  return judgePrivateDir(dir, await fs.promises.lstat(dir));
}

/**
 * `checkPrivateDir` for callers that write synchronously (`shellgate exec` writes its captures as
 * output arrives): the same judgement of the same `lstat`.
 * @throws UnfitDirectoryError saying which check fails; the lstat error when it does not exist.
 */
export function checkPrivateDirSync(dir: string): PrivateDir {
  return judgePrivateDir(dir, fs.lstatSync(dir));
}

/** Make `dir` (and missing parents, 0700) and check it is private (see `checkPrivateDir`). */
export async function ensurePrivateDir(dir: string): Promise<PrivateDir> {
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  return checkPrivateDir(dir);
}

/** Whether `dir` still is the directory that was checked: same device and inode, still no link. */
export async function samePrivateDir(dir: PrivateDir): Promise<boolean> {
  const info = await fs.promises.lstat(dir.path).catch(() => undefined);
  return info !== undefined && info.isDirectory() && !info.isSymbolicLink() && info.dev === dir.dev && info.ino === dir.ino;
}

const CREATE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

/**
 * Create a new file `name` (mode 0600) in a checked private directory: never one that exists (a link
 * planted under the name is refused, not followed), and only while the directory is the one that was
 * checked, before and after the open.
 * @throws UnfitDirectoryError when the directory changed; the open's error (EEXIST) otherwise.
 */
export async function createPrivateFile(dir: PrivateDir, name: string): Promise<{ file: string; handle: FileHandle }> {
  if (name.includes("/") || name.includes(path.sep) || name === "." || name === "..") throw new UnfitDirectoryError(name, "is not a plain file name", "EINVAL");
  if (!(await samePrivateDir(dir))) throw new UnfitDirectoryError(dir.path, "is no longer the directory that was checked", "ESTALE");
  const file = path.join(dir.path, name);
  const handle = await fs.promises.open(file, CREATE_FLAGS, 0o600);
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.nlink !== 1 || !(await samePrivateDir(dir))) {
      throw new UnfitDirectoryError(dir.path, "changed while a file was created in it", "ESTALE");
    }
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  return { file, handle };
}

/**
 * Remove what a crashed run left: under `base`, regular files older than `maxAgeMs`, then directories
 * (one level down) that are empty and older than that. Nothing is followed: a link is removed as a
 * link, never what it points to. Best effort; never throws.
 */
export async function removeExpired(base: string, maxAgeMs: number, now = Date.now()): Promise<void> {
  const expired = (mtimeMs: number) => now - mtimeMs > maxAgeMs;
  const entries = await fs.promises.readdir(base, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(base, entry.name);
    try {
      if (!entry.isDirectory()) {
        const info = await fs.promises.lstat(full);
        if (expired(info.mtimeMs)) await fs.promises.unlink(full);
        continue;
      }
      // Taken first: removing the files inside makes the directory look new.
      const dirExpired = expired((await fs.promises.lstat(full)).mtimeMs);
      for (const inner of await fs.promises.readdir(full, { withFileTypes: true })) {
        const file = path.join(full, inner.name);
        const info = await fs.promises.lstat(file);
        if (!info.isDirectory() && expired(info.mtimeMs)) await fs.promises.unlink(file);
      }
      if (dirExpired) await fs.promises.rmdir(full).catch(() => undefined);
    } catch {
      // Another session's cleanup got there first, or the entry is not ours to remove.
    }
  }
}
