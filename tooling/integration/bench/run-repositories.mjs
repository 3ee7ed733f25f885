// What looking for the git repositories a sandboxed run left behind costs per call. After every
// sandboxed `workspace-write` call the orchestrator reads each directory of the workspace once (by
// name and type, no stat per entry). Measured here on a workspace with a `node_modules` of tens of
// thousands of files, against the same sandboxed call in an empty workspace (where the search reads
// one directory: the call without detection, to within microseconds), and the search on its own.
// Run after building: `npm run bench -w @shellgate/integration-tests`.
// Options: BENCH_RUNS (default 20), BENCH_PACKAGES (default 1500: 6000 directories, 30000 files).
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Orchestrator } from "@shellgate/orchestrator";
import { computeWritableRoots, DirectoryListingCache, findRunRepositories } from "@shellgate/sandbox";
import { createLinuxSandboxBackend } from "@shellgate/sandbox-linux";

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const PACKAGES = Number(process.env.BENCH_PACKAGES ?? 1500);
const WARMUP = 3;

const dir = await mkdtemp(path.join(existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir(), "shellgate-repos-bench-"));
const home = path.join(dir, "home");
const empty = path.join(dir, "empty");
const big = path.join(dir, "big");
await mkdir(home);
await mkdir(empty);
const hostEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8", GIT_CONFIG_NOSYSTEM: "1" };

// A node_modules shaped like a real one: per package a directory with lib/, lib/internal/ and test/,
// 20 files spread over them.
let files = 0;
let directories = 1;
for (let p = 0; p < PACKAGES; p += 1) {
  const pkg = path.join(big, "node_modules", `pkg-${p}`);
  const places = [pkg, path.join(pkg, "lib"), path.join(pkg, "lib", "internal"), path.join(pkg, "test")];
  for (const place of places) await mkdir(place, { recursive: true });
  directories += places.length;
  for (let f = 0; f < 20; f += 1) {
    await writeFile(path.join(places[f % places.length], `file-${f}.js`), "");
    files += 1;
  }
}
await mkdir(path.join(big, "src"));

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
  console.log(`${name.padEnd(60)} median ${fmt(stats.median).padStart(10)}  p90 ${fmt(stats.p90).padStart(10)}${note ? `  ${note}` : ""}`);
}
const must = (response) => {
  if (!response.success) throw new Error(`bench call failed: ${response.content}`);
};

console.log(`run-repositories bench — ${RUNS} runs each after ${WARMUP} warm-up runs, node ${process.version}, ${os.cpus().length} cpus`);
console.log(`workspace: node_modules with ${PACKAGES} packages, ${directories} directories, ${files} files (page cache warm after the warm-up)`);

const policy = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };
const roots = await computeWritableRoots({ ...policy, writableRoots: [], networkAccess: false, deniedReadPaths: [] }, { cwd: big, env: hostEnv });
const started = Date.now();
const cpu0 = process.cpuUsage();
const search = await measure(RUNS, () => findRunRepositories(roots, started, { searchRoots: [big] }));
const cpu = process.cpuUsage(cpu0);
// CPU time as well as wall time: on a loaded machine the wall time of a walk grows with the load.
const cpuPerSearch = (cpu.user + cpu.system) / 1000 / (RUNS + Math.min(WARMUP, RUNS));
report("the search alone (findRunRepositories)", search, `${findRunRepositories(roots, started, { searchRoots: [big] }).directories} directories read, ${fmt(cpuPerSearch)} CPU each`);

// A session (an MCP connection) keeps the listings of unchanged directories between its calls:
// after its first search, one lstat per directory instead of a read.
const cache = new DirectoryListingCache();
await new Promise((resolve) => setTimeout(resolve, 100)); // the fixture's directories must be older than the search window
findRunRepositories(roots, Date.now(), { searchRoots: [big], cache });
const cachedCpu0 = process.cpuUsage();
const cached = await measure(RUNS, () => findRunRepositories(roots, Date.now(), { searchRoots: [big], cache }));
const cachedCpu = process.cpuUsage(cachedCpu0);
const cachedCpuEach = (cachedCpu.user + cachedCpu.system) / 1000 / (RUNS + Math.min(WARMUP, RUNS));
report("the search alone, later calls of a session (cache)", cached, `${fmt(cachedCpuEach)} CPU each, x${(search.median / cached.median).toFixed(2)} faster`);

// Not `true`: a known-safe command cannot make a repository and is not searched after. `mkdir -p`
// is as short a run, and one that could write.
const call = (orchestrator) => orchestrator.handleToolCall({ name: "shell_command", arguments: '{"command":"mkdir -p .bench","login":false}' });
async function sandboxedCalls(cwd) {
  const orchestrator = await Orchestrator.create({ cwd, hostEnv, shell: "/bin/bash", approvalPolicy: "never", sandboxPolicy: policy, sandboxBackends: [createLinuxSandboxBackend()] });
  try {
    return await measure(RUNS, async () => must(await call(orchestrator)));
  } finally {
    await orchestrator.close();
  }
}

let emptyCalls;
try {
  emptyCalls = await sandboxedCalls(empty);
} catch (error) {
  console.log(`sandboxed calls skipped: ${error instanceof Error ? error.message : String(error)}`);
}
if (emptyCalls) {
  report("sandboxed `mkdir -p`, empty workspace (search reads 1 directory)", emptyCalls);
  const bigCalls = await sandboxedCalls(big);
  report(`sandboxed \`mkdir -p\`, workspace with node_modules (a session)`, bigCalls, `x${(bigCalls.median / emptyCalls.median).toFixed(2)} vs the empty workspace`);
  console.log(
    `${"what the search adds per call".padEnd(60)} median ${fmt(bigCalls.median - emptyCalls.median).padStart(10)}  ` +
      `a first search (a \`shellgate exec\`) is ${((search.median / emptyCalls.median) * 100).toFixed(0)}% of a sandboxed call without it, a later one in a session ${((cached.median / emptyCalls.median) * 100).toFixed(0)}%`,
  );
}
await rm(dir, { recursive: true, force: true });
