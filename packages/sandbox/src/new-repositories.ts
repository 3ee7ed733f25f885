import fs from "node:fs";
import path from "node:path";
import { isPathWithin, outermostPaths } from "./paths.js";
import type { WritableRoot } from "./writable-roots.js";

/**
 * How far before a run's start a `.git` counts as new. File timestamps come from the kernel's coarse
 * clock, up to a tick (10 ms at the slowest) behind the one `Date.now()` reads; a `.git` the person
 * made in that window before the run is reported too, which is the safe side.
 */
export const NEW_REPOSITORY_SLACK_MS = 50;

/**
 * The slack for a root whose filesystem keeps whole milliseconds or coarser (FAT keeps two seconds):
 * told apart by the root's own timestamps, whose sub-millisecond digits are then all zero.
 */
export const COARSE_TIMESTAMP_SLACK_MS = 2000;

/** The slack that fits the filesystem of `root`: see `COARSE_TIMESTAMP_SLACK_MS`. */
function slackFor(root: string): number {
  try {
    const stat = fs.statSync(root, { bigint: true });
    return stat.ctimeNs % 1_000_000n === 0n && stat.mtimeNs % 1_000_000n === 0n ? COARSE_TIMESTAMP_SLACK_MS : NEW_REPOSITORY_SLACK_MS;
  } catch {
    return COARSE_TIMESTAMP_SLACK_MS;
  }
}

/** Directories read at most by one scan; a scan that reaches it says so (`complete: false`). */
export const DEFAULT_SCAN_MAX_DIRECTORIES = 100_000;

/** A repository a run created or changed inside its writable roots. */
export interface RunRepository {
  /** The directory git would treat as the worktree: where `.git` is. */
  path: string;
  /** `.git` itself (a directory, or a file whose `gitdir:` names one). */
  gitPath: string;
  /**
   * `created`: the `.git` appeared during the run (made, moved or linked in: each sets its change
   * time). `changed`: an older repository whose `config`, `hooks` or `.git` file changed during it.
   */
  change: "created" | "changed";
}

/** What a scan found, and whether it saw everything. */
export interface RepositoryScan {
  repositories: RunRepository[];
  /** False when the scan stopped at its directory budget; `repositories` is then a lower bound. */
  complete: boolean;
  /** Directories searched. */
  directories: number;
  /** Of those, the ones whose entries were read (the others came unchanged from the cache). */
  listed: number;
}

/** Options of `findRunRepositories`. */
export interface RepositoryScanOptions {
  /** Directories read at most; default `DEFAULT_SCAN_MAX_DIRECTORIES`. */
  maxDirectories?: number;
  /**
   * The roots to search (canonical paths, as in `WritableRoot.root`); default all. The orchestrator
   * leaves out the shared temporary directories: other programs make repositories there at any
   * time, and reading all of `/tmp` after every run would cost more than the run.
   */
  searchRoots?: readonly string[];
  /**
   * Listings kept between the searches of one session: a directory unchanged since it was last read
   * costs one `lstat` instead of a read. Its first search reads everything.
   */
  cache?: DirectoryListingCache;
}

const changedSince = (p: string, since: number): boolean => {
  const stat = fs.lstatSync(p, { throwIfNoEntry: false });
  return stat !== undefined && stat.ctimeMs >= since;
};

/** Whether an older `.git` directory had what git runs or reads changed: `config`, `hooks` or a hook in it. */
function metadataChanged(gitDir: string, since: number): boolean {
  if (changedSince(path.join(gitDir, "config"), since)) return true;
  const hooks = path.join(gitDir, "hooks");
  if (changedSince(hooks, since)) return true;
  let names: string[] = [];
  try {
    names = fs.readdirSync(hooks);
  } catch {
    return false;
  }
  return names.some((name) => changedSince(path.join(hooks, name), since));
}

/** What a search needs of one directory: its subdirectories (links excluded, `.git` apart) and whether it holds a `.git`. */
interface Listing {
  subdirs: string[];
  hasGit: boolean;
}

/** A listing kept with the identity and change time of the directory when it was read. */
interface CachedListing extends Listing {
  ino: number;
  dev: number;
  ctimeMs: number;
}

/**
 * Listings kept from one search to the next within a session (see `RepositoryScanOptions.cache`).
 * Holds at most `maxEntries` directories; past that, new ones are read and not kept.
 */
export class DirectoryListingCache {
  readonly listings = new Map<string, CachedListing>();
  constructor(readonly maxEntries: number = DEFAULT_SCAN_MAX_DIRECTORIES) {}
}

function readListing(dir: string): Listing | undefined {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const subdirs: string[] = [];
  let hasGit = false;
  for (const entry of entries) {
    if (entry.name === ".git") hasGit = true;
    // Node looks up an entry whose type the filesystem does not report; a link is never a directory here.
    else if (entry.isDirectory()) subdirs.push(entry.name);
  }
  return { subdirs, hasGit };
}

/**
 * The listing of `dir`, from the cache when the directory is the same one (device, inode) with the
 * same change time as when it was read, and that change time lies before `since`: no entry of it
 * was added, removed or renamed since it was read (each would set its change time to the present,
 * and a command cannot set a change time back). Otherwise it is read, its change time taken first,
 * and kept only if that lies before `since`, so that a later change cannot share its timestamp.
 */
function cachedListing(cache: DirectoryListingCache, dir: string, since: number, read: (dir: string) => Listing | undefined): Listing | undefined {
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return undefined;
  const kept = cache.listings.get(dir);
  if (kept && kept.ino === stat.ino && kept.dev === stat.dev && kept.ctimeMs === stat.ctimeMs && stat.ctimeMs < since) return kept;
  const listing = read(dir);
  if (!listing) {
    cache.listings.delete(dir);
    return undefined;
  }
  if (stat.ctimeMs < since && (kept || cache.listings.size < cache.maxEntries)) {
    cache.listings.set(dir, { ...listing, ino: stat.ino, dev: stat.dev, ctimeMs: stat.ctimeMs });
  } else {
    cache.listings.delete(dir);
  }
  return listing;
}

/**
 * Every git repository (a `.git` directory or file) inside `roots` that appeared, or whose config or
 * hooks changed, since `startedAt` (ms since the epoch, taken before the run started; the scan
 * allows `NEW_REPOSITORY_SLACK_MS` before it, `COARSE_TIMESTAMP_SLACK_MS` on a filesystem with
 * coarse timestamps). Run it after the run, once its sandbox is released.
 *
 * Each directory of every root is read once, by name and type only (no `stat` per entry): a new
 * `.git` can sit below any directory, and a directory's own times say nothing about what changed
 * further down, so no subtree can be skipped by its times. With a `cache`, a directory unchanged
 * since an earlier search is not read again: its change time shows that no entry of it changed. Skipped: the roots' read-only carve-outs
 * (the sandbox could not write there), the inside of every `.git`, and symbolic links (never
 * followed). Unreadable directories are skipped too. Stops at `maxDirectories` with `complete: false`.
 */
export function findRunRepositories(roots: readonly WritableRoot[], startedAt: number, options: RepositoryScanOptions = {}): RepositoryScan {
  const max = options.maxDirectories ?? DEFAULT_SCAN_MAX_DIRECTORIES;
  const readOnly = outermostPaths(roots.flatMap((r) => (r.readOnlySubpaths.includes(r.root) ? [] : r.readOnlySubpaths)));
  // The walk starts outside every carve-out and stops at each, so a path met on the way lies inside
  // one only if it is one: a set lookup per directory instead of a comparison with each carve-out.
  const readOnlySet = new Set(readOnly);
  const isReadOnly = (p: string) => readOnlySet.has(p);
  const fullyReadOnly = new Set(roots.filter((r) => r.readOnlySubpaths.includes(r.root)).map((r) => r.root));
  const wanted = options.searchRoots ? new Set(options.searchRoots) : undefined;
  const starts = outermostPaths(
    roots.map((r) => r.root).filter((r) => !fullyReadOnly.has(r) && (wanted?.has(r) ?? true) && !readOnly.some((c) => isPathWithin(r, c))),
  );
  const repositories: RunRepository[] = [];
  let directories = 0;
  let listed = 0;
  const cache = options.cache;
  const read = (dir: string) => {
    listed++;
    return readListing(dir);
  };
  const stack = starts.map((root) => ({ dir: root, since: startedAt - slackFor(root) })).reverse();
  while (stack.length > 0) {
    if (directories >= max) return { repositories, complete: false, directories, listed };
    const { dir, since } = stack.pop() as { dir: string; since: number };
    directories++;
    const listing = cache ? cachedListing(cache, dir, since, read) : read(dir);
    if (!listing) continue;
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    if (listing.hasGit) {
      const full = prefix + ".git";
      const stat = isReadOnly(full) ? undefined : fs.lstatSync(full, { throwIfNoEntry: false });
      // A `.git` link is a repository too, for git; its target is not followed.
      if (stat && stat.ctimeMs >= since) repositories.push({ path: dir, gitPath: full, change: "created" });
      else if (stat?.isDirectory() && metadataChanged(full, since)) repositories.push({ path: dir, gitPath: full, change: "changed" });
    }
    for (let i = listing.subdirs.length - 1; i >= 0; i--) {
      const full = prefix + (listing.subdirs[i] as string);
      if (!isReadOnly(full)) stack.push({ dir: full, since });
    }
  }
  return { repositories, complete: true, directories, listed };
}
