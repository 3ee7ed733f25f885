import path from "node:path";
import { InvalidSandboxPathError, InvalidSandboxPolicyError, UnpinnableProtectedPathError, type GitConfigOrigin } from "./errors.js";
import { SandboxPolicySchema, type SandboxPolicy } from "./policy.js";
import { metadataCarveOuts } from "./carve-outs.js";
import { gitCarveOuts } from "./git-carve-outs.js";
import { toolHomeCarveOuts } from "./tool-homes.js";
import { firstZodIssue } from "./zod-issues.js";
import { observedFs } from "./observed-fs.js";
import { isPathWithin, outermostPaths, realDirectoryOrUndefined, traceSymlinks, type LstatCache } from "./paths.js";

/** A directory the sandboxed command may write to, minus the subpaths that stay read-only. */
export interface WritableRoot {
  /** Canonical absolute path (symlinks resolved). */
  root: string;
  /**
   * Canonical absolute paths inside `root` that must stay read-only; sorted, none nested in another.
   * `[root]` when a protected path contains the root itself (the root is then fully read-only).
   */
  readOnlySubpaths: string[];
  /**
   * Directories strictly between this root and a read-only subpath or a writable root nested in it
   * (this root being the innermost one that contains them); sorted. They stay writable, but must not
   * be renamed or removed during the run: renaming `.config` would swap `.config/shellgate/rules`
   * for a copy the command wrote, renaming the directory that holds a nested workspace would let a
   * symlink take the workspace's name. Some may not exist yet (below the first missing component of
   * a protected path); nothing can be created there while that component is held.
   */
  pinnedAncestors: string[];
}

/** What `computeWritableRoots` needs besides the policy. */
export interface WritableRootsOptions {
  /** The workspace: the policy's cwd. Must be an existing absolute directory. */
  cwd: string;
  /** The environment the command will see; only `TMPDIR` is read. `process.env` is accepted. */
  env: Readonly<Record<string, string | undefined>>;
  /** Extra paths to keep read-only wherever they fall inside a root, e.g. directories of loaded policy files. */
  protectedPaths?: readonly string[];
  /** Platform whose conventions apply (`/tmp` is not considered on win32); defaults to `process.platform`. */
  platform?: NodeJS.Platform;
  /**
   * The host's environment, where the user's own tools find their homes (`HOME`, `CARGO_HOME`,
   * `GOPATH`, …; see `TOOL_HOMES`) and the person's git its config (`HOME`, `XDG_CONFIG_HOME`,
   * `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_SYSTEM`, `GIT_CONFIG_NOSYSTEM`); defaults to `process.env`. Not
   * the command's environment, which may point the tools elsewhere.
   */
  hostEnv?: Readonly<Record<string, string | undefined>>;
}

/** Re-validate a policy that may not have come through `parseSandboxPolicy`, reporting bad paths as path errors. */
function validatePolicy(policy: unknown): SandboxPolicy {
  const result = SandboxPolicySchema.safeParse(policy);
  if (result.success) return result.data;
  const { field, message, path: where } = firstZodIssue(result.error, "(policy)");
  if (where.length === 2) {
    const [list, index] = where;
    const value = (policy as Record<string, unknown>)[String(list)];
    const entry = Array.isArray(value) ? (value as unknown[])[Number(index)] : undefined;
    if ((list === "writableRoots" || list === "deniedReadPaths") && typeof entry === "string") {
      throw new InvalidSandboxPathError(field, entry, message);
    }
  }
  throw new InvalidSandboxPolicyError(field, message, { cause: result.error });
}

/** Canonicalise a root the caller insists on: it must be an existing absolute directory (synchronous: see paths.ts). */
function requireDirectory(field: string, p: unknown): string {
  if (typeof p !== "string" || p.length === 0) {
    throw new InvalidSandboxPathError(field, String(p), "must be a non-empty absolute path");
  }
  if (!path.isAbsolute(p)) throw new InvalidSandboxPathError(field, p, "must be an absolute path");
  let real: string;
  try {
    real = observedFs.realpath(p);
  } catch {
    throw new InvalidSandboxPathError(field, p, "does not exist");
  }
  const stat = observedFs.stat(real);
  if (!stat?.isDirectory()) throw new InvalidSandboxPathError(field, p, "is not a directory");
  return real;
}

/** Candidate roots in priority order, the cwd first. */
function candidateRoots(
  policy: Extract<SandboxPolicy, { mode: "workspace-write" }>,
  options: WritableRootsOptions,
): { cwd: string; roots: string[] } {
  const cwd = requireDirectory("cwd", options.cwd);
  const roots = [cwd];
  for (const [i, root] of policy.writableRoots.entries()) {
    roots.push(requireDirectory(`writableRoots.${i}`, root));
  }
  // TMPDIR and /tmp are ambient, not configuration: when unusable they are left out (a narrower
  // sandbox), never an error that would make every command fail on an odd machine.
  const tmpdir = options.env["TMPDIR"];
  if (!policy.excludeTmpdirEnvVar && tmpdir && path.isAbsolute(tmpdir)) {
    const real = realDirectoryOrUndefined(tmpdir);
    if (real) roots.push(real);
  }
  if (!policy.excludeSlashTmp && (options.platform ?? process.platform) !== "win32") {
    const real = realDirectoryOrUndefined("/tmp");
    if (real) roots.push(real);
  }
  return { cwd, roots };
}

/** Refuse `given` when a symlink on its way sits in a directory the sandboxed command can write. */
function checkLinks(
  given: string,
  links: readonly string[],
  isWritableDir: (dir: string) => boolean,
  origin?: GitConfigOrigin,
): void {
  for (const link of links) {
    const dir = path.dirname(link);
    if (isWritableDir(dir)) throw new UnpinnableProtectedPathError(given, link, dir, origin);
  }
}

/**
 * The directories a `workspace-write` command may write to, each with its read-only carve-outs and
 * the directories that must not be renamed.
 *
 * Roots: the cwd, the configured `writableRoots`, `$TMPDIR` (from `options.env`, unless
 * `excludeTmpdirEnvVar`) and `/tmp` (unless `excludeSlashTmp`; only if it is a directory),
 * canonicalised with `realpath` and de-duplicated. A root nested inside another stays a root of
 * its own (a backend makes each root its own mount, which cannot be renamed away). Carve-outs:
 * `.git`, `.codex`, `.shellgate`, `.agents` in every root, present or not; the `gitdir:` (and a
 * worktree's `commondir`) a `.git` file points to; every `protectedPaths` entry; the parts of a
 * tool home that the host later runs (`TOOL_HOMES`: `~/.cargo/bin`, `~/.local/lib`, `~/.npm/_npx`,
 * shell rc files…) when a root is, contains or lies inside that home. Each is traced
 * through its symlinks; a carve-out always wins over a root nested inside it.
 *
 * `read-only`, `danger-full-access` and `external-sandbox` have no writable roots and yield `[]`
 * (for `danger-full-access` and `external-sandbox` nothing is enforced at all).
 *
 * @throws InvalidSandboxPathError for a relative, missing or non-directory root or cwd, or a relative protected path (the field is named, e.g. `writableRoots.1`).
 * @throws InvalidSandboxPolicyError when the policy object itself is malformed.
 * @throws UnpinnableProtectedPathError when a protected path is, or is reached through, a symlink in a writable directory.
 * @throws SandboxNotRegularFileError when a `.git` file's `gitdir:` target holds a `commondir` that is no regular file (a FIFO would block the read).
 */
export async function computeWritableRoots(
  policy: SandboxPolicy,
  options: WritableRootsOptions,
): Promise<WritableRoot[]> {
  const valid = validatePolicy(policy);
  if (valid.mode !== "workspace-write") return [];
  const given = (options.protectedPaths ?? []).map((p, i) => {
    if (typeof p !== "string" || !path.isAbsolute(p)) {
      throw new InvalidSandboxPathError(`protectedPaths.${i}`, String(p), "must be an absolute path");
    }
    return p;
  });
  const { roots } = candidateRoots(valid, options);
  const unique = [...new Set(roots)];
  const cache: LstatCache = new Map();
  const toolHomes = toolHomeCarveOuts(unique, options.hostEnv ?? process.env, options.platform ?? process.platform, cache);
  const named = [...given, ...unique.flatMap((root) => metadataCarveOuts(root)), ...toolHomes];
  const tracedNamed = named.map((p) => ({ given: p, origin: undefined as GitConfigOrigin | undefined, ...traceSymlinks(p, cache) }));
  const namedCarveOuts = outermostPaths(tracedNamed.map((t) => t.real));
  const writableBeforeGit = (dir: string) =>
    unique.some((r) => isPathWithin(dir, r)) && !namedCarveOuts.some((c) => isPathWithin(dir, c));
  // What git would run or read for these repositories is held like `.git` itself. Read with the
  // named carve-outs alone in place: they are what holds `.git` while its config is read.
  const git = gitCarveOuts(unique, { isWritableDir: writableBeforeGit, env: options.hostEnv ?? process.env, cache });
  const traced = [...tracedNamed, ...git.map((t) => ({ given: t.path, origin: t.origin, ...traceSymlinks(t.path, cache) }))];
  const carveOuts = outermostPaths(traced.map((t) => t.real));
  // By the path's ancestors rather than by every carve-out: a broad root holds dozens of them.
  const carveSet = new Set(carveOuts);
  const isReadOnly = (p: string) => {
    for (let dir = p; ; dir = path.dirname(dir)) {
      if (carveSet.has(dir)) return true;
      if (path.dirname(dir) === dir) return false;
    }
  };
  const isWritableDir = (dir: string) => unique.some((r) => isPathWithin(dir, r)) && !isReadOnly(dir);
  for (const t of traced) checkLinks(t.given, t.links, isWritableDir, t.origin);

  /** The innermost root that contains `p` and is not `p` itself. */
  const enclosingRoot = (p: string) =>
    unique.filter((r) => r !== p && isPathWithin(p, r)).sort((a, b) => b.length - a.length)[0];
  const pinned = new Map<string, Set<string>>(unique.map((r) => [r, new Set<string>()]));
  for (const target of [...carveOuts, ...unique]) {
    const outer = enclosingRoot(target);
    if (!outer) continue;
    for (let dir = path.dirname(target); dir !== outer && isPathWithin(dir, outer); dir = path.dirname(dir)) {
      if (!isReadOnly(dir) && !unique.includes(dir)) pinned.get(outer)?.add(dir);
    }
  }
  return unique.map((root) => ({
    root,
    readOnlySubpaths: isReadOnly(root) ? [root] : carveOuts.filter((p) => isPathWithin(p, root)),
    pinnedAncestors: [...(pinned.get(root) ?? [])].sort(),
  }));
}
