// Overhead of a tool call through the orchestrator versus a bare spawn of the same command.
// Run after building: `npm run bench -w @shellgate/orchestrator` (about 20-40 s on 2 cores).
// Options: BENCH_RUNS (default 30).
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { spawnPipe } from "@shellgate/pty";
import { Orchestrator } from "../dist/index.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARMUP = 3;
const TARGET_OVERHEAD_MS = 5; // median added by admission + pipeline + formatting, unsandboxed
const TARGET_OVER_RAW_SPAWN_MS = 2; // a warm unsandboxed call against Node spawning `bash -c true` itself

const dir = await mkdtemp(path.join(os.tmpdir(), "shellgate-orch-bench-"));
const home = path.join(dir, "home");
await import("node:fs/promises").then((fs) => fs.mkdir(home));
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
const rows = [];
function report(name, stats, note = "") {
  rows.push({ name, ...stats });
  console.log(`${name.padEnd(52)} median ${fmt(stats.median).padStart(10)}  p90 ${fmt(stats.p90).padStart(10)}${note ? `  ${note}` : ""}`);
}

function nodeSpawn(argv) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], env: hostEnv, cwd: dir });
    child.on("error", reject);
    child.on("close", resolve);
  });
}

const must = (response) => {
  if (!response.success) throw new Error(`bench call failed: ${response.content}`);
};

console.log(`orchestrator overhead bench — ${RUNS} runs each after ${WARMUP} warm-up runs, node ${process.version}, ${os.cpus().length} cpus`);

const childProcess = await measure(RUNS, () => nodeSpawn(["/bin/bash", "-c", "true"]));
report("node child_process: bash -c true", childProcess);
const bare = await measure(RUNS, () => spawnPipe({ argv: ["/bin/bash", "-c", "true"], cwd: dir, env: hostEnv }).result());
report("@shellgate/pty spawnPipe: bash -c true", bare);

const plain = new Orchestrator({ cwd: dir, hostEnv, shell: "/bin/bash", approvalPolicy: "never", sandboxPolicy: { mode: "danger-full-access" } });
const callShellCommand = async () =>
  must(await plain.handleToolCall({ name: "shell_command", arguments: '{"command":"true","login":false}' }));
const shellCommand = await measure(RUNS, callShellCommand);
report("orchestrator shell_command `true` (no sandbox)", shellCommand, `x${(shellCommand.median / bare.median).toFixed(2)} vs bare spawn`);

// The machine is shared, so compare in rounds (raw spawn, bare spawnPipe, then orchestrated) and take
// the median difference.
const diffs = [];
const overRaw = [];
for (let i = 0; i < RUNS; i += 1) {
  const t0 = performance.now();
  await nodeSpawn(["/bin/bash", "-c", "true"]);
  const t1 = performance.now();
  await spawnPipe({ argv: ["/bin/bash", "-c", "true"], cwd: dir, env: hostEnv }).result();
  const t2 = performance.now();
  await callShellCommand();
  const call = performance.now() - t2;
  diffs.push(call - (t2 - t1));
  overRaw.push(call - (t1 - t0));
}
const medianOf = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const overhead = medianOf(diffs);
console.log(`${"paired overhead of shell_command over bare spawn".padEnd(52)} median ${fmt(overhead).padStart(10)}  vs target ${TARGET_OVERHEAD_MS} ms: ${overhead <= TARGET_OVERHEAD_MS ? "OK" : "MISS"}`);
const aboveRaw = medianOf(overRaw);
console.log(`${"shell_command over raw child_process spawn".padEnd(52)} median ${fmt(aboveRaw).padStart(10)}  vs target ${TARGET_OVER_RAW_SPAWN_MS} ms: ${aboveRaw <= TARGET_OVER_RAW_SPAWN_MS ? "OK" : "MISS"}`);

// What the orchestrator itself adds, without any process: admission + pipeline + formatting.
const noProcess = await measure(RUNS * 5, () =>
  plain.pipeline.run({ callId: "b", tool: "shell", argv: ["/bin/bash", "-c", "true"], cwd: dir, env: hostEnv, permissions: "use_default" }, async () => ({
    value: 0,
    probe: { exitCode: 0, stdout: "", stderr: "", aggregated: "", timedOut: false },
  })),
);
report("pipeline only (admission+approval+sandbox prep)", noProcess, `vs target ${TARGET_OVERHEAD_MS} ms: ${noProcess.median <= TARGET_OVERHEAD_MS ? "OK" : "MISS"}`);
const shellArgv = await measure(RUNS, async () => must(await plain.handleToolCall({ name: "shell", arguments: { command: ["true"] } })));
report("orchestrator shell [\"true\"] (no sandbox)", shellArgv);
const execCommand = await measure(RUNS, async () =>
  must(await plain.handleToolCall({ name: "exec_command", arguments: { cmd: "true", login: false } })),
);
report("orchestrator exec_command `true` (no sandbox, pipes)", execCommand);
await plain.close();

// The sandboxed call is measured where a backend is wired in: tooling/integration/bench/sandboxed-call.mjs.
await rm(dir, { recursive: true, force: true });
