#!/usr/bin/env node
// Benchmarks for the Linux sandbox. Prints figures, ratios and the targets:
//  1. in-process: a sandboxed /bin/true costs <= 5 ms median over a raw spawn of it;
//  2. `shellgate sandbox -- /bin/true` median wall <= 0.7x `codex sandbox -- /bin/true`;
//  3. the proxy relay of a proxy-routed run: >= 50 % of loopback throughput over 100 MB, <= 2 ms
//     added per small request (bench/proxy-relay.mjs).
// Also the start-up profile of a sandboxed run (bench/start-profile.mjs; BENCH_START_PROFILE=0 skips it)
// and what plan reuse saves a transform (bench/plan-reuse.mjs).
// Runs are interleaved so machine load hits both sides alike. BENCH_RUNS overrides the counts.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseSandboxPolicy } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, probeLinuxSandbox } from "../dist/index.js";
import { benchProxyRelay } from "./proxy-relay.mjs";
import { benchStartProfile } from "./start-profile.mjs";
import { benchPlanReuse } from "./plan-reuse.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
// The committed launcher users run (npm links it): it runs the CLI bundle (cli/dist/bundle/) when built.
const SHELLGATE = path.resolve(here, "../../cli/bin/shellgate.js");
const CODEX = process.env.CODEX_BIN ?? "/opt/codex/node_modules/.bin/codex";
const runs = Number(process.env.BENCH_RUNS ?? 0);
const TRUE = existsSync("/bin/true") ? "/bin/true" : "/usr/bin/true";

/** CPU time (user+sys) of `argv` run `n` times, per run, from bash's `times` for its children. */
function cpuPerRun(argv, n, opts = {}) {
  const quoted = argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", `for ((i=0;i<${n};i++)); do ${quoted} >/dev/null 2>&1; done; times`], { stdio: ["ignore", "pipe", "ignore"], ...opts });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", () => {
      const line = out.trim().split("\n")[1] ?? "";
      const secs = [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
      resolve((secs * 1000) / n);
    });
  });
}

function time(argv, opts = {}) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(argv[0], argv.slice(1), { stdio: "ignore", ...opts });
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) reject(new Error(`${argv.join(" ")} exited ${code}`));
      else resolve(ms);
    });
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms) => `${ms.toFixed(1)} ms`;

async function interleaved(named, n) {
  const samples = Object.fromEntries(Object.keys(named).map((k) => [k, []]));
  for (let i = 0; i < n; i++) {
    for (const [name, fn] of Object.entries(named)) samples[name].push(await fn());
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
}

const report = await probeLinuxSandbox();
console.log(`machine: ${os.cpus().length} cpus, load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}, kernel ${os.release()}`);
console.log(`sandbox: ${report.isolation} (bwrap ${report.bwrap.version ?? "-"}, Landlock ABI ${report.landlock.abi})`);
if (report.level !== "full") {
  console.log(`SKIP: bubblewrap sandbox not available here: ${report.reasons.join("; ")}`);
  process.exit(0);
}

const ws = mkdtempSync(path.join(os.tmpdir(), "sg-bench-"));
let failed = false;
try {
  // 1. in-process overhead of the sandbox over a raw spawn
  const backend = createLinuxSandboxBackend();
  const policy = parseSandboxPolicy({ mode: "workspace-write" });
  const env = { PATH: "/usr/bin:/bin" };
  const t0 = process.hrtime.bigint();
  const execEnv = await backend.transform({ argv: [TRUE], cwd: ws, env }, policy, { sandboxPolicyCwd: ws });
  const transformMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const sandboxed = () => time(execEnv.argv, { cwd: ws, env: execEnv.env });
  const raw = () => time([TRUE], { cwd: ws, env });
  await sandboxed();
  await raw();
  const n1 = runs || 40;
  const m1 = await interleaved({ raw, sandboxed }, n1);
  const cpuRaw = await cpuPerRun([TRUE], n1, { cwd: ws, env });
  const cpuSandboxed = await cpuPerRun(execEnv.argv, n1, { cwd: ws, env: { ...execEnv.env, PATH: "/usr/bin:/bin" } });
  await execEnv.cleanup?.();
  const overhead = m1.sandboxed - m1.raw;
  const ok1 = overhead <= 5;
  failed ||= !ok1;
  console.log(`\n[in-process] ${n1} runs each: raw spawn ${fmt(m1.raw)}, sandboxed ${fmt(m1.sandboxed)} (transform, once: ${fmt(transformMs)})`);
  console.log(`  overhead median ${fmt(overhead)} vs target 5 ms: ${ok1 ? "OK" : "OVER"}`);
  console.log(`  cpu per run (user+sys): raw ${fmt(cpuRaw)}, sandboxed ${fmt(cpuSandboxed)} (overhead ${fmt(cpuSandboxed - cpuRaw)})`);

  // Where the start-up goes (no target: the parts' costs, for whoever makes it cheaper).
  if (process.env.BENCH_START_PROFILE !== "0") await benchStartProfile(backend, policy, { ws, runs: runs || 30, sessionBackend: createLinuxSandboxBackend({ placeholders: "per-session" }) });

  await benchPlanReuse({ runs: runs || 30 });

  // 2. CLI wall time against codex
  const n2 = runs || 10;
  if (!existsSync(path.resolve(here, "../../cli/dist/bin/shellgate.js"))) {
    console.log(`\n[cli] SKIP: ${SHELLGATE} not built`);
  } else {
    const sg = () => time([process.execPath, SHELLGATE, "sandbox", "--", TRUE], { cwd: ws });
    const node = () => time([process.execPath, "-e", "0"], { cwd: ws });
    await sg(); // warms the on-disk probe cache, as any earlier run would have
    const named = { node, shellgate: sg };
    if (existsSync(CODEX)) {
      const codex = () => time([CODEX, "sandbox", "--", TRUE], { cwd: ws });
      await codex();
      named.codex = codex;
    }
    const m2 = await interleaved(named, n2);
    console.log(`\n[cli] ${n2} runs each: node -e 0 ${fmt(m2.node)}, shellgate sandbox -- /bin/true ${fmt(m2.shellgate)}`);
    if (m2.codex !== undefined) {
      const ratio = m2.shellgate / m2.codex;
      const ok2 = ratio <= 0.7;
      failed ||= !ok2;
      console.log(`  codex sandbox -- /bin/true ${fmt(m2.codex)}; ratio ${ratio.toFixed(2)}x vs target 0.70x: ${ok2 ? "OK" : "OVER"}`);
      // CPU time is far less sensitive to other load on the machine than wall time
      const cpuSg = await cpuPerRun([process.execPath, SHELLGATE, "sandbox", "--", TRUE], n2, { cwd: ws });
      const cpuCodex = await cpuPerRun([CODEX, "sandbox", "--", TRUE], n2, { cwd: ws });
      const cpuNode = await cpuPerRun([process.execPath, "-e", "0"], n2, { cwd: ws });
      console.log(`  cpu per run (user+sys, all processes): node -e 0 ${fmt(cpuNode)}, shellgate ${fmt(cpuSg)}, codex ${fmt(cpuCodex)}; ratio ${(cpuSg / cpuCodex).toFixed(2)}x`);
    } else {
      console.log(`  codex not found at ${CODEX}: ratio not measured`);
    }
  }

  // 3. the proxy relay
  const relayOk = await benchProxyRelay(createLinuxSandboxBackend(), { runs });
  failed ||= relayOk === false;
} finally {
  rmSync(ws, { recursive: true, force: true });
}
if (failed) console.log("\nsome targets were missed (see above)");
