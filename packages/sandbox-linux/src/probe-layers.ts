import { execFile } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import path from "node:path";
import type { LayerStatus, LinuxCapabilityReport } from "./capabilities.js";
import { BWRAP_LOCATIONS, checkHostBinary, currentUid } from "./trusted-path.js";

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  error?: NodeJS.ErrnoException;
}

function run(file: string, args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 10_000, encoding: "utf8" }, (error, stdout, stderr) => {
      const err = error as (NodeJS.ErrnoException & { code?: unknown }) | null;
      const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
      resolve({ code, stdout, stderr, ...(err && typeof err.code !== "number" ? { error: err } : {}) });
    });
  });
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * bubblewrap from a fixed system location (`/usr/bin/bwrap`, `/bin/bwrap`, `/usr/local/bin/bwrap`),
 * accepted only when it and every directory above it are root-owned and not writable by group or
 * others; undefined when there is none. `PATH` is never searched: a sandboxed command can write
 * `node_modules/.bin/bwrap`, and whatever is found here runs on the host.
 */
export function findBwrap(): string | undefined {
  return BWRAP_LOCATIONS.find((candidate) => checkHostBinary(candidate).trusted);
}

/**
 * The bubblewrap to use: `explicit` (absolute; it and its directories owned by root or the current
 * user, not writable by group or others) or `findBwrap()`. `refused` names the path and the failed
 * check when an explicit path exists but is not safe to run; `missing` says what was not found.
 */
export function resolveBwrap(explicit: string | undefined): { path: string } | { refused: string } | { missing: string } {
  if (explicit === undefined) {
    const found = findBwrap();
    return found ? { path: found } : { missing: `bwrap not found (looked in ${BWRAP_LOCATIONS.join(", ")}, root-owned only; install the bubblewrap package)` };
  }
  if (!path.isAbsolute(explicit)) return { refused: `bwrapPath ${JSON.stringify(explicit)} must be an absolute path` };
  const verdict = checkHostBinary(explicit, { alsoOwnedBy: [currentUid()] });
  if (verdict.trusted) return { path: explicit };
  // A path that is simply not there only makes the layer unavailable; anything else is a refusal.
  if (/ does not exist$/.test(verdict.reason)) return { missing: verdict.reason };
  return { refused: `refusing to run ${explicit} on the host: ${verdict.reason}` };
}

function readSysctl(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Static hints on whether unprivileged user namespaces are allowed (the bwrap run is the real test). */
export function userNamespaceHint(): LayerStatus {
  if (process.getuid?.() === 0) return { available: true, detail: "running as root" };
  if (readSysctl("/proc/sys/kernel/unprivileged_userns_clone") === "0") {
    return { available: false, detail: "kernel.unprivileged_userns_clone = 0" };
  }
  if (readSysctl("/proc/sys/user/max_user_namespaces") === "0") {
    return { available: false, detail: "user.max_user_namespaces = 0" };
  }
  if (readSysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") === "1") {
    return {
      available: false,
      detail: "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1; Ubuntu 23.10+)",
    };
  }
  return { available: true, detail: "allowed by the kernel" };
}

function findTrue(): string {
  return ["/usr/bin/true", "/bin/true"].find(isExecutable) ?? "true";
}

/** The smallest real sandbox: the same namespaces and helper a command gets. */
function bwrapProbeArgs(helper: string, procMount: boolean): string[] {
  return [
    "--new-session", "--die-with-parent", "--unshare-all", "--cap-drop", "ALL",
    "--ro-bind", "/", "/", "--dev", "/dev", ...(procMount ? ["--proc", "/proc"] : []), "--tmpfs", "/tmp",
    // A checkout under /tmp (CI clones often are) would otherwise lose its helper to the private /tmp.
    "--ro-bind", path.dirname(helper), path.dirname(helper),
    "--", helper, "--net", "off", "--", findTrue(),
  ];
}

/** `Can't mount proc on /newroot/proc: Operation not permitted` and kin: bwrap works without `--proc`. */
function isProcMountFailure(stderr: string): boolean {
  return /Can't mount proc/.test(stderr) && /\/newroot\/proc/.test(stderr) &&
    /(Invalid argument|Operation not permitted|Permission denied)/.test(stderr);
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}

/** Layer 1: find bubblewrap and start a real sandbox with it (retrying without `/proc` if needed). */
export async function probeBwrap(
  bwrapPath: string | undefined,
  helper: string | undefined,
): Promise<LinuxCapabilityReport["bwrap"]> {
  const resolved = resolveBwrap(bwrapPath);
  if ("missing" in resolved) return { available: false, detail: resolved.missing, procMount: false };
  if ("refused" in resolved) return { available: false, detail: resolved.refused, procMount: false, refused: true };
  const found = resolved.path;
  if (!helper) return { available: false, detail: "cannot be tested without the native helper", path: found, procMount: false };
  const [versionRun, first] = await Promise.all([run(found, ["--version"]), run(found, bwrapProbeArgs(helper, true))]);
  const version = versionRun.code === 0 ? firstLine(versionRun.stdout).replace(/^bubblewrap\s*/, "") : undefined;
  let procMount = true;
  let result = first;
  if (result.code !== 0 && isProcMountFailure(result.stderr)) {
    procMount = false;
    result = await run(found, bwrapProbeArgs(helper, false));
  }
  if (result.code === 0) {
    const note = procMount ? "" : " (could not mount /proc; runs without it)";
    return { available: true, detail: `bubblewrap ${version ?? "(unknown version)"} at ${found}${note}`, path: found, version, procMount };
  }
  const why = firstLine(result.stderr) || result.error?.message || `exit code ${String(result.code)}`;
  return { available: false, detail: `bwrap failed to start a sandbox: ${why}`, path: found, version, procMount: false };
}

/** The native helper, and through it layer 2 (seccomp, verified) and layer 3 (the Landlock ABI). */
export async function probeHelper(helper: string | undefined): Promise<{
  helper: LinuxCapabilityReport["helper"]; seccomp: LayerStatus; landlock: LinuxCapabilityReport["landlock"];
}> {
  if (!helper) {
    const detail = "native helper not built (needs a C compiler at install time; run the package build)";
    return {
      helper: { available: false, detail },
      seccomp: { available: false, detail: "untested: " + detail },
      landlock: { available: false, detail: "untested: " + detail, abi: 0 },
    };
  }
  const verdict = checkHostBinary(helper, { alsoOwnedBy: [currentUid()] });
  if (!verdict.trusted) {
    const detail = `refusing to run the helper ${helper} on the host: ${verdict.reason}`;
    return {
      helper: { available: false, detail, path: helper },
      seccomp: { available: false, detail: "untested: " + detail },
      landlock: { available: false, detail: "untested: " + detail, abi: 0 },
    };
  }
  const result = await run(helper, ["--probe"]);
  const abi = Number(/landlock_abi=(\d+)/.exec(result.stdout)?.[1] ?? "0");
  const seccompState = /seccomp=(\S+)/.exec(result.stdout)?.[1];
  const helperOk = result.code === 0 && seccompState !== undefined;
  return {
    helper: helperOk
      ? { available: true, detail: helper, path: helper }
      : { available: false, detail: `helper probe failed: ${firstLine(result.stderr) || String(result.code)}`, path: helper },
    seccomp: seccompState === "ok"
      ? { available: true, detail: "filter installed and verified (ptrace, sockets, io_uring, set-id modes refused)" }
      : { available: false, detail: `seccomp ${seccompState ?? "not probed"}` },
    landlock: abi >= 1
      ? { available: true, detail: `Landlock ABI ${abi}`, abi }
      : { available: false, detail: "Landlock not supported or disabled by this kernel", abi: 0 },
  };
}
