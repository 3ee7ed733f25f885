import path from "node:path";
import { observedFs } from "@shellgate/sandbox";

/** The parts of `fs.Stats` the trust check reads; injectable so the rules can be unit-tested. */
export interface TrustStat {
  uid: number;
  mode: number;
  isDirectory(): boolean;
  isFile(): boolean;
  isSymbolicLink(): boolean;
}

/** File-system access of the trust check (`lstat` and `readlink`, both without following links). */
export interface TrustFs {
  lstat(file: string): TrustStat;
  readlink(file: string): string;
}

const nodeFs: TrustFs = {
  lstat: (file) => {
    const st = observedFs.lstat(file);
    if (st) return st;
    throw Object.assign(new Error(`ENOENT: no such file or directory, lstat '${file}'`), { code: "ENOENT" });
  },
  readlink: (file) => observedFs.readlink(file),
};

/** Who may own a host binary and every directory on the way to it. */
export interface TrustOptions {
  /**
   * Owners accepted besides root (uid 0). Binaries found by shellgate itself (bwrap, the C
   * compiler) accept root only; a path the user configured explicitly, and the package's own
   * helper, also accept the user shellgate runs as.
   */
  alsoOwnedBy?: readonly number[];
  /** Injected file-system access (tests); defaults to the real one. */
  fs?: TrustFs;
}

/** The outcome of `checkHostBinary`: the resolved file, or the first check that failed. */
export type TrustVerdict =
  | { trusted: true; realPath: string }
  | { trusted: false; reason: string };

const MAX_SYMLINKS = 40;
const STICKY = 0o1000;

function describeOwner(uid: number, owners: readonly number[]): string {
  const accepted = owners.map((o) => (o === 0 ? "root" : `uid ${o}`)).join(" or ");
  return `is owned by uid ${uid}, not ${accepted}`;
}

function mode(m: number): string {
  return (m & 0o7777).toString(8).padStart(4, "0");
}

/** Why a directory on the way to a host binary is unsafe, or undefined when it is fine. */
function directoryProblem(dir: string, st: TrustStat, owners: readonly number[]): string | undefined {
  if (!st.isDirectory()) return `${dir} is not a directory`;
  if (!owners.includes(st.uid)) return `directory ${dir} ${describeOwner(st.uid, owners)}`;
  // A sticky directory (/tmp) lets others create entries but not rename or remove ours.
  if (st.mode & STICKY) return undefined;
  if (st.mode & 0o002) return `directory ${dir} is writable by others (mode ${mode(st.mode)})`;
  if (st.mode & 0o020) return `directory ${dir} is writable by its group (mode ${mode(st.mode)})`;
  return undefined;
}

function fileProblem(file: string, st: TrustStat, owners: readonly number[]): string | undefined {
  if (!st.isFile()) return `${file} is not a regular file`;
  if (!owners.includes(st.uid)) return `${file} ${describeOwner(st.uid, owners)}`;
  if (st.mode & 0o022) return `${file} is writable by its group or others (mode ${mode(st.mode)})`;
  if ((st.mode & 0o111) === 0) return `${file} is not executable (mode ${mode(st.mode)})`;
  return undefined;
}

/**
 * Whether `file` is safe for the host side to execute: an absolute path whose every directory,
 * from `/` down (symbolic links followed, each link's own directory checked too), and the file
 * itself are owned by root (or an accepted owner) and not writable by group or others (sticky
 * directories such as `/tmp` excepted). Anyone who could write one of them could swap the binary.
 * Never throws: a missing file or an unreadable directory is a failed check with its reason.
 */
export function checkHostBinary(file: string, options: TrustOptions = {}): TrustVerdict {
  const io = options.fs ?? nodeFs;
  const owners = [0, ...(options.alsoOwnedBy ?? []).filter((uid) => uid !== 0)];
  if (!path.isAbsolute(file)) return { trusted: false, reason: `${JSON.stringify(file)} is not an absolute path` };
  const stat = (p: string): TrustStat | string => {
    try {
      return io.lstat(p);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "error";
      return code === "ENOENT" || code === "ENOTDIR" ? `${p} does not exist` : `${p} cannot be inspected (${code})`;
    }
  };
  const root = stat("/");
  if (typeof root === "string") return { trusted: false, reason: root };
  const rootProblem = directoryProblem("/", root, owners);
  if (rootProblem) return { trusted: false, reason: rootProblem };

  let current = "/";
  const pending = file.split("/").filter(Boolean);
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift() as string;
    if (name === ".") continue;
    if (name === "..") {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, name);
    const st = stat(next);
    if (typeof st === "string") return { trusted: false, reason: st };
    if (st.isSymbolicLink()) {
      // The link itself can only be changed by whoever may write `current`, checked already.
      if (++links > MAX_SYMLINKS) return { trusted: false, reason: `too many symbolic links resolving ${file}` };
      let target: string;
      try {
        target = io.readlink(next);
      } catch (error) {
        return { trusted: false, reason: `${next} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})` };
      }
      pending.unshift(...target.split("/").filter(Boolean));
      if (path.isAbsolute(target)) current = "/";
      continue;
    }
    const problem = pending.length > 0 ? directoryProblem(next, st, owners) : fileProblem(next, st, owners);
    if (problem) return { trusted: false, reason: problem };
    current = next;
  }
  if (current === "/") return { trusted: false, reason: `${file} is not a regular file` };
  return { trusted: true, realPath: current };
}

/** Where bubblewrap is looked for, distribution location first; never `PATH`. */
export const BWRAP_LOCATIONS: readonly string[] = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"];

/** The uid shellgate runs as (accepted as an owner of explicitly configured binaries). */
export function currentUid(): number {
  return process.geteuid?.() ?? process.getuid?.() ?? 0;
}
