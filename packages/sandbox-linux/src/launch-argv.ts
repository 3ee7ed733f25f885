import { isPathWithin, type DenialSignals, type NetworkMode } from "@shellgate/sandbox";
import { bwrapArgs } from "./bwrap-args.js";
import type { MountPlan } from "./mount-plan.js";
import { helperNetworkArgs, proxyBwrapArgs, type ProxyRoutePlan } from "./proxy-route.js";
import { placeholderArgs } from "./placeholders.js";

/** What the Linux backend says of its runs' refusals (see `DenialSignals`). */
export const LINUX_DENIAL_SIGNALS: Readonly<Record<"bwrap" | "landlock", DenialSignals>> = Object.freeze({
  // Both layers kill with SIGSYS through the seccomp filter: 159 is how a shell reports it.
  /** bubblewrap's read-only mounts answer EROFS, and a protected name held by a mount point EBUSY. */
  bwrap: Object.freeze({ exitCodes: [128 + 31], signals: ["SIGSYS"], refusalErrnos: ["EROFS", "EBUSY"] as const }),
  /** Landlock answers a refused write with EACCES. */
  landlock: Object.freeze({ exitCodes: [128 + 31], signals: ["SIGSYS"], refusalErrnos: ["EROFS", "EACCES"] as const }),
});

/** The helper's own part of the argv: network mode, terminal, loader variables, limits. */
interface HelperArgsInput {
  helperPath: string;
  networkMode: NetworkMode;
  /** The sockets and relays of a proxy-routed run (`networkMode: "proxy"`). */
  proxy?: ProxyRoutePlan;
  /** The run has a PTY made for it alone: the command becomes its foreground process group. */
  dedicatedTerminal: boolean;
  /** `--setenv NAME=VALUE` pairs for loader variables, set by the helper after confinement. */
  deferredEnv: readonly string[];
  /** `--nproc N` when `RLIMIT_NPROC` enforces the process limit. */
  limitArgs: readonly string[];
  /** Where the command may make FIFOs, sockets and device nodes (see `specialFileArgs`). */
  specialFileArgs: readonly string[];
}

function helperArgs(input: HelperArgsInput): string[] {
  return [
    input.helperPath,
    ...helperNetworkArgs(input.networkMode, input.proxy),
    ...(input.dedicatedTerminal ? ["--foreground"] : []),
    ...input.specialFileArgs,
    ...input.deferredEnv,
    ...input.limitArgs,
  ];
}

/** Everything the bubblewrap layer's argv is made of. */
export interface BwrapLaunchInput extends HelperArgsInput {
  bwrapPath: string;
  mounts: MountPlan;
  procMount: boolean;
  cwd: string;
  privateTmpSizeBytes: number;
  /** A pids cgroup made for this run: the helper joins it on the host, then execs bubblewrap. */
  cgroupDir?: string;
  /** Where the placeholders' lock files are (see `placeholders.ts`); hidden inside the sandbox. */
  placeholderLockDir: string;
  /**
   * The placeholders the launching helper makes and removes itself (default: all of the mount
   * plan's). Those a session holder keeps exist already and are never removed by a run, so a run
   * leaves them out: the helper then need not wait for the sandbox's teardown to release them.
   */
  ownStubs?: readonly string[];
}

/**
 * The lock directory under an empty read-only tmpfs, unless the sandbox cannot see it anyway: inside
 * a denied-read directory (already an empty tmpfs, where no mount point could be made) or in `/tmp`
 * when the sandbox has a private one.
 */
function hideLockDir(mounts: MountPlan, lockDir: string): string[] {
  if (mounts.maskedDirs.some((d) => isPathWithin(lockDir, d)) || (mounts.privateTmp && isPathWithin(lockDir, "/tmp"))) return [];
  return ["--tmpfs", lockDir, "--remount-ro", lockDir];
}

/**
 * The argv of a bubblewrap run: `[helper [--cgroup DIR] [--placeholder LOCK DIR]... --exec-only --]
 * bwrap ARGS -- helper ARGS -- CMD`. With a cgroup the helper starts first, so that bubblewrap and
 * everything below it are counted from the first fork; with placeholders it makes them under their
 * locks, which bubblewrap inherits, runs bubblewrap as its child, and removes them when it has ended.
 */
export function bwrapLaunchArgv(input: BwrapLaunchInput & { argv: readonly string[] }): string[] {
  return [...bwrapSandboxArgv(input), "--", ...input.argv];
}

/**
 * Both forms of a bubblewrap run, built from one sandbox part so that they differ only in their
 * tail: `-- CMD...` in `argv`, `--command-fd FD` (the command comes later, on that descriptor,
 * which every process in between passes on) in `deferredArgv`.
 */
export function bwrapLaunchArgvs(input: BwrapLaunchInput & { argv: readonly string[]; commandFd: number }): { argv: string[]; deferredArgv: string[] } {
  const sandbox = bwrapSandboxArgv(input);
  return { argv: [...sandbox, "--", ...input.argv], deferredArgv: [...sandbox, "--command-fd", String(input.commandFd)] };
}

/** Everything of a bubblewrap run but the helper's tail (its command). */
function bwrapSandboxArgv(input: BwrapLaunchInput): string[] {
  const stubs = placeholderArgs(input.placeholderLockDir, input.ownStubs ?? input.mounts.stubs);
  const cgroup = input.cgroupDir ? ["--cgroup", input.cgroupDir] : [];
  const outer = cgroup.length > 0 || stubs.length > 0 ? [input.helperPath, ...cgroup, ...stubs, "--exec-only", "--"] : [];
  const args = bwrapArgs(input.mounts, {
    network: input.networkMode === "full",
    procMount: input.procMount,
    cwd: input.cwd,
    privateTmpSizeBytes: input.privateTmpSizeBytes,
    dedicatedTerminal: input.dedicatedTerminal,
    extraMounts: [...hideLockDir(input.mounts, input.placeholderLockDir), ...(input.proxy ? proxyBwrapArgs(input.proxy) : [])],
  });
  return [...outer, input.bwrapPath, ...args, "--", ...helperArgs(input)];
}

/** Everything the Landlock layer's argv is made of. */
export interface LandlockLaunchInput extends HelperArgsInput {
  writableRoots: readonly string[];
  cgroupDir?: string;
  argv: readonly string[];
}

/** The argv of a Landlock run: the helper alone restricts itself, then reaps the command. */
export function landlockLaunchArgv(input: LandlockLaunchInput): string[] {
  const [helper, ...rest] = helperArgs(input);
  const join = input.cgroupDir ? ["--cgroup", input.cgroupDir] : [];
  const rw = input.writableRoots.flatMap((r) => ["--rw", r]);
  return [helper as string, ...join, ...rest, "--landlock", ...rw, "--reap", "--", ...input.argv];
}
