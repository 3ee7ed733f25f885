// Test support: temp layouts on the real filesystem (computeWritableRoots reads it), the kernel's
// view of a path as Seatbelt would get it on macOS, and the conformance kit's cases as evaluator
// queries against the argv the backend plans.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CONFORMANCE_CASES, type ConformanceFeature } from "@shellgate/sandbox/conformance";
import type { NetworkProxyRoute, SandboxPolicy } from "@shellgate/sandbox";
import { createSeatbeltSandboxBackend } from "../src/index.js";
import { toDarwinCanonicalPath } from "../src/testing.js";
import { compileArgv, compileProfile, type CompiledProfile, type Query } from "./sbpl/evaluator.js";

/**
 * The path the kernel hands Seatbelt for `p`: `..` and symlinks resolved (as far as the path
 * exists; the rest as written), then `/tmp`, `/var`, `/etc` under `/private` as on macOS.
 */
export function kernelPath(p: string): string {
  const rest: string[] = [];
  let dir = path.resolve(p);
  for (;;) {
    try {
      return toDarwinCanonicalPath(path.join(fs.realpathSync(dir), ...rest));
    } catch {
      rest.unshift(path.basename(dir));
      dir = path.dirname(dir);
    }
  }
}

/** The directories one shape works against, all real. */
export interface Layout {
  base: string;
  /** The workspace: the policy cwd; has `.git/hooks/`. */
  workspace: string;
  /** Outside every writable root unless a shape makes it one; `readable.txt`, `denied.txt`. */
  outside: string;
  deniedFile: string;
  /** Another directory a shape may add as a writable root. */
  extra: string;
  /** A TCP port the host listens on, on loopback (the kit's layout has a real one). */
  tcpPort?: number;
  /** A unix socket the host listens on (the kit's layout has a real one). */
  unixSocket?: string;
}

/** The host's loopback listener a layout without one is queried with: not a proxy port of any test. */
export const HOST_TCP_PORT = 45_678;

/** A fresh layout under the OS temp dir; `workspaceName` lets a shape use spaces, quotes, non-ASCII. */
export function makeLayout(workspaceName = "workspace"): Layout {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-seatbelt-")));
  const workspace = path.join(base, workspaceName);
  fs.mkdirSync(path.join(workspace, ".git", "hooks"), { recursive: true });
  fs.writeFileSync(path.join(workspace, ".git", "HEAD"), "ref: refs/heads/main\n");
  const outside = path.join(base, "outside");
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, "readable.txt"), "readable");
  const deniedFile = path.join(outside, "denied.txt");
  fs.writeFileSync(deniedFile, "secret");
  const extra = path.join(base, "extra");
  fs.mkdirSync(extra);
  return { base, workspace, outside, deniedFile, extra };
}

export function removeLayout(layout: Layout): void {
  fs.rmSync(layout.base, { recursive: true, force: true });
}

/** The environment plans are made with: no TMPDIR, so only what a shape names is writable. */
export const PLAN_ENV = { PATH: "/usr/bin:/bin" };

/** The profile the backend plans for `policy`, read by the evaluator, and its raw parts. */
export async function plannedProfile(
  policy: SandboxPolicy,
  cwd: string,
  protectedPaths: readonly string[] = [],
  networkProxy?: NetworkProxyRoute,
): Promise<{ profile: CompiledProfile; params: Record<string, string>; text: string; argv: readonly string[] }> {
  const plan = await createSeatbeltSandboxBackend().plan(
    { argv: [process.execPath, "-e", "0"], cwd, env: PLAN_ENV },
    policy,
    { sandboxPolicyCwd: cwd, protectedPaths, ...(networkProxy ? { networkProxy } : {}) },
  );
  const { profile, params } = compileArgv(plan.argv);
  return { profile, params, text: plan.argv[2] as string, argv: plan.argv };
}

/** Full access, as the control of every blocked query: the query itself is not impossible. */
export const FULL_ACCESS: CompiledProfile = compileProfile("(version 1)\n(allow default)\n");

/** One step of a case: the operation and what it is done on. */
export type Step = Query;

const create = (p: string): Step[] => [{ operation: "file-write-create", path: kernelPath(p) }, { operation: "file-write-data", path: kernelPath(p) }];

/**
 * What each conformance case does, as the operations Seatbelt would be asked about, in order (the
 * first refused one stops it). File steps name kernel paths: the symlink case makes its link on
 * the real filesystem first, so that the write through it resolves as the kernel resolves it. A
 * rename is an unlink of the source and a create of the destination.
 */
export const CASE_STEPS: Readonly<Record<string, (L: Layout) => Step[]>> = {
  "write-outside-roots": (L) => create(path.join(L.outside, "escape-write")),
  "write-read-only-policy": (L) => create(path.join(L.workspace, "escape-ro")),
  "write-through-symlink": (L) => {
    const link = path.join(L.workspace, "link-out");
    const steps: Step[] = [{ operation: "file-write-create", path: kernelPath(link) }];
    if (!fs.existsSync(link)) fs.symlinkSync(L.outside, link);
    return [...steps, ...create(path.join(link, "escape-link"))];
  },
  // concatenated like the kit's script: the `..` is resolved by the kernel (kernelPath), not before
  "write-dotdot": (L) => create(L.workspace + path.sep + path.relative(L.workspace, L.outside) + path.sep + "escape-dotdot"),
  "write-git-hooks": (L) => create(path.join(L.workspace, ".git", "hooks", "pre-commit")),
  "create-missing-carve-out": (L) => [
    { operation: "file-write-create", path: kernelPath(path.join(L.workspace, ".codex")) },
    { operation: "file-write-create", path: kernelPath(path.join(L.workspace, ".codex", "rules")) },
    ...create(path.join(L.workspace, ".codex", "rules", "escape.rules")),
  ],
  "rename-carve-out": (L) => [
    { operation: "file-write-unlink", path: kernelPath(path.join(L.workspace, ".git")) },
    { operation: "file-write-create", path: kernelPath(path.join(L.workspace, "git-moved")) },
  ],
  "read-denied-path": (L) => [
    { operation: "file-read-metadata", path: kernelPath(L.deniedFile) },
    { operation: "file-read-data", path: kernelPath(L.deniedFile) },
  ],
  "tcp-to-host-loopback": (L) => [
    { operation: "system-socket", socketDomain: "AF_INET", socketType: "SOCK_STREAM" },
    { operation: "network-outbound", remote: { ip: "127.0.0.1", port: L.tcpPort ?? HOST_TCP_PORT } },
  ],
  "host-unix-socket": (L) => [
    { operation: "system-socket", socketDomain: "AF_UNIX", socketType: "SOCK_STREAM" },
    { operation: "network-outbound", remote: { unixSocket: kernelPath(L.unixSocket ?? path.join(L.base, "host.sock")) } },
  ],
  "signal-host-process": () => [{ operation: "signal", target: "other" }],
  "write-workspace": (L) => {
    const f = path.join(L.workspace, "ok.txt");
    return [
      ...create(f),
      { operation: "file-write-unlink", path: kernelPath(f) },
      { operation: "file-write-create", path: kernelPath(`${f}.moved`) },
      { operation: "file-write-unlink", path: kernelPath(`${f}.moved`) },
      ...create(path.join(L.workspace, "allowed-write")),
    ];
  },
  "read-outside": (L) => [
    { operation: "file-read-metadata", path: kernelPath(path.join(L.outside, "readable.txt")) },
    { operation: "file-read-data", path: kernelPath(path.join(L.outside, "readable.txt")) },
  ],
};

/** What every case's script needs before its own steps: starting node. */
export const STARTUP_STEPS: readonly Step[] = [
  { operation: "process-exec", path: kernelPath(process.execPath) },
  { operation: "process-fork" },
  { operation: "file-read-data", path: kernelPath(process.execPath) },
  { operation: "sysctl-read", sysctlName: "hw.ncpu" },
  { operation: "sysctl-read", sysctlName: "kern.osrelease" },
  { operation: "signal", target: "same-sandbox" },
];

/** The verdict of running `steps` under `profile`: allowed when every one is, else the first refused. */
export function runSteps(profile: CompiledProfile, steps: readonly Step[]): { verdict: "allowed" | "blocked"; refused?: Step } {
  const refused = steps.find((s) => !profile.allows(s));
  return refused ? { verdict: "blocked", refused } : { verdict: "allowed" };
}

/**
 * What the Seatbelt profile does not enforce, as the kit's features: it has no rule on the kind of
 * file a command creates, so a FIFO in the workspace is not refused (its evaluator has no
 * `vnode-type` filter either). The kit's cases that need it are skipped with that reason.
 */
export const SEATBELT_LACKS: readonly ConformanceFeature[] = Object.freeze(["special-files"]);

/**
 * Every case id of the kit the profile is held to (all but those needing a feature it lacks, which
 * the conformance queries skip with the reason); a case the table does not map fails the suite.
 */
export const CASE_IDS: readonly string[] = CONFORMANCE_CASES.filter((c) => !(c.needs ?? []).some((f) => SEATBELT_LACKS.includes(f))).map((c) => c.id);
