import fs from "node:fs/promises";
import path from "node:path";
import { canonicalizeLoose, lstatOrUndefined } from "./paths.js";

/**
 * Names that stay read-only inside every writable root when present: git metadata (hooks run
 * code on the next commit), agent configuration (`.codex/config.toml` could switch the sandbox
 * off) and shellgate's own policy directory.
 */
export const PROTECTED_METADATA_NAMES: readonly string[] = Object.freeze([".git", ".codex", ".shellgate", ".agents"]);

/**
 * Names protected inside the working-directory root even when they do not exist yet, so the
 * first creation of an agent configuration cannot happen from inside the sandbox.
 */
export const PROTECTED_WHEN_MISSING_IN_CWD: readonly string[] = Object.freeze([".codex", ".shellgate"]);

/** The `gitdir:` target of a `.git` file, resolved against the file's directory; undefined when there is none. */
export async function readGitdirPointer(gitFile: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await fs.readFile(gitFile, "utf8");
  } catch {
    // An unreadable pointer protects only itself; its target cannot be known.
    return undefined;
  }
  const line = text.split(/\r?\n/).find((l) => /^gitdir:/i.test(l.trim()));
  const target = line?.trim().slice("gitdir:".length).trim();
  if (!target) return undefined;
  return path.resolve(path.dirname(gitFile), target);
}

/**
 * A linked worktree's gitdir names the shared repository in a `commondir` file; the hooks live
 * there, so it is protected too.
 */
async function readCommondir(gitdir: string): Promise<string | undefined> {
  try {
    const text = (await fs.readFile(path.join(gitdir, "commondir"), "utf8")).trim();
    return text ? path.resolve(gitdir, text) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every path that must stay read-only because of what sits directly inside `root`.
 * The in-root path is always listed as written (so a symlink cannot be swapped for another);
 * symlink targets, `gitdir:` targets and worktree common dirs are added canonicalised, and may
 * lie outside `root` — the caller assigns them to whichever writable roots contain them.
 */
export async function metadataCarveOuts(root: string, isCwd: boolean): Promise<string[]> {
  const found: string[] = [];
  for (const name of PROTECTED_METADATA_NAMES) {
    const candidate = path.join(root, name);
    let stat;
    try {
      stat = await lstatOrUndefined(candidate);
    } catch {
      // Cannot tell whether it exists (EACCES, ELOOP...): protecting a phantom path costs nothing.
      found.push(candidate);
      continue;
    }
    if (!stat) {
      if (isCwd && PROTECTED_WHEN_MISSING_IN_CWD.includes(name)) found.push(candidate);
      continue;
    }
    found.push(candidate);
    const resolved = stat.isSymbolicLink() ? await canonicalizeLoose(candidate) : candidate;
    if (resolved !== candidate) found.push(resolved);
    if (name !== ".git") continue;
    const isFile = await fs.stat(resolved).then((s) => s.isFile(), () => false);
    if (!isFile) continue;
    const gitdir = await readGitdirPointer(resolved);
    if (!gitdir) continue;
    const realGitdir = await canonicalizeLoose(gitdir);
    found.push(realGitdir);
    const common = await readCommondir(realGitdir);
    if (common) found.push(await canonicalizeLoose(common));
  }
  return found;
}
