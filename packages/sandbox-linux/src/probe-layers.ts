import { execFile } from "node:child_process";
import { accessSync, constants, readFileSync } from "node:fs";
import path from "node:path";
import type { LayerStatus, LinuxCapabilityReport } from "./capabilities.js";

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

/** `bwrap` on PATH (then the Debian location); undefined when there is none. */
export function findBwrap(envPath = process.env["PATH"] ?? ""): string | undefined {
  const dirs = [...envPath.split(path.delimiter).filter((d) => path.isAbsolute(d)), "/usr/bin", "/bin"];
  for (const dir of dirs) {
    const candidate = path.join(dir, "bwrap");
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
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
export function bwrapProbeArgs(helper: string, procMount: boolean): string[] {
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
  const found = bwrapPath ?? findBwrap();
  if (!found) return { available: false, detail: "bwrap not found on PATH (install the bubblewrap package)", procMount: false };
  if (!isExecutable(found)) return { available: false, detail: `${found} is not executable`, path: found, procMount: false };
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
  const result = await run(helper, ["--probe"]);
  const abi = Number(/landlock_abi=(\d+)/.exec(result.stdout)?.[1] ?? "0");
  const seccompState = /seccomp=(\S+)/.exec(result.stdout)?.[1];
  const helperOk = result.code === 0 && seccompState !== undefined;
  return {
    helper: helperOk
      ? { available: true, detail: helper, path: helper }
      : { available: false, detail: `helper probe failed: ${firstLine(result.stderr) || String(result.code)}`, path: helper },
    seccomp: seccompState === "ok"
      ? { available: true, detail: "filter installed and verified (ptrace, sockets, io_uring refused)" }
      : { available: false, detail: `seccomp ${seccompState ?? "not probed"}` },
    landlock: abi >= 1
      ? { available: true, detail: `Landlock ABI ${abi}`, abi }
      : { available: false, detail: "Landlock not supported or disabled by this kernel", abi: 0 },
  };
}
