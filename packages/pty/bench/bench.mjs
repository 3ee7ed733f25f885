// Benchmarks for @shellgate/pty against bare child_process / node-pty, side by side.
// Usage: npm run bench [-- --full]   (--full pushes 1 GiB instead of 256 MiB through the pipe)
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import { spawn as ptySpawn } from "node-pty";
import { spawnPipe, spawnPty } from "../dist/index.js";

const full = process.argv.includes("--full");
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
const cwd = tmpdir();
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x) => `${x.toFixed(2)} ms`;
const mib = (x) => `${(x / 1048576).toFixed(1)} MiB`;
const verdict = (ok) => (ok ? "OK" : "MISSED");
const failures = [];
function report(line, ok) {
  console.log(`  ${line}: ${verdict(ok)}`);
  if (!ok) failures.push(line);
}

function barePipe(argv) {
  return new Promise((resolve) => {
    const c = spawn(argv[0], argv.slice(1), { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let n = 3;
    const done = () => --n === 0 && resolve();
    c.stdout.on("data", () => {}).once("close", done);
    c.stderr.on("data", () => {}).once("close", done);
    c.once("exit", done);
  });
}

async function benchSpawn() {
  const rounds = 60;
  const bare = [], ours = [], ex = [];
  // Warm every path once (JIT, the host-death watchdog) before timing.
  await barePipe(["/bin/true"]);
  await spawnPipe({ argv: ["/bin/true"], cwd, env }).result();
  await execa("/bin/true", [], { cwd, env, extendEnv: false, reject: false });
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    await barePipe(["/bin/true"]);
    bare.push(performance.now() - t);
    t = performance.now();
    await spawnPipe({ argv: ["/bin/true"], cwd, env }).result();
    ours.push(performance.now() - t);
    t = performance.now();
    await execa("/bin/true", [], { cwd, env, extendEnv: false, reject: false, detached: true });
    ex.push(performance.now() - t);
  }
  const over = median(ours.map((x, i) => x - bare[i]));
  console.log(`pipe spawn of /bin/true until result (${rounds} interleaved rounds)`);
  console.log(`  bare child_process.spawn median ${ms(median(bare))}; spawnPipe median ${ms(median(ours))}; execa 9 median ${ms(median(ex))} (for reference)`);
  report(`spawnPipe overhead (median of paired differences) ${ms(over)} vs target ≤ 3 ms (ratio ${(median(ours) / median(bare)).toFixed(2)}x)`, over <= 3);
}

function barePtyFirstByte() {
  return new Promise((resolve) => {
    const t = performance.now();
    const p = ptySpawn("/bin/echo", ["hi"], { cwd, env, cols: 80, rows: 24, encoding: null });
    let first;
    p.onData(() => (first ??= performance.now() - t));
    p.onExit(() => resolve(first ?? performance.now() - t));
  });
}

async function oursPtyFirstByte() {
  const t = performance.now();
  const h = spawnPty({ argv: ["/bin/echo", "hi"], cwd, env });
  let first;
  h.onOutput(() => (first ??= performance.now() - t));
  await h.result();
  return first ?? performance.now() - t;
}

async function benchPty() {
  const rounds = 40;
  const bare = [], ours = [];
  await barePtyFirstByte();
  await oursPtyFirstByte();
  for (let i = 0; i < rounds; i++) {
    bare.push(await barePtyFirstByte());
    ours.push(await oursPtyFirstByte());
  }
  const ratio = median(ours) / median(bare);
  console.log(`PTY start → first output byte of /bin/echo (${rounds} interleaved rounds)`);
  console.log(`  bare node-pty median ${ms(median(bare))}; spawnPty median ${ms(median(ours))}`);
  report(`ratio ${ratio.toFixed(2)}x vs target ≤ 1.5x`, ratio <= 1.5);
}

async function benchThroughput() {
  const bytes = full ? 1024 ** 3 : 256 * 1024 ** 2;
  const rounds = full ? 2 : 3;
  const producer = ["head", "-c", String(bytes), "/dev/zero"];
  global.gc?.();
  const rss0 = process.memoryUsage.rss();
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const ratios = [], peers = [], ourss = [], cpuOurs = [], cpuBare = [], bareRatios = [];
  const cpuMs = (u) => (u.user + u.system) / 1000;
  let last;
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    await barePipe(["sh", "-c", `${producer.join(" ")} | cat > /dev/null`]);
    const peer = bytes / ((performance.now() - t) / 1000);
    t = performance.now();
    let u = process.cpuUsage();
    last = await spawnPipe({ argv: producer, cwd, env, timeoutMs: 0, outputCapBytes: 1024 * 1024 }).result();
    cpuOurs.push(cpuMs(process.cpuUsage(u)) / (bytes / 1048576));
    const ours = bytes / ((performance.now() - t) / 1000);
    // The floor any Node reader pays: the same producer read by a bare child_process with a no-op handler.
    u = process.cpuUsage();
    t = performance.now();
    await barePipe(producer);
    bareRatios.push(bytes / ((performance.now() - t) / 1000) / peer);
    cpuBare.push(cpuMs(process.cpuUsage(u)) / (bytes / 1048576));
    peers.push(peer);
    ourss.push(ours);
    ratios.push(ours / peer);
  }
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  console.log(`${mib(bytes)} through a pipe-mode command with the 1 MiB cap, ${rounds} interleaved rounds${full ? "" : " (--full: 1 GiB)"}`);
  console.log(`  peer \`head | cat > /dev/null\` median ${mib(median(peers))}/s; spawnPipe median ${mib(median(ourss))}/s; per-round ratios ${ratios.map((r) => r.toFixed(2)).join(", ")}`);
  console.log(`  host CPU per MiB: spawnPipe ${median(cpuOurs).toFixed(2)} ms; bare child_process reader with a no-op handler ${median(cpuBare).toFixed(2)} ms (its throughput ratio vs peer: ${median(bareRatios).toFixed(2)}x)`);
  console.log(`  last result: stdout ${last.stdout.length} chars retained, ${mib(last.droppedBytes)} dropped, truncated=${last.truncated}`);
  report(`throughput ratio (median) ${median(ratios).toFixed(2)}x vs target ≥ 0.5x`, median(ratios) >= 0.5);
  report(`RSS growth ${mib(peak - rss0)} vs target ≤ 64 MiB`, peak - rss0 <= 64 * 1048576);
}

function vmRss(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function benchIdleSessions() {
  const n = 64;
  const fds0 = readdirSync("/proc/self/fd").length;
  const rss0 = process.memoryUsage.rss();
  const sessions = [];
  for (let i = 0; i < n; i++) {
    const h = spawnPty({ argv: ["bash", "--norc", "--noprofile", "-i"], cwd, env: { ...env, PS1: "$ " }, timeoutMs: 0 });
    const ready = new Promise((resolve) => h.onOutput(() => resolve()));
    sessions.push({ h, ready });
  }
  await Promise.all(sessions.map((s) => s.ready));
  await new Promise((r) => setTimeout(r, 300));
  const children = sessions.reduce((sum, s) => sum + vmRss(s.h.pid), 0);
  const host = process.memoryUsage.rss() - rss0;
  const total = children + process.memoryUsage.rss();
  await Promise.all(sessions.map((s) => s.h.terminate()));
  await Promise.all(sessions.map((s) => s.h.result()));
  await new Promise((r) => setTimeout(r, 200));
  const leaked = readdirSync("/proc/self/fd").length - fds0;
  const alive = sessions.filter((s) => vmRss(s.h.pid) > 0).length;
  console.log(`${n} idle PTY sessions (bash -i)`);
  console.log(`  children ${mib(children)} + host ${mib(process.memoryUsage.rss())} (grew ${mib(host)}) = ${mib(total)}`);
  report(`total RSS ${mib(total)} vs target ≤ 400 MiB`, total <= 400 * 1048576);
  report(`fds leaked after close: ${leaked} (target 0); sessions still alive: ${alive}`, leaked <= 0 && alive === 0);
}

const t0 = performance.now();
console.log(`load average ${(await import("node:os")).loadavg().map((x) => x.toFixed(1)).join(" ")} on ${(await import("node:os")).cpus().length} cores (figures are wall-clock and move with load)`);
await benchSpawn();
await benchPty();
await benchThroughput();
await benchIdleSessions();
console.log(`bench finished in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${failures.length ? `${failures.length} target(s) missed` : "all targets met"}`);
