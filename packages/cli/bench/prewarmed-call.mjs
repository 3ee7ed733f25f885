// Where a pre-warmed sandboxed call goes, in process: the orchestrator `shellgate mcp` builds (its
// factory, its configuration, per-session placeholders, pre-warming on), called with `shell_command`
// `true` after a pause (so the previous call's spare is up), as the MCP bench calls it but without
// the MCP round trip. Per call: the time up to `exec.begin` (policy, the call's own sandbox
// transform, the check that the spare is that sandbox), from `exec.begin` to `exec.end` (the command
// in the spare, and its exit), and the minor page faults of this process up to `exec.begin`.
// Medians and quartiles; the calls with few faults and with many are also given apart.
// Run after building: `node bench/prewarmed-call.mjs`. Options: BENCH_RUNS (default 30),
// BENCH_PREWARM_PAUSE_MS (default 250).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../dist/config/load.js";
import { createCliOrchestrator } from "../dist/orchestrator-factory.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const PAUSE_MS = Number(process.env.BENCH_PREWARM_PAUSE_MS ?? 250);
// The calls are also given apart by their faults before exec.begin: on a VM where a fault costs
// 12-25 µs (machine E of RESULTS.md), the calls with many are the slow ones. Many come after this
// process forked (a spare's spawn marks all its pages copy-on-write) or collected garbage.
const FEW_FAULTS = 50;

if (process.platform !== "linux") {
  console.log("prewarmed-call bench: pre-warmed sandboxes are a Linux backend feature; skipped");
  process.exit(0);
}
// As in cli.mjs: a git repository, and a HOME beside it, outside every writable root.
const root = mkdtempSync(path.join(existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir(), "sg-bench-call-"));
const work = path.join(root, "work");
const home = path.join(root, "home");
mkdirSync(work);
mkdirSync(home);
spawnSync("git", ["init", "-q", work], { stdio: "ignore" });
process.env.HOME = home;
process.chdir(work);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quartiles = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[Math.floor((s.length - 1) / 4)].toFixed(1)}–${s[Math.floor(((s.length - 1) * 3) / 4)].toFixed(1)}`;
};
const faultsNow = () => process.resourceUsage().minorPageFault;

const config = await loadConfig({});
const orchestrator = await createCliOrchestrator(config, async () => "approved", { sessionApprovals: true, sessionPlaceholders: true, prewarmSandboxes: true });
try {
  let begin;
  let end;
  let faultsAtBegin = 0;
  orchestrator.on((event) => {
    if (event.type === "exec.begin") {
      begin = performance.now();
      faultsAtBegin = faultsNow();
    } else if (event.type === "exec.end") {
      end = performance.now();
    }
  });
  const call = async () => {
    const response = await orchestrator.handleToolCall({ name: "shell_command", arguments: JSON.stringify({ command: "true", login: false }) });
    if (response.exitCode !== 0) throw new Error(`the call failed: ${response.content}`);
  };
  // The first call of a session has no spare; the second is the first to find one.
  for (let i = 0; i < 3; i++) {
    await call();
    await sleep(PAUSE_MS);
  }
  const calls = [];
  for (let i = 0; i < RUNS; i++) {
    const f0 = faultsNow();
    const t0 = performance.now();
    await call();
    const t1 = performance.now();
    calls.push({ toBegin: begin - t0, exec: end - begin, total: t1 - t0, faults: faultsAtBegin - f0 });
    await sleep(PAUSE_MS);
  }
  const line = (label, list) => {
    if (list.length === 0) return console.log(`  ${label}: none`);
    const pick = (k) => list.map((c) => c[k]);
    console.log(
      `  ${label} (${list.length}): total ${median(pick("total")).toFixed(1)} ms (quartiles ${quartiles(pick("total"))}); ` +
        `to exec.begin ${median(pick("toBegin")).toFixed(1)} ms (${quartiles(pick("toBegin"))}); ` +
        `exec.begin to exec.end ${median(pick("exec")).toFixed(1)} ms (${quartiles(pick("exec"))}); faults ${median(pick("faults"))}`,
    );
  };
  console.log(`pre-warmed \`shell_command true\` in process, ${RUNS} calls ${PAUSE_MS} ms apart:`);
  line("all calls", calls);
  line(`up to ${FEW_FAULTS} faults before exec.begin`, calls.filter((c) => c.faults <= FEW_FAULTS));
  line(`more faults`, calls.filter((c) => c.faults > FEW_FAULTS));
  console.log(`(load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`);
} finally {
  await orchestrator.close();
  rmSync(root, { recursive: true, force: true });
}
