#!/usr/bin/env node
// What the reuse key of a deferred launch adds to a bubblewrap run's transform: the transform's
// wall time (key included) against the key alone on the same launch (synchronous lookups), and the
// same lookups as one fs.promises batch through the thread pool (for comparison). Interleaved;
// BENCH_RUNS overrides the count.
// Run: node bench/reuse-key.mjs (after the package build).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseSandboxPolicy } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, probeLinuxSandbox } from "../dist/index.js";
import { reuseKey } from "../dist/reuse-key.js";

const runs = Number(process.env.BENCH_RUNS ?? 200);
const report = await probeLinuxSandbox();
if (report.level !== "full") {
  console.log(`reuse-key bench: bubblewrap cannot run here (${report.reasons.join("; ")})`);
  process.exit(0);
}
const ws = fs.mkdtempSync(path.join(fs.existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir(), "sg-bench-key-"));
const backend = createLinuxSandboxBackend();
const policy = parseSandboxPolicy({ mode: "workspace-write" });
const spec = { argv: ["bash", "-c", "true"], cwd: ws, env: { PATH: "/usr/bin:/bin", HOME: os.homedir() } };
const transform = () => backend.transform(spec, policy, { sandboxPolicyCwd: ws });

const sample = await transform();
await sample.cleanup?.();
const cgroupDir = sample.deferred.argv[1] === "--cgroup" ? sample.deferred.argv[2] : undefined;
const keyInput = {
  argv: sample.deferred.argv, cwd: spec.cwd, env: sample.env, placeholders: [],
  executables: [sample.deferred.argv[0]], ...(cgroupDir ? { cgroupDir } : {}),
};
const sources = new Set(JSON.parse(sample.deferred.reuseKey).paths.map(([p]) => p));
function syncLookups() {
  for (const p of sources) {
    for (const look of [fs.lstatSync, fs.statSync]) {
      try {
        look(p, { bigint: true });
      } catch {
        // missing: the key records that
      }
    }
  }
}
const asyncBatch = () =>
  Promise.allSettled([...sources].flatMap((p) => [fs.promises.lstat(p, { bigint: true }), fs.promises.stat(p, { bigint: true })]));

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const times = { transform: [], key: [], sync: [], batch: [] };
for (let i = 0; i < runs; i++) {
  let start = process.hrtime.bigint();
  const env = await transform();
  times.transform.push(ms(start));
  await env.cleanup?.();
  start = process.hrtime.bigint();
  reuseKey(keyInput);
  times.key.push(ms(start));
  start = process.hrtime.bigint();
  syncLookups();
  times.sync.push(ms(start));
  start = process.hrtime.bigint();
  await asyncBatch();
  times.batch.push(ms(start));
}
fs.rmSync(ws, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const t = median(times.transform);
const k = median(times.key);
console.log(`reuse key of a deferred launch (${runs} interleaved runs, ${sources.size} paths, lstat+stat each)`);
console.log(`  transform (key included)        ${t.toFixed(3)} ms median`);
console.log(`  reuse key (synchronous)         ${k.toFixed(3)} ms median  (${((100 * k) / t).toFixed(1)} % of the transform)`);
console.log(`  its lookups alone, synchronous  ${median(times.sync).toFixed(3)} ms median`);
console.log(`  its lookups as an async batch   ${median(times.batch).toFixed(3)} ms median`);
