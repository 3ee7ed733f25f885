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
export const DEFAULT_SCAN_MAX_DIRECTORIES = 200_000;

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
  /** Directories read. */
  directories: number;
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

/**
 * Every git repository (a `.git` directory or file) inside `roots` that appeared, or whose config or
 * hooks changed, since `startedAt` (ms since the epoch, taken before the run started; the scan
 * allows `NEW_REPOSITORY_SLACK_MS` before it, `COARSE_TIMESTAMP_SLACK_MS` on a filesystem with
 * coarse timestamps). Run it after the run, once its sandbox is released.
 *
 * Each directory of every root is read once, by name and type only (no `stat` per entry): a new
 * `.git` can sit below any directory, and a directory's own times say nothing about what changed
 * further down, so no subtree can be skipped by its times. Skipped: the roots' read-only carve-outs
 * (the sandbox could not write there), the inside of every `.git`, and symbolic links (never
 * followed). Unreadable directories are skipped too. Stops at `maxDirectories` with `complete: false`.
 */
export function findRunRepositories(roots: readonly WritableRoot[], startedAt: number, options: RepositoryScanOptions = {}): RepositoryScan {
  const max = options.maxDirectories ?? DEFAULT_SCAN_MAX_DIRECTORIES;
  const readOnly = outermostPaths(roots.flatMap((r) => (r.readOnlySubpaths.includes(r.root) ? [] : r.readOnlySubpaths)));
  const isReadOnly = (p: string) => readOnly.some((c) => isPathWithin(p, c));
  const fullyReadOnly = new Set(roots.filter((r) => r.readOnlySubpaths.includes(r.root)).map((r) => r.root));
  const wanted = options.searchRoots ? new Set(options.searchRoots) : undefined;
  const starts = outermostPaths(roots.map((r) => r.root).filter((r) => !fullyReadOnly.has(r) && (wanted?.has(r) ?? true)));
  const repositories: RunRepository[] = [];
  let directories = 0;
  const stack = starts.map((root) => ({ dir: root, since: startedAt - slackFor(root) })).reverse();
  while (stack.length > 0) {
    if (directories >= max) return { repositories, complete: false, directories };
    const { dir, since } = stack.pop() as { dir: string; since: number };
    directories++;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    const below: Array<{ dir: string; since: number }> = [];
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.name === ".git") {
        if (isReadOnly(full)) continue;
        const stat = fs.lstatSync(full, { throwIfNoEntry: false });
        if (!stat || stat.isSymbolicLink()) {
          // A `.git` link is a repository too, for git; its target is not followed.
          if (stat && stat.ctimeMs >= since) repositories.push({ path: dir, gitPath: full, change: "created" });
          continue;
        }
        if (stat.ctimeMs >= since) repositories.push({ path: dir, gitPath: full, change: "created" });
        else if (stat.isDirectory() && metadataChanged(full, since)) repositories.push({ path: dir, gitPath: full, change: "changed" });
        continue;
      }
      // Node looks up an entry whose type the filesystem does not report; a link is never a directory here.
      if (entry.isDirectory() && !isReadOnly(full)) below.push({ dir: full, since });
    }
    for (let i = below.length - 1; i >= 0; i--) stack.push(below[i] as { dir: string; since: number });
  }
  return { repositories, complete: true, directories };
}
