import path from "node:path";
import { UnpinnableProtectedPathError, type ObservedStats, type WritableRoot, isPathWithin, observedFs } from "@shellgate/sandbox";
import { PLACEHOLDER_MODE } from "./placeholders.js";

/** The filesystem view of one sandboxed run, decided from the writable roots and denied reads. */
export interface MountPlan {
  /** Bound read-write, each as a mount of its own (nested roots too), outermost first. */
  writableRoots: string[];
  /**
   * Existing directories between a writable root and a carve-out or a nested root
   * (`WritableRoot.pinnedAncestors`), bound read-write onto themselves: still writable, but a mount
   * point cannot be renamed or removed, so nothing can be swapped in under the protected path.
   */
  pinned: string[];
  /**
   * Existing carve-outs re-bound read-only inside the writable roots; also a non-directory found
   * where a protected path needs a directory (a file named `.config` above `.config/shellgate`),
   * which would otherwise be replaced by a directory holding whatever the command likes.
   */
  readOnly: string[];
  /**
   * Placeholder directories: the first missing component of a carve-out that does not exist yet
   * (`<cwd>/.codex`, `<ws>/.config` for a missing `<ws>/.config/shellgate/rules`), and existing
   * carve-outs that are empty directories (perhaps another run's placeholder). Each is an empty
   * directory on the host, bound read-only onto itself and locked (`--lock-file`) for the run, so
   * nothing can be created at or under it; the backend creates the missing ones before the run and
   * removes them afterwards (see `placeholders.ts`).
   */
  stubs: string[];
  /** Denied-read directories, hidden under an empty read-only tmpfs. */
  maskedDirs: string[];
  /** Denied-read files (and other non-directories), replaced by `/dev/null`. */
  maskedFiles: string[];
  /** A fresh tmpfs on `/tmp`, because `/tmp` is not inside any writable root. */
  privateTmp: boolean;
  /**
   * Directories under a private `/tmp` that must stay visible (read-only): the workspace and the
   * command's cwd when they live there. Writable roots are bound on top of them.
   */
  keepVisible: string[];
}

// Every lookup here is synchronous: a plan looks at a few dozen local paths, each a few microseconds
// as a plain system call and ten times that through the thread pool (with a promise and a wake-up
// each), which made these lookups most of a run's planning time. The event loop is held for well
// under a millisecond.

function lstatOrUndefined(p: string): ObservedStats | undefined {
  try {
    return observedFs.lstat(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * Whether `dir` is a directory with nothing in it, one with something in it (or that cannot be
 * read), or gone since it was seen: another run's placeholder that its cleanup has just removed,
 * which must be held like any missing path, not bound as a directory that is no longer there.
 */
function dirContents(dir: string): "empty" | "not-empty" | "gone" {
  // A whole listing rather than a `fs.Dir` read for one entry: the directories looked at here are
  // protected names (`.git`, `.codex`, tool directories) with few entries at their top, and setting a
  // `fs.Dir` up costs twice such a listing (24 against 12 µs for a fresh `.git`, machine E).
  try {
    return observedFs.isEmptyDir(dir) ? "empty" : "not-empty";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "gone" : "not-empty";
  }
}

/** A symlink where a protected path or one of its pinned directories should be: refuse the run. */
function refuseLink(protectedPath: string, link: string): never {
  throw new UnpinnableProtectedPathError(protectedPath, link, path.dirname(link));
}

/**
 * An empty placeholder directory of this user (its mode says so; see placeholders.ts), made by a run
 * or a session holder that may still hold it: a plan treats it as the missing component it stands
 * for, so that the plan (and a pre-warmed sandbox's reuse key) is the same whether or not another
 * run's placeholder is there at the moment.
 */
function isPlaceholder(dir: string, stat: ObservedStats): boolean {
  return stat.isDirectory() && (stat.mode & 0o7777) === PLACEHOLDER_MODE && stat.uid === process.getuid?.() && dirContents(dir) === "empty";
}

/**
 * What holds a carve-out that does not exist: its shallowest missing component below `root` (a
 * placeholder), or the non-directory that stands where a directory on the way should be (bound
 * read-only). Undefined when the carve-out exists after all.
 */
function holdMissing(root: string, target: string): { stub: string } | { readOnly: string } | undefined {
  const parts = path.relative(root, target).split(path.sep).filter(Boolean);
  let current = root;
  for (const [i, part] of parts.entries()) {
    current = path.join(current, part);
    const stat = lstatOrUndefined(current);
    if (!stat) return { stub: current };
    if (stat.isSymbolicLink()) refuseLink(target, current);
    if (i < parts.length - 1 && isPlaceholder(current, stat)) return { stub: current };
    if (!stat.isDirectory() && i < parts.length - 1) return { readOnly: current };
  }
  return undefined;
}

/** What a carve-out adds to the plan: read-only if it exists, a placeholder if empty or missing. */
function lookAtCarveOut(plan: MountPlan, root: string, sub: string): void {
  let stat = lstatOrUndefined(sub);
  const contents = stat?.isDirectory() ? dirContents(sub) : undefined;
  if (contents === "gone") stat = undefined;
  if (stat?.isSymbolicLink()) refuseLink(sub, sub);
  if (contents === "empty") return addOnce(plan.stubs, sub);
  if (stat) return addOnce(plan.readOnly, sub);
  const hold = holdMissing(root, sub);
  if (hold && "stub" in hold) addOnce(plan.stubs, hold.stub);
  else if (hold) addOnce(plan.readOnly, hold.readOnly);
}

/** What a directory to pin adds: a pin, read-only for a non-directory, nothing when it is missing. */
function lookAtPin(plan: MountPlan, dir: string): void {
  const stat = lstatOrUndefined(dir);
  // Missing, or a placeholder standing for a missing one: the placeholder of its carve-out holds it.
  if (!stat || isPlaceholder(dir, stat)) return;
  if (stat.isSymbolicLink()) refuseLink(dir, dir);
  addOnce(stat.isDirectory() ? plan.pinned : plan.readOnly, dir);
}

/**
 * Turn writable roots (with their read-only carve-outs and pinned directories) and denied-read paths
 * into a mount plan. Reads the filesystem (existence, file kinds) but changes nothing.
 * @throws UnpinnableProtectedPathError when a carve-out or a directory to pin is a symlink (it changed since the roots were computed).
 */
export async function planMounts(
  roots: readonly WritableRoot[],
  deniedReadPaths: readonly string[],
  visibleDirs: readonly string[] = [],
): Promise<MountPlan> {
  const privateTmp = !roots.some((r) => isPathWithin("/tmp", r.root));
  const plan: MountPlan = {
    writableRoots: [...new Set(roots.map((r) => r.root))].sort((a, b) => a.length - b.length),
    pinned: [], readOnly: [], stubs: [], maskedDirs: [], maskedFiles: [], privateTmp, keepVisible: [],
  };
  if (privateTmp) {
    for (const dir of visibleDirs) {
      const real = realpathOrUndefined(dir);
      if (!real || real === "/tmp" || !isPathWithin(real, "/tmp")) continue;
      if (roots.some((r) => isPathWithin(real, r.root)) || plan.keepVisible.includes(real)) continue;
      plan.keepVisible.push(real);
    }
  }
  for (const { root, readOnlySubpaths, pinnedAncestors } of roots) {
    for (const sub of readOnlySubpaths) lookAtCarveOut(plan, root, sub);
    // Older callers may hand in roots without the field; they get no pins, as before.
    for (const dir of pinnedAncestors ?? []) lookAtPin(plan, dir);
  }
  for (const denied of deniedReadPaths) {
    // Missing: nothing there to read; if the command creates it, it is the command's own data.
    const real = realpathOrUndefined(denied);
    if (real === undefined) continue;
    const stat = observedFs.stat(real);
    // Gone since its realpath was taken: nothing there to read, as when it was missing.
    if (stat === undefined) continue;
    (stat.isDirectory() ? plan.maskedDirs : plan.maskedFiles).push(real);
  }
  // Inside a read-only carve-out or a hidden directory nothing can be created or renamed anyway; a
  // placeholder there would only put a directory into, say, the user's `.git`, and a pin there
  // would make part of it writable again.
  const covered = [...plan.readOnly, ...plan.maskedDirs];
  const uncovered = (p: string) => !covered.some((dir) => isPathWithin(p, dir));
  plan.stubs = plan.stubs.filter(uncovered);
  plan.pinned = plan.pinned.filter(uncovered).sort();
  return plan;
}

function realpathOrUndefined(p: string): string | undefined {
  try {
    return observedFs.realpath(p);
  } catch {
    return undefined;
  }
}

function addOnce(list: string[], p: string): void {
  if (!list.includes(p)) list.push(p);
}
