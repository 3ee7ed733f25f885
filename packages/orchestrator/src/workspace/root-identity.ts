import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { parseSandboxPolicy, type SandboxPolicy } from "@shellgate/sandbox";
import { WritableRootChangedError } from "../errors.js";

/** A directory as it was when the session started: device + inode of its real path. */
export interface DirectoryIdentity {
  readonly realPath: string;
  readonly dev: number;
  readonly ino: number;
}

/**
 * One writable root of the session, held by identity: the name it was configured with and what that
 * name resolved to when the session started (`undefined` when nothing was there).
 */
export interface WritableRootIdentity {
  /** Where it came from: `sandboxPolicy.writableRoots.N`, or `TMPDIR` for the commands' temp dir. */
  readonly field: string;
  /** The path as configured (or as `TMPDIR` names it). */
  readonly path: string;
  readonly recorded: DirectoryIdentity | undefined;
}

/** The real path and device + inode `p` resolves to now, or undefined when it does not resolve to a directory. */
export function currentIdentity(p: string): DirectoryIdentity | undefined {
  try {
    const realPath = realpathSync.native(p);
    const info = statSync(realPath);
    return info.isDirectory() ? { realPath, dev: info.dev, ino: info.ino } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolve a `workspace-write` policy's writable roots once: each root becomes its real path (the
 * sandbox is never handed a name a command could re-point), and each is recorded by identity along
 * with `$TMPDIR` of the commands' environment when the policy makes it a root. Other modes have no
 * roots and pass through. A root that does not exist yet is recorded as absent and left as written:
 * the sandbox refuses it, and if something appears under that name later the session refuses to run.
 */
export function holdWritableRoots(
  policy: SandboxPolicy,
  commandEnv: Readonly<Record<string, string | undefined>>,
): { policy: SandboxPolicy; roots: WritableRootIdentity[] } {
  if (policy.mode !== "workspace-write") return { policy, roots: [] };
  const roots: WritableRootIdentity[] = policy.writableRoots.map((p, i) => ({
    field: `sandboxPolicy.writableRoots.${i}`,
    path: p,
    recorded: currentIdentity(p),
  }));
  const tmpdir = commandEnv["TMPDIR"];
  if (!policy.excludeTmpdirEnvVar && tmpdir && path.isAbsolute(tmpdir)) {
    roots.push({ field: "TMPDIR", path: tmpdir, recorded: currentIdentity(tmpdir) });
  }
  const resolved = policy.writableRoots.map((p, i) => roots[i]?.recorded?.realPath ?? p);
  const same = resolved.every((p, i) => p === policy.writableRoots[i]);
  return { policy: same ? policy : parseSandboxPolicy({ ...policy, writableRoots: resolved }), roots };
}

/**
 * Check that every held root still is the directory it was: its configured name resolves to the same
 * real path, with the same device and inode (and a name that was absent still is). A name re-pointed
 * by a command (a symlink swapped, a directory renamed away and replaced) would otherwise hand the
 * next command whatever now sits there as a writable root.
 * @throws WritableRootChangedError naming the root, its recorded and its current identity.
 */
export function verifyWritableRoots(roots: readonly WritableRootIdentity[]): void {
  for (const root of roots) {
    const now = currentIdentity(root.path);
    const was = root.recorded;
    if (was === undefined ? now === undefined : now !== undefined && now.realPath === was.realPath && now.dev === was.dev && now.ino === was.ino) continue;
    throw new WritableRootChangedError(root, now);
  }
}
