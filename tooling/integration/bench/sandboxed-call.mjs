// A sandboxed tool call through the orchestrator with the Linux backend wired in (as an integrator
// wires it), against the same call unsandboxed and against Codex's `codex sandbox -- true` (a CLI,
// so its start-up is included). The orchestrator's own bench (packages/orchestrator/bench) covers
// the unsandboxed overhead; this package is where a backend may be named.
// Run after building: `npm run bench -w @shellgate/integration-tests`.
// Options: BENCH_RUNS (default 30), BENCH_CODEX=0 to skip the Codex comparison.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Orchestrator } from "@shellgate/orchestrator";
import { createLinuxSandboxBackend } from "@shellgate/sandbox-linux";

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 3;
const CODEX = "/opt/codex/node_modules/.bin/codex";

// Under /var/tmp: a workspace that is or contains HOME is refused, and Codex will not set up under /tmp.
const dir = await mkdtemp(path.join(existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir(), "shellgate-sandboxed-bench-"));
const home = path.join(dir, "home");
const work = path.join(dir, "work");
await mkdir(home);
await mkdir(work);
const hostEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };

async function measure(runs, fn) {
  for (let i = 0; i < Math.min(WARMUP, runs); i += 1) await fn();
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  return { median: at(0.5), p90: at(0.9) };
}

const fmt = (ms) => `${ms.toFixed(2)} ms`;
function report(name, stats, note = "") {
  console.log(`${name.padEnd(52)} median ${fmt(stats.median).padStart(10)}  p90 ${fmt(stats.p90).padStart(10)}${note ? `  ${note}` : ""}`);
}
const must = (response) => {
  if (!response.success) throw new Error(`bench call failed: ${response.content}`);
};
const call = (orchestrator) => orchestrator.handleToolCall({ name: "shell_command", arguments: '{"command":"true","login":false}' });

console.log(`sandboxed call bench — ${RUNS} runs each after ${WARMUP} warm-up runs, node ${process.version}, ${os.cpus().length} cpus`);
const common = { cwd: work, hostEnv, shell: "/bin/bash", approvalPolicy: "never" };
const plain = await Orchestrator.create({ ...common, sandboxPolicy: { mode: "danger-full-access" } });
const unsandboxed = await measure(RUNS, async () => must(await call(plain)));
report("orchestrator shell_command `true` (no sandbox)", unsandboxed);
await plain.close();

let sandboxed;
try {
  sandboxed = await Orchestrator.create({ ...common, sandboxPolicy: { mode: "workspace-write" }, sandboxBackends: [createLinuxSandboxBackend()] });
} catch (error) {
  console.log(`linux sandbox run skipped: ${error instanceof Error ? error.message : String(error)}`);
}
if (sandboxed) {
  const stats = await measure(RUNS, async () => must(await call(sandboxed)));
  report("orchestrator shell_command `true` (linux sandbox)", stats, `x${(stats.median / unsandboxed.median).toFixed(2)} vs unsandboxed`);
  if (process.env.BENCH_CODEX !== "0" && existsSync(CODEX)) {
    const codex = await measure(Math.min(RUNS, 8), () => new Promise((resolve, reject) => {
      const child = spawn(CODEX, ["sandbox", "--", "true"], { stdio: "ignore", env: hostEnv, cwd: work });
      child.on("error", reject);
      child.on("close", resolve);
    }));
    report("codex sandbox -- true (CLI, includes its start-up)", codex, `a shellgate sandboxed call is x${(codex.median / stats.median).toFixed(2)} faster per command`);
  } else {
    console.log("codex comparison skipped (BENCH_CODEX=0 or /opt/codex missing)");
  }
  await sandboxed.close();
}
await rm(dir, { recursive: true, force: true });
