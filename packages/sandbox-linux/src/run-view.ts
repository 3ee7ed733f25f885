import {
  computeWritableRoots,
  InvalidSandboxPathError,
  type CommandSpec,
  type SandboxPolicy,
  type TransformOptions,
  type WritableRoot,
  isPathWithin,
  observedFs,
} from "@shellgate/sandbox";
import { planMounts, type MountPlan } from "./mount-plan.js";

/**
 * The writable roots of one run, with every protected path held: the caller's, the backend's own
 * (probe cache) and the helper's directory, whose binary a command must never replace. Shared by a
 * real run and a plan, so that both see the same roots.
 */
export function runRoots(
  spec: CommandSpec,
  policy: SandboxPolicy,
  opts: TransformOptions,
  backendProtected: readonly string[],
): Promise<WritableRoot[]> {
  return computeWritableRoots(policy, {
    cwd: opts.sandboxPolicyCwd,
    env: spec.env,
    protectedPaths: [...(opts.protectedPaths ?? []), ...backendProtected],
  });
}

/**
 * The bubblewrap view of one run (see `planMounts`), refusing a cwd that a denied-read path would
 * hide. The cwd is compared as the kernel resolves it.
 * @throws InvalidSandboxPathError (field `cwd`).
 */
export async function bwrapView(roots: readonly WritableRoot[], spec: CommandSpec, deniedReadPaths: readonly string[], opts: TransformOptions, helperDir: string): Promise<MountPlan> {
  const mounts = await planMounts(roots, deniedReadPaths, [spec.cwd, opts.sandboxPolicyCwd, helperDir]);
  // A plan may be made for a cwd that does not exist here; it is then compared as written.
  // Synchronous, like the plan's own lookups (see mount-plan.ts).
  let realCwd = spec.cwd;
  try {
    realCwd = observedFs.realpath(spec.cwd);
  } catch {
    // missing here: compared as written
  }
  const hiding = mounts.maskedDirs.find((d) => isPathWithin(realCwd, d));
  if (hiding) throw new InvalidSandboxPathError("cwd", spec.cwd, `lies inside the denied-read path ${hiding}`);
  return mounts;
}
