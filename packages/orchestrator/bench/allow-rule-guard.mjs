// What the allow-rule guard adds to a command that allow rules would run outside the sandbox:
// computing the run's writable roots and resolving what it would execute (program through PATH,
// git's repository), against a bare spawn of the same program. Run after building:
// `node bench/allow-rule-guard.mjs`. Options: BENCH_RUNS (default 300).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findSandboxWrittenCode, sandboxWritable } from "../dist/admission/index.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const ws = fs.mkdtempSync(path.join(os.tmpdir(), "shellgate-guard-bench-"));
fs.mkdirSync(path.join(ws, ".git"));
const policy = { mode: "workspace-write", writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false, deniedReadPaths: [] };
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.homedir() };

function median(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function time(fn) {
  const times = [];
  for (let i = 0; i < RUNS + 10; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= 10) times.push(performance.now() - t0);
  }
  return median(times);
}

const cases = [
  { label: "git commit -m x", argv: ["git", "commit", "-m", "x"], segments: [["git", "commit", "-m", "x"]], script: false },
  { label: "bash -lc 'npm test && git status'", argv: ["bash", "-lc", "npm test && git status"], segments: [["npm", "test"], ["git", "status"]], script: true },
];
const spawnMs = await time(() => spawnSync("git", ["--version"], { env }));
console.log(`bare spawn of git --version: ${spawnMs.toFixed(3)} ms (median of ${RUNS}); PATH has ${env.PATH.split(":").length} entries`);
for (const c of cases) {
  const rootsMs = await time(() => sandboxWritable(policy, { cwd: ws, env }));
  const writable = await sandboxWritable(policy, { cwd: ws, env });
  const lookupMs = await time(() => findSandboxWrittenCode({ argv: c.argv, segments: c.segments, script: c.script, cwd: ws, env, writable }));
  const total = rootsMs + lookupMs;
  console.log(`${c.label}: guard ${total.toFixed(3)} ms (writable roots ${rootsMs.toFixed(3)} ms + lookups ${lookupMs.toFixed(3)} ms) = ${(total / spawnMs).toFixed(2)}x a bare spawn`);
}
fs.rmSync(ws, { recursive: true, force: true });
