import path from "node:path";
import { SandboxNotRegularFileError } from "./errors.js";
import { OPEN_FLAGS, observedFs, type ObservedFile, type ObservedStats } from "./observed-fs.js";

// The lookups here are synchronous on purpose. Planning a run examines a few dozen local paths (the
// roots, their metadata names, every component of the protected paths): a synchronous lstat costs a
// few microseconds, one through the thread pool with its promise and wake-up ten times that, which
// made these lookups a visible part of every sandboxed command's start. Together they hold the
// event loop for well under a millisecond.

/** Whether `child` is `parent` itself or lies below it (both absolute and canonical). */
export function isPathWithin(child: string, parent: string): boolean {
  if (child === parent) return true;
  // Planning asks this hundreds of times a start, of paths that are nearly always absolute and
  // normalised already; for those a prefix test answers what `path.relative` would, without resolving.
  if (path.sep === "/" && isCleanAbsolute(child) && isCleanAbsolute(parent)) {
    return parent === "/" || (child.startsWith(parent) && child.charCodeAt(parent.length) === 0x2f);
  }
  const rel = path.relative(parent, child);
  // `..foo` is a child named "..foo"; only `..` itself or `../…` leaves the parent.
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** An absolute POSIX path with no empty, `.` or `..` component and no trailing slash. */
function isCleanAbsolute(p: string): boolean {
  if (p.charCodeAt(0) !== 0x2f) return false;
  if (p.length === 1) return true;
  return !p.endsWith("/") && !p.includes("//") && !p.includes("/./") && !p.includes("/../") && !p.endsWith("/.") && !p.endsWith("/..");
}

/** Error codes that mean "this path, or one of its components, is not there". */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** `lstat` that answers `undefined` for a missing path instead of throwing. */
export function lstatOrUndefined(p: string): ObservedStats | undefined {
  try {
    return observedFs.lstat(p);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * `lstat` that answers `undefined` also when this user may not reach the path (a parent it cannot
 * search). For files another program of the same user looks up, git's configuration above all: git
 * skips a config file it is denied, and the sandboxed command, the same user, cannot reach it either.
 */
export function lstatIfReachable(p: string): ObservedStats | undefined {
  try {
    return lstatOrUndefined(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === "EACCES" || code === "EPERM") return undefined;
    throw error;
  }
}

/** `realpath` + `stat` that answers `undefined` when the path (or its target) does not exist. */
export function realDirectoryOrUndefined(p: string): string | undefined {
  try {
    const real = observedFs.realpath(p);
    return observedFs.stat(real)?.isDirectory() ? real : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Sorted, de-duplicated, with every path that lies inside another one of the list removed. */
export function outermostPaths(paths: Iterable<string>): string[] {
  const sorted = [...new Set(paths)].sort();
  const kept: string[] = [];
  // Ancestors are looked up by name rather than compared with every kept path: a broad root holds
  // dozens of carve-outs. The names are canonical (traced), so a path's ancestors are its dirnames.
  const keptSet = new Set<string>();
  const under = (p: string) => {
    for (let dir = p; ; dir = path.dirname(dir)) {
      if (keptSet.has(dir)) return true;
      if (path.dirname(dir) === dir) return false;
    }
  };
  for (const p of sorted) {
    if (!under(p)) {
      kept.push(p);
      keptSet.add(p);
    }
  }
  return kept;
}

/** Where a path leads once every symlink on the way is followed, and the symlinks met on the way. */
export interface TracedPath {
  /** The physical path: symlinks followed, `..` taken physically, a missing tail appended as written. */
  real: string;
  /** Every symlink met, as the path of the link itself (in its real parent directory), in order. */
  links: string[];
}

/** `lstat` results shared by the traces of one computation (the paths share most of their components). */
export type LstatCache = Map<string, ObservedStats | undefined>;

/** `lstat` through `cache`; undefined for a path that cannot be examined. */
function cachedLstat(p: string, cache: LstatCache | undefined): ObservedStats | undefined {
  if (cache?.has(p)) return cache.get(p);
  let stat: ObservedStats | undefined;
  try {
    stat = observedFs.lstat(p);
  } catch {
    stat = undefined;
  }
  cache?.set(p, stat);
  return stat;
}

/**
 * What separates path components: only `/` on POSIX, where a backslash is an ordinary character of a
 * name (a workspace called `a\b` must keep its carve-outs), and either slash on Windows.
 */
const SEPARATORS = process.platform === "win32" ? /[\\/]+/ : /\/+/;

/** Symlinks followed before giving up, as the kernel's own limit. */
const MAX_LINKS = 40;

/**
 * Resolve `p` the way the kernel will when something opens it, recording each symlink on the way.
 * Unlike `realpath`, it works for paths that do not exist yet (the missing tail is kept as written)
 * and it reports the links: a protected path reached through a link that sits in a writable
 * directory can be re-pointed by a sandboxed command, so the caller must know about every one.
 * `p` is taken as written: `a/link/..` is the parent of the link's target, not `a`.
 */
export function traceSymlinks(p: string, cache?: LstatCache): TracedPath {
  const { root } = path.parse(p);
  if (!root) throw new Error(`traceSymlinks needs an absolute path, got ${JSON.stringify(p)}`);
  const links: string[] = [];
  const pending = p.slice(root.length).split(SEPARATORS).filter(Boolean);
  let current = root;
  let missing = false;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === ".") continue;
    if (part === "..") {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, part);
    if (missing) {
      current = next;
      continue;
    }
    const stat = cachedLstat(next, cache);
    if (!stat) {
      // Missing or unreadable: nothing below can be followed, keep the rest as written.
      missing = true;
      current = next;
      continue;
    }
    if (!stat.isSymbolicLink()) {
      current = next;
      continue;
    }
    links.push(next);
    if (links.length > MAX_LINKS) {
      missing = true;
      current = next;
      continue;
    }
    let target: string;
    try {
      target = observedFs.readlink(next);
    } catch {
      // Replaced between lstat and readlink: treat it as the missing path it now may be.
      missing = true;
      current = next;
      continue;
    }
    const targetRoot = path.parse(target).root;
    if (targetRoot) current = targetRoot;
    pending.unshift(...target.slice(targetRoot.length).split(SEPARATORS).filter(Boolean));
  }
  return { real: current, links };
}

/** What `stat` says sits at a path, in words. */
function kindOf(st: ObservedStats): string {
  if (st.isFIFO()) return "FIFO";
  if (st.isSocket()) return "socket";
  if (st.isCharacterDevice()) return "character device";
  if (st.isBlockDevice()) return "block device";
  if (st.isDirectory()) return "directory";
  if (st.isSymbolicLink()) return "symbolic link";
  return "file of unknown type";
}

/**
 * The text of `file` if it is a regular file: opened non-blocking (a FIFO's open or read would
 * wait for a writer) and judged by `fstat` of that descriptor, so what is checked is what is read.
 * With `followLinks: false` a symbolic link as the last component is refused too. Errors of the
 * open itself (ENOENT, EACCES) are thrown as they come.
 * @throws SandboxNotRegularFileError for anything but a regular file (a unix socket: its open fails with ENXIO).
 */
export function readRegularFileSync(file: string, options: { followLinks?: boolean } = {}): string {
  const follow = options.followLinks !== false;
  const flags = OPEN_FLAGS.O_RDONLY | OPEN_FLAGS.O_NONBLOCK | (follow ? 0 : OPEN_FLAGS.O_NOFOLLOW);
  let read: ObservedFile;
  try {
    read = observedFs.readFile(file, flags, Number.MAX_SAFE_INTEGER);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENXIO" || (code === "ELOOP" && !follow)) {
      const st = follow ? observedFs.stat(file) : observedFs.lstat(file);
      if (st && !st.isFile()) throw new SandboxNotRegularFileError(file, kindOf(st));
    }
    throw error;
  }
  if (read.text === undefined) throw new SandboxNotRegularFileError(file, kindOf(read.stats));
  return read.text;
}
