import path from "node:path";
import { SandboxNotRegularFileError } from "./errors.js";
import { lstatOrUndefined, readRegularFileSync, traceSymlinks } from "./paths.js";

/**
 * Names held read-only inside every writable root, whether they exist or not: git metadata (hooks
 * and `core.fsmonitor` run code on the next `git status`), agent configuration (`.codex/config.toml`
 * could switch the sandbox off) and shellgate's own policy directory. A missing one is held too:
 * `git init` in a package directory would otherwise give the host's next `git status` a config
 * the command wrote.
 */
export const PROTECTED_METADATA_NAMES: readonly string[] = Object.freeze([".git", ".codex", ".shellgate", ".agents"]);

/** The text after `gitdir:` in a `.git` file, as written; undefined when there is none or it cannot be read. */
function gitdirText(gitFile: string): string | undefined {
  let text: string;
  try {
    // Not following a link: the caller found a file here, and what is read must be that file.
    text = readRegularFileSync(gitFile, { followLinks: false });
  } catch (error) {
    // Anything but a regular file is refused, never read: a FIFO swapped in would block the host.
    if (error instanceof SandboxNotRegularFileError) throw error;
    // An unreadable pointer protects only itself; its target cannot be known.
    return undefined;
  }
  const line = text.split(/\r?\n/).find((l) => /^gitdir:/i.test(l.trim()));
  const target = line?.trim().slice("gitdir:".length).trim();
  return target || undefined;
}

/**
 * The `gitdir:` target of a `.git` file, resolved against the file's directory; undefined when there is none.
 * @throws SandboxNotRegularFileError when `.git` is a FIFO, socket, device or symbolic link (nothing is read from it).
 */
export async function readGitdirPointer(gitFile: string): Promise<string | undefined> {
  const target = gitdirText(gitFile);
  return target === undefined ? undefined : path.resolve(path.dirname(gitFile), target);
}

/** `rel` below `base` without normalising `..` away, so it is resolved physically later. */
function joinAsWritten(base: string, rel: string): string {
  return path.isAbsolute(rel) ? rel : `${base}${path.sep}${rel}`;
}

/**
 * Every protected path that follows from what sits directly inside `root`, as written (not
 * canonicalised; the caller traces each one for symlinks): each of `PROTECTED_METADATA_NAMES`,
 * present or not; for a `.git` file, the directory its `gitdir:` line names and, for a linked
 * worktree, the shared repository its `commondir` names (the hooks live there). Those may lie
 * outside `root`: the caller assigns them to whichever writable roots contain them.
 */
export function metadataCarveOuts(root: string): string[] {
  const found = PROTECTED_METADATA_NAMES.map((name) => path.join(root, name));
  const gitFile = path.join(root, ".git");
  // Synchronous, like the lookups of paths.ts (see there): a handful of local paths per run.
  if (!lstatOrUndefined(gitFile)?.isFile()) return found;
  const target = gitdirText(gitFile);
  if (target === undefined) return found;
  const gitdir = joinAsWritten(root, target);
  found.push(gitdir);
  const realGitdir = traceSymlinks(gitdir).real;
  let common = "";
  try {
    common = readRegularFileSync(path.join(realGitdir, "commondir")).trim();
  } catch (error) {
    // no shared repository named: an ordinary linked gitdir. Anything but a regular file there is
    // refused: git itself would block on a FIFO, and what it names could not be known.
    if (error instanceof SandboxNotRegularFileError) throw error;
  }
  if (common) found.push(joinAsWritten(realGitdir, common));
  return found;
}
