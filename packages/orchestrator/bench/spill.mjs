// Cost of saving a command's full output as it arrives: 100 MiB through `shell_command`, with the
// spill off (the peer), at the default 64 MiB limit, and with a limit above the output (all saved).
// Prints throughput and the host's RSS high-water mark for each; every run is a fresh node process,
// so the high-water mark (getrusage maxrss) belongs to that run alone.
// Run after building: `npm run bench -w @shellgate/orchestrator`. Options: SPILL_BENCH_RUNS (default 3),
// SPILL_BENCH_MIB (default 100).
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Orchestrator } from "../dist/index.js";

const RUNS = Number(process.env.SPILL_BENCH_RUNS ?? 3);
const MIB = Number(process.env.SPILL_BENCH_MIB ?? 100);
const BYTES = MIB * 1024 * 1024;
// The spill may add at most its queue bound (32 MiB, used only while the disk lags) plus slack to
// the host's peak memory, whatever the output size.
const RSS_EXTRA_TARGET_MIB = 40;

const dir = await mkdtemp(path.join(os.tmpdir(), "shellgate-spill-bench-"));
const home = path.join(dir, "home");
await import("node:fs/promises").then((fs) => fs.mkdir(home));
const hostEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
const command = `head -c ${BYTES} /dev/zero | tr '\\0' a`;

async function once(options) {
  const orch = new Orchestrator({
    cwd: dir,
    approvalPolicy: "never",
    sandboxPolicy: { mode: "danger-full-access" },
    hostEnv,
    shell: "/bin/bash",
    ...options,
  });
  const base = process.memoryUsage().rss;
  const t0 = performance.now();
  const response = await orch.handleToolCall({ name: "shell_command", arguments: { command, login: false, timeout_ms: 600_000 } });
  const ms = performance.now() - t0;
  const maxRss = process.resourceUsage().maxRSS * 1024;
  if (response.exitCode !== 0) throw new Error(`bench command failed: ${response.content.slice(0, 500)}`);
  const saved = response.fullOutputPath ? (await stat(response.fullOutputPath)).size : 0;
  const note = /Full output saved to: \S+ \(([^\n]*)\)\n/.exec(response.content)?.[1];
  await orch.close();
  return { ms, base, maxRss, saved, note };
}

if (process.argv[2] === "--child") {
  const result = await once(JSON.parse(process.argv[3]));
  await rm(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify(result));
  process.exit(0);
}

function inChild(options) {
  const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, "--child", JSON.stringify(options)], {
    env: process.env,
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(out.toString());
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (b) => (b / 1024 / 1024).toFixed(1);

const cases = [
  { name: "spill off (spillDir: false)", options: { spillDir: false } },
  { name: "spill on, default limit (64 MiB)", options: {} },
  { name: `spill on, limit 256 MiB (all ${MIB} MiB saved)`, options: { spillLimitBytes: 256 * 1024 * 1024 } },
];
const results = new Map(cases.map((c) => [c.name, []]));
console.log(`spill bench — ${MIB} MiB through shell_command, ${RUNS} rounds, node ${process.version}, ${os.cpus().length} cpus, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
try {
  inChild({ spillDir: false }); // warm-up (page cache, CPU frequency)
  for (let round = 0; round < RUNS; round += 1) {
    for (const c of cases) results.get(c.name).push(inChild(c.options));
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

const peerMs = median(results.get(cases[0].name).map((r) => r.ms));
const peerPeak = Math.max(...results.get(cases[0].name).map((r) => r.maxRss));
for (const c of cases) {
  const rs = results.get(c.name);
  const ms = median(rs.map((r) => r.ms));
  const peak = Math.max(...rs.map((r) => r.maxRss));
  const extra = peak - peerPeak;
  const last = rs[rs.length - 1];
  const verdict = c === cases[0] ? "peer" : extra <= RSS_EXTRA_TARGET_MIB * 1024 * 1024 ? `OK, ≤ +${RSS_EXTRA_TARGET_MIB}` : `OVER +${RSS_EXTRA_TARGET_MIB}`;
  console.log(
    `${c.name.padEnd(44)} ${(MIB / (ms / 1000)).toFixed(0).padStart(5)} MiB/s, ${(ms / peerMs).toFixed(2)}× the time of spill off;` +
      ` RSS high-water ${mib(peak)} MiB (${extra >= 0 ? "+" : ""}${mib(extra)} vs spill off: ${verdict}); saved ${mib(last.saved)} MiB${last.note ? `; note: ${last.note}` : ""}`,
  );
}
