import { spawnSync } from "node:child_process";

let probed: { reason: string | undefined } | undefined;

/**
 * Why bubblewrap cannot run here (undefined when it can): not Linux, no `bwrap`, or `bwrap --ro-bind
 * / / --dev /dev true` failing (no user namespaces). Only bwrap itself: the full Linux sandbox also
 * needs seccomp and its helper, which `probeLinuxSandbox` checks. Probed once per test file.
 */
export function whyBwrapCannotRun(): string | undefined {
  probed ??= { reason: probe() };
  return probed.reason;
}

function probe(): string | undefined {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  const r = spawnSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "true"], { encoding: "utf8" });
  if (r.error) return `bwrap cannot be started (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})`;
  if (r.status !== 0) return `bwrap --ro-bind / / --dev /dev true failed${r.stderr.trim() ? `: ${r.stderr.trim()}` : ` (exit ${r.status ?? r.signal})`}`;
  return undefined;
}
