// Where the CLI keeps V8's compiled code for its bundle, and when a cache file may be used.
//
// A code cache is code: V8 runs what it holds. It lives in shellgate's cache directory, which every
// sandbox shellgate builds keeps read-only (the orchestrator's `defaultProtectedPaths`, and the
// `sandbox` command's own protected paths), and a file is used only when it, and the directory it is
// in, belong to this user and no one else can write them. V8 itself refuses a cache made by another
// V8 version, with other flags, or for a source of another length; the file name adds the bundle's
// identity (inode, size, modification time), so a rebuilt bundle never meets an old cache.
import fs from "node:fs";
import path from "node:path";
import { codeCacheDir as userCodeCacheDir } from "@shellgate/user-paths";

/**
 * The directory of the CLI's code cache, `<shellgateCacheDir>/v8`; undefined when
 * `SHELLGATE_CODE_CACHE=off` turns the cache off.
 */
export function codeCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  return env["SHELLGATE_CODE_CACHE"] === "off" ? undefined : userCodeCacheDir(env);
}

/** FNV-1a of a short text, as 8 hex digits: names, not security (see the top of the file). */
function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/**
 * The cache file for this bundle (as `stat` sees it now), one of its `variant`s, under this Node.js
 * and architecture. A cache holds what the run that wrote it compiled, so each command has its own
 * (`variantOf`): `sandbox` compiles little of what `exec` runs.
 */
export function codeCacheFile(dir: string, bundle: string, stat: fs.Stats, variant: string): string {
  const identity = `${stat.dev}\0${stat.ino}\0${stat.size}\0${stat.mtimeMs}`;
  // The bundle's path in the name too: two installs (a global one, a project's) keep a cache each
  // instead of replacing each other's on every start.
  return path.join(dir, `${path.basename(bundle)}-${variant}-${fnv(bundle)}-${process.version}-${process.arch}-${fnv(identity)}.bin`);
}

const VARIANTS = new Set(["exec", "sandbox", "mcp", "check", "doctor", "policy"]);

/** Which cache a run with these arguments uses: its command's, or `other` (help, version, typos). */
export function variantOf(args: readonly string[]): string {
  const command = args[0] === "--debug" ? args[1] : args[0];
  return command !== undefined && VARIANTS.has(command) ? command : "other";
}

/** What the caches of one bundle path and command share: the name up to the Node.js version. */
const PREFIX_OF = (file: string) => path.basename(file).replace(/-v\d[^-]*-[^-]+-[0-9a-f]{8}\.bin$/, "-");

/** Owned by this user (where there are uids) and writable by no one else. */
function ownOnly(stat: fs.Stats): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || stat.uid === uid) && (process.platform === "win32" || (stat.mode & 0o022) === 0);
}

/** Whether `dir` is a real directory (not a symlink) that only this user can write. */
function trustedDir(dir: string): boolean {
  const stat = fs.lstatSync(dir);
  return stat.isDirectory() && ownOnly(stat);
}

/**
 * The cache file's bytes, when the file and its directory are fit to be trusted; else undefined.
 * With `into`, a file that fits is read into its start (a view of it is returned): memory the
 * process already touched, instead of new pages to fault in.
 */
export function readCodeCache(file: string, into?: Buffer): Buffer | undefined {
  let fd: number | undefined;
  try {
    if (!trustedDir(path.dirname(file))) return undefined;
    // Non-blocking: a FIFO in the file's place is refused by the fstat below, not waited on.
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || !ownOnly(stat)) return undefined;
    if (into === undefined || stat.size > into.length) return fs.readFileSync(fd);
    return into.subarray(0, readInto(fd, into.subarray(0, stat.size)));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Read `fd` from its start into `buffer` until the buffer is full or the file ends; the bytes read. */
export function readInto(fd: number, buffer: Buffer): number {
  let length = 0;
  while (length < buffer.length) {
    const n = fs.readSync(fd, buffer, length, buffer.length - length, length);
    if (n === 0) break;
    length += n;
  }
  return length;
}

/**
 * Store a cache file atomically (owner-only), and remove the caches of the same bundle path and
 * command for other builds or Node.js versions. Failures are ignored: the cache only saves time.
 */
export function writeCodeCache(file: string, data: Buffer): void {
  const dir = path.dirname(file);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!trustedDir(dir)) return;
    fs.writeFileSync(tmp, data, { mode: 0o600, flag: "wx" });
    fs.renameSync(tmp, file);
    const prefix = PREFIX_OF(file);
    for (const name of fs.readdirSync(dir)) {
      if (name !== path.basename(file) && name.startsWith(prefix) && name.endsWith(".bin")) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    fs.rmSync(tmp, { force: true });
  }
}
