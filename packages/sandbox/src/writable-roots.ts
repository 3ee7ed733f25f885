import fs from "node:fs/promises";
import path from "node:path";
import { InvalidSandboxPathError, InvalidSandboxPolicyError } from "./errors.js";
import { SandboxPolicySchema, type SandboxPolicy } from "./policy.js";
import { metadataCarveOuts } from "./carve-outs.js";
import { firstZodIssue } from "./zod-issues.js";
import { canonicalizeLoose, isPathWithin, outermostPaths, realDirectoryOrUndefined } from "./paths.js";

/** A directory the sandboxed command may write to, minus the subpaths that stay read-only. */
export interface WritableRoot {
  /** Canonical absolute path (symlinks resolved). */
  root: string;
  /** Canonical absolute paths inside `root` that must stay read-only; sorted, none nested in another. */
  readOnlySubpaths: string[];
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

/** Canonicalise a root the caller insists on: it must be an existing absolute directory. */
async function requireDirectory(field: string, p: unknown): Promise<string> {
  if (typeof p !== "string" || p.length === 0) {
    throw new InvalidSandboxPathError(field, String(p), "must be a non-empty absolute path");
  }
  if (!path.isAbsolute(p)) throw new InvalidSandboxPathError(field, p, "must be an absolute path");
  let real: string;
  try {
    real = await fs.realpath(p);
  } catch {
    throw new InvalidSandboxPathError(field, p, "does not exist");
  }
  const stat = await fs.stat(real);
  if (!stat.isDirectory()) throw new InvalidSandboxPathError(field, p, "is not a directory");
  return real;
}

/** Candidate roots in priority order; the cwd is first so it is recognisable for carve-outs. */
async function candidateRoots(
  policy: Extract<SandboxPolicy, { mode: "workspace-write" }>,
  options: WritableRootsOptions,
): Promise<{ cwd: string; roots: string[] }> {
  const cwd = await requireDirectory("cwd", options.cwd);
  const roots = [cwd];
  for (const [i, root] of policy.writableRoots.entries()) {
    roots.push(await requireDirectory(`writableRoots.${i}`, root));
  }
  // TMPDIR and /tmp are ambient, not configuration: when unusable they are left out (a narrower
  // sandbox), never an error that would make every command fail on an odd machine.
  const tmpdir = options.env["TMPDIR"];
  if (!policy.excludeTmpdirEnvVar && tmpdir && path.isAbsolute(tmpdir)) {
    const real = await realDirectoryOrUndefined(tmpdir);
    if (real) roots.push(real);
  }
  if (!policy.excludeSlashTmp && (options.platform ?? process.platform) !== "win32") {
    const real = await realDirectoryOrUndefined("/tmp");
    if (real) roots.push(real);
  }
  return { cwd, roots };
}

/**
 * The directories a `workspace-write` command may write to, each with its read-only carve-outs.
 *
 * Roots: the cwd, the configured `writableRoots`, `$TMPDIR` (from `options.env`, unless
 * `excludeTmpdirEnvVar`) and `/tmp` (unless `excludeSlashTmp`; only if it is a directory),
 * canonicalised with `realpath`. A root equal to or nested inside another is folded into the
 * outer one; the carve-outs it contributes are kept. Carve-outs: `.git` (and the `gitdir:` a `.git`
 * file points to), `.codex`, `.shellgate`, `.agents` when present; `.codex` and `.shellgate` in
 * the cwd even when missing; every `protectedPaths` entry that lies inside a root. A carve-out
 * always wins over a root nested inside it.
 *
 * `read-only`, `danger-full-access` and `external-sandbox` have no writable roots and yield `[]`
 * (for `danger-full-access` and `external-sandbox` nothing is enforced at all).
 *
 * @throws InvalidSandboxPathError for a relative, missing or non-directory root or cwd, or a relative protected path (the field is named, e.g. `writableRoots.1`).
 * @throws InvalidSandboxPolicyError when the policy object itself is malformed.
 */
export async function computeWritableRoots(
  policy: SandboxPolicy,
  options: WritableRootsOptions,
): Promise<WritableRoot[]> {
  const valid = validatePolicy(policy);
  if (valid.mode !== "workspace-write") return [];
  const protectedPaths = await Promise.all(
    (options.protectedPaths ?? []).map(async (p, i) => {
      if (typeof p !== "string" || !path.isAbsolute(p)) {
        throw new InvalidSandboxPathError(`protectedPaths.${i}`, String(p), "must be an absolute path");
      }
      // Both the target and the name it was loaded through: a symlinked policy directory must
      // not be re-pointed at other rules for the next load.
      const asNamed = path.join(await canonicalizeLoose(path.dirname(p)), path.basename(p));
      return [asNamed, await canonicalizeLoose(p)];
    }),
  );
  const { cwd, roots } = await candidateRoots(valid, options);
  const unique = [...new Set(roots)];
  const carveOuts = new Set<string>(protectedPaths.flat());
  const found = await Promise.all(unique.map((root) => metadataCarveOuts(root, root === cwd)));
  for (const p of found.flat()) carveOuts.add(p);
  const outer = outermostPaths(unique);
  // Keep the order in which roots were configured (cwd first), an outer root taking the place of
  // the first root it absorbed.
  const position = (r: string) => unique.findIndex((u) => isPathWithin(u, r));
  outer.sort((a, b) => position(a) - position(b));
  return outer.map((root) => ({
    root,
    readOnlySubpaths: outermostPaths([...carveOuts].filter((p) => isPathWithin(p, root))),
  }));
}
