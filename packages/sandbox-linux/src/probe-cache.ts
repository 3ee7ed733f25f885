import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { linuxProbeCacheFile } from "@shellgate/user-paths";
import type { LinuxCapabilityReport } from "./capabilities.js";

/**
 * Everything a cached probe depends on. A different kernel, boot, user, namespace set, seccomp
 * state (a process already inside a sandbox probes differently), bubblewrap binary or helper build
 * invalidates it.
 */
export interface ProbeCacheKey {
  version: 1;
  kernel: string;
  bootId: string;
  uid: number;
  /** user, mount, net and pid namespace ids plus the Seccomp/NoNewPrivs lines of /proc/self/status. */
  confinement: string;
  bwrap: string | null;
  helper: string | null;
}

function identity(file: string | undefined): string | null {
  if (!file) return null;
  try {
    const s = statSync(file);
    return `${file}:${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return `${file}:missing`;
  }
}

function confinement(): string {
  const parts: string[] = [];
  for (const ns of ["user", "mnt", "net", "pid"]) {
    try {
      parts.push(readlinkSync(`/proc/self/ns/${ns}`));
    } catch {
      parts.push(`${ns}:?`);
    }
  }
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    parts.push(...status.split("\n").filter((l) => /^(Seccomp|NoNewPrivs):/.test(l)).map((l) => l.replace(/\s+/g, "")));
  } catch {
    parts.push("status:?");
  }
  return parts.join(" ");
}

/** The key for a probe of this bubblewrap and helper on this boot of this kernel. */
export function probeCacheKey(bwrapPath: string | undefined, helperPath: string | undefined): ProbeCacheKey {
  let bootId = "";
  try {
    bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    // without a boot id the cache still keys on the kernel and binaries
  }
  return {
    version: 1, kernel: os.release(), bootId, uid: process.getuid?.() ?? -1, confinement: confinement(),
    bwrap: identity(bwrapPath), helper: identity(helperPath),
  };
}

/** `$XDG_CACHE_HOME/shellgate/linux-sandbox-probe.json` (or `~/.cache/...`: @shellgate/user-paths' `linuxProbeCacheFile`). */
export function defaultProbeCacheFile(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return linuxProbeCacheFile(env);
}

/**
 * The cache file's text, or undefined when it is not a regular file: opened non-blocking and
 * without following a link (the file is only ever written by rename), judged by `fstat`, so a FIFO
 * in its place is no cache rather than a probe that never returns.
 */
function readCacheText(file: string): string | undefined {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, "utf8") : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A cached report for exactly this key, or undefined. Paths are never taken from the file (the
 * caller re-derives them), so a tampered cache can at most make a layer look unusable.
 */
export async function readProbeCache(file: string, key: ProbeCacheKey): Promise<LinuxCapabilityReport | undefined> {
  try {
    const text = readCacheText(file);
    if (text === undefined) return undefined;
    const data = JSON.parse(text) as { key?: unknown; report?: unknown };
    if (JSON.stringify(data.key) !== JSON.stringify(key)) return undefined;
    const report = data.report as LinuxCapabilityReport | undefined;
    if (!report || typeof report !== "object" || typeof report.level !== "string" || typeof report.bwrap?.procMount !== "boolean") return undefined;
    return report;
  } catch {
    return undefined;
  }
}

/** Store a report (atomically, owner-only); failures are ignored — the cache is an optimisation. */
export async function writeProbeCache(file: string, key: ProbeCacheKey, report: LinuxCapabilityReport): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, JSON.stringify({ key, report }), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the cache is an optimisation
    }
  }
}
