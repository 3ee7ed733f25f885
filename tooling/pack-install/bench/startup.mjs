#!/usr/bin/env node
// Start-up of the installed bins, as a user gets them (packed tarballs installed into a fresh project
// outside the repository), against a bare `node -e 0` on the same machine, run interleaved so that
// other load on the machine hits every command alike. Prints medians and the difference and whether
// the target is met (policy-check within 10 ms of `node -e 0`); it never fails on timing.
//
//   node bench/startup.mjs [--runs N] [--project DIR]
//
// --project reuses an install made earlier (the directory holding node_modules/@shellgate/cli)
// instead of packing and installing again; without it the install is made and removed afterwards.
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cleanEnv, createConsumerProject } from "../lib/consumer-project.mjs";

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const runs = Number(arg("--runs") ?? 30);
const TARGET_MS = 10;

let project = arg("--project");
let cleanup = () => {};
let home;
if (project) {
  project = path.resolve(project);
  home = path.join(project, ".bench-home");
} else {
  // the bench needs only our packages: no MCP client or TypeScript
  const c = await createConsumerProject({ extraDependencies: [], log: (line) => console.log(`install: ${line}`) });
  project = c.project;
  home = c.home;
  cleanup = () => rmSync(c.root, { recursive: true, force: true });
}
const env = cleanEnv(home);
const cli = path.join(project, "node_modules", "@shellgate", "cli", "bin");
const rules = path.join(project, "bench.rules");
writeFileSync(rules, 'prefix_rule(pattern=["git", "push"], decision="forbidden")\n');
// What Node's ES module loader costs for one empty module: the part of the gap that is not ours.
const emptyModule = path.join(project, "bench-empty.mjs");
writeFileSync(emptyModule, "");

// Each bin is started as `node FILE` (what its `#!/usr/bin/env node` line does, without the env
// lookup), so the difference to `node -e 0` is shellgate's own start-up.
const commands = {
  "node -e 0": [process.execPath, "-e", "0"],
  "node empty.mjs (ESM baseline)": [process.execPath, emptyModule],
  "policy-check --version": [process.execPath, path.join(cli, "policy-check.js"), "--version"],
  "policy-check (one rule, one command)": [process.execPath, path.join(cli, "policy-check.js"), "--rules", rules, "--", "git", "push"],
  "shellgate --version": [process.execPath, path.join(cli, "shellgate.js"), "--version"],
};

// Wall time is what a user waits for, but on a shared machine it mostly measures the other load; the
// CPU time the command used (user + system, read by bash's `times` for its child) barely moves with
// it. Both are printed; the target is judged on CPU time.
const seconds = (t) => {
  const m = /^(\d+)m([\d.]+)s$/.exec(t);
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
};
function once(argv) {
  const start = process.hrtime.bigint();
  const r = spawnSync("/bin/bash", ["-c", '"$@" >/dev/null 2>&1 || exit 99; times', "bash", ...argv], { cwd: project, env, encoding: "utf8" });
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  // policy-check exits 0 for a forbidden decision too: anything else is a broken install
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (${r.status}); run it by hand in ${project}`);
  const [user, sys] = (r.stdout.trim().split("\n")[1] ?? "").split(/\s+/).map(seconds);
  return { wall, cpu: ((user ?? NaN) + (sys ?? NaN)) * 1000 };
}

const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, { wall: [], cpu: [] }]));
for (const argv of Object.values(commands)) once(argv); // warm the file cache once
for (let i = 0; i < runs; i++) {
  for (const [name, argv] of Object.entries(commands)) {
    const { wall, cpu } = once(argv);
    samples[name].wall.push(wall);
    samples[name].cpu.push(cpu);
  }
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const base = { wall: median(samples["node -e 0"].wall), cpu: median(samples["node -e 0"].cpu) };
console.log(`start-up, medians of ${runs} interleaved runs (${process.version}, ${project}):`);
console.log(`  ${"".padEnd(38)} ${"wall".padStart(9)} ${"".padStart(10)} ${"CPU".padStart(9)}`);
for (const [name, s] of Object.entries(samples)) {
  const w = median(s.wall);
  const c = median(s.cpu);
  const diff = (x, b) => (name === "node -e 0" ? "" : `+${(x - b).toFixed(1)}`).padStart(10);
  console.log(`  ${name.padEnd(38)} ${w.toFixed(1).padStart(6)} ms${diff(w, base.wall)} ${c.toFixed(0).padStart(6)} ms${diff(c, base.cpu)}`);
}
// Both the bare start-up and a real (cached) check are judged: a user runs the second.
for (const name of ["policy-check --version", "policy-check (one rule, one command)"]) {
  const gap = median(samples[name].cpu) - base.cpu;
  const wallGap = median(samples[name].wall) - base.wall;
  console.log(
    `target: ${name} within ${TARGET_MS} ms of node -e 0 (CPU time): ${gap <= TARGET_MS ? "met" : "NOT met"} (+${gap.toFixed(0)} ms CPU, +${wallGap.toFixed(1)} ms wall)`,
  );
}
cleanup();
