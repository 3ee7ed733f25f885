import os from "node:os";
import type { LinuxCapabilityReport, LinuxIsolation, ProbeOptions } from "./capabilities.js";
import { locateHelper } from "./helper-path.js";
import { probeBwrap, probeHelper, resolveBwrap, userNamespaceHint } from "./probe-layers.js";
import { checkHostBinary, currentUid } from "./trusted-path.js";
import { probeCacheKey, readProbeCache, writeProbeCache } from "./probe-cache.js";

export type { LayerStatus, LinuxCapabilityReport, LinuxIsolation, ProbeOptions } from "./capabilities.js";
export { findBwrap } from "./probe-layers.js";

async function probeUncached(options: ProbeOptions): Promise<LinuxCapabilityReport> {
  const platform = process.platform;
  const kernel = os.release();
  if (platform !== "linux") {
    const detail = `not Linux (${platform})`;
    const off = { available: false, detail };
    return {
      platform, kernel, helper: off, bwrap: { ...off, procMount: false }, userNamespaces: off, seccomp: off,
      landlock: { ...off, abi: 0 }, isolation: "none", level: "none", reasons: [detail],
    };
  }
  const helperPath = locateHelper();
  // The bwrap run needs the helper; if the helper turns out broken, bwrap is reported unusable
  // below. An untrusted helper is not even started inside bwrap.
  const [{ helper, seccomp, landlock }, bwrapRun] = await Promise.all([
    probeHelper(helperPath),
    probeBwrap(options.bwrapPath, helperPath && trustedHelper(helperPath) ? helperPath : undefined),
  ]);
  const bwrap = helper.available ? bwrapRun : { ...bwrapRun, available: false, detail: "cannot be used without a working native helper" };
  const userNamespaces = userNamespaceHint();
  const reasons: string[] = [];
  if (!helper.available) reasons.push(`helper: ${helper.detail}`);
  if (!seccomp.available) reasons.push(`seccomp: ${seccomp.detail}`);
  if (!bwrap.available) {
    reasons.push(`bwrap: ${bwrap.detail}`);
    if (!userNamespaces.available) reasons.push(`user namespaces: ${userNamespaces.detail}`);
  }
  if (!landlock.available) reasons.push(`landlock: ${landlock.detail}`);
  const base = helper.available && seccomp.available;
  const isolation: LinuxIsolation = base && bwrap.available ? "bwrap+seccomp" : base && landlock.available ? "landlock+seccomp" : "none";
  const level = isolation === "bwrap+seccomp" ? "full" : isolation === "landlock+seccomp" ? "weaker" : "none";
  return { platform, kernel, helper, bwrap, userNamespaces, seccomp, landlock, isolation, level, reasons };
}

/** Re-derive every path in a cached report from the current lookup: file content never names a binary. */
function withPaths(report: LinuxCapabilityReport, bwrapPath: string | undefined, helperPath: string | undefined): LinuxCapabilityReport {
  const helper = { ...report.helper };
  const bwrap = { ...report.bwrap };
  delete helper.path;
  delete bwrap.path;
  if (helperPath) helper.path = helperPath;
  if (bwrapPath) bwrap.path = bwrapPath;
  const ok = report.level !== "none" && helperPath !== undefined;
  return { ...report, helper, bwrap, ...(ok ? {} : { level: "none", isolation: "none" }) };
}

function trustedHelper(helperPath: string): boolean {
  return checkHostBinary(helperPath, { alsoOwnedBy: [currentUid()] }).trusted;
}

async function probeWithDiskCache(options: ProbeOptions & { cacheFile: string }): Promise<LinuxCapabilityReport> {
  const helperPath = locateHelper();
  const resolved = resolveBwrap(options.bwrapPath);
  // Only binaries that pass the trust check now may be named by a cached report; anything else is
  // probed afresh (cheaply: nothing untrusted is started) and reported with its reason.
  if (!("path" in resolved) || !helperPath || !trustedHelper(helperPath)) return probeUncached(options);
  const bwrapPath = resolved.path;
  const key = probeCacheKey(bwrapPath, helperPath);
  if (!options.refresh) {
    const cached = await readProbeCache(options.cacheFile, key);
    if (cached) return withPaths(cached, bwrapPath, helperPath);
  }
  const fresh = await probeUncached(options);
  if (fresh.platform === "linux") await writeProbeCache(options.cacheFile, key, fresh);
  return fresh;
}

const cache = new Map<string, Promise<LinuxCapabilityReport>>();
const settled = new Map<string, LinuxCapabilityReport>();

/**
 * Find out which sandbox layers work on this machine: bubblewrap (really started, with the
 * helper inside), user namespaces, seccomp (installed and checked), Landlock ABI. The result is
 * cached per bwrap path for the life of the process; `refresh` probes again.
 */
export function probeLinuxSandbox(options: ProbeOptions = {}): Promise<LinuxCapabilityReport> {
  const key = `${options.bwrapPath ?? ""}\0${options.cacheFile ?? ""}`;
  const cached = cache.get(key);
  if (cached && !options.refresh) return cached;
  const cacheFile = options.cacheFile;
  const fresh = cacheFile && process.platform === "linux" ? probeWithDiskCache({ ...options, cacheFile }) : probeUncached(options);
  cache.set(key, fresh);
  fresh.then((report) => {
    if (cache.get(key) === fresh) settled.set(key, report);
  }, () => undefined);
  return fresh;
}

/**
 * The report of a probe this process has already finished for these options, or undefined: never
 * probes, so a plan can use what a run would know without starting anything.
 */
export function settledProbe(options: Pick<ProbeOptions, "bwrapPath" | "cacheFile"> = {}): LinuxCapabilityReport | undefined {
  return settled.get(`${options.bwrapPath ?? ""}\0${options.cacheFile ?? ""}`);
}
