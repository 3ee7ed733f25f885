// Per-command costs of the sandbox model. Every sandboxed command pays computeWritableRoots once
// and every failed one pays isLikelySandboxDenied and explainSandboxDenial once, so all must stay far below spawn cost.
// Codex computes the same things in-process in Rust; there is no separate peer to time, so the
// figures are compared with targets only. Run: npm run bench (after `tsc -b`).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { computeWritableRoots, explainSandboxDenial, isLikelySandboxDenied, parseSandboxPolicy } from "../dist/index.js";

const TARGETS = { computeWritableRoots: 2, isLikelySandboxDenied: 5, explainSandboxDenial: 10 }; // ms, median

async function median(fn, iterations) {
  for (let i = 0; i < Math.min(20, iterations); i++) await fn();
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

function report(name, ms, detail) {
  const target = TARGETS[name];
  const verdict = ms <= target ? "OK" : "SLOW";
  console.log(`${name} (${detail}): median ${ms.toFixed(3)} ms vs target ${target} ms (${(ms / target).toFixed(2)}x of target): ${verdict}`);
  return ms <= target;
}

const base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "sg-sandbox-bench-")));
try {
  const ws = path.join(base, "ws");
  const store = path.join(base, "store", "repo.git", "worktrees", "ws");
  await fs.mkdir(path.join(ws, ".codex"), { recursive: true });
  await fs.mkdir(path.join(ws, "rules"), { recursive: true });
  await fs.mkdir(store, { recursive: true });
  await fs.writeFile(path.join(store, "commondir"), "../..\n");
  await fs.writeFile(path.join(ws, ".git"), `gitdir: ${store}\n`);
  const extra = path.join(base, "store");
  const policy = parseSandboxPolicy({ mode: "workspace-write", writableRoots: [extra] });
  const options = { cwd: ws, env: { TMPDIR: base }, protectedPaths: [path.join(ws, "rules")] };

  const rootsMs = await median(() => computeWritableRoots(policy, options), 500);
  // The worst case of the tool-home carve-outs: the home directory itself as a root (every tool
  // home and rc file of TOOL_HOMES is then held), against the same roots with the home elsewhere.
  const home = path.join(base, "home");
  await fs.mkdir(path.join(home, ".cargo", "bin"), { recursive: true });
  await fs.mkdir(path.join(home, ".local", "lib"), { recursive: true });
  const broad = parseSandboxPolicy({ mode: "workspace-write", writableRoots: [home] });
  const homeRootMs = await median(() => computeWritableRoots(broad, { ...options, hostEnv: { HOME: home } }), 500);
  const awayMs = await median(() => computeWritableRoots(broad, { ...options, hostEnv: { HOME: "/nonexistent-home" } }), 500);

  const noise = "x".repeat(1023) + "\n";
  const big = noise.repeat(1024); // 1 MiB without a keyword: the worst case scans everything.
  const result = { exitCode: 1, stdout: big, stderr: "error: build failed\n", aggregated: big };
  const denialMs = await median(() => isLikelySandboxDenied(result, "linux"), 200);
  // The explanation runs after every failed sandboxed command: worst case, nothing to find in 1 MiB.
  const roots = await computeWritableRoots(policy, options);
  const evidence = { ...result, sandboxType: "linux", isolation: "bwrap+seccomp", policy, writableRoots: roots, cwd: ws };
  const explainMs = await median(() => explainSandboxDenial(evidence), 100);

  // Figures are informative: a slow result is printed, not turned into a failing exit code.
  void [
    report("computeWritableRoots", rootsMs, "cwd with .git file + worktree, 1 extra root, TMPDIR, /tmp, 1 protected dir"),
    report("computeWritableRoots", homeRootMs, `the home directory as a root, every tool home held; ${(homeRootMs / awayMs).toFixed(2)}x the same roots with the home elsewhere (${awayMs.toFixed(3)} ms)`),
    report("isLikelySandboxDenied", denialMs, "1 MiB stdout + 1 MiB aggregated, no keyword"),
    report("explainSandboxDenial", explainMs, "1 MiB stdout, nothing to explain"),
  ];
} finally {
  await fs.rm(base, { recursive: true, force: true });
}
