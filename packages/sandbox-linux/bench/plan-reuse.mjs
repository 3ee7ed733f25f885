// What plan reuse saves a bubblewrap run's transform, for bench/run.mjs (also runnable alone:
// `node bench/plan-reuse.mjs` after the build): the transform of `bash -c true` in a git workspace
// with HOME beside it (under /var/tmp, outside /tmp's writable root, as on a user's machine), with
// reuse on and off, interleaved round by round; once with a pause before each transform (as a
// pre-warmed call finds it: caches cold) and once back to back. Also the reads a reused view checks.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseSandboxPolicy, recordObservations } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, probeLinuxSandbox } from "../dist/index.js";

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Prints the medians and the ratio; resolves to nothing (no target of its own: the CLI bench has the call's). */
export async function benchPlanReuse({ runs }) {
  const report = await probeLinuxSandbox();
  if (report.level !== "full") {
    console.log(`\n[plan reuse] SKIP: bubblewrap cannot run here (${report.reasons.join("; ")})`);
    return;
  }
  const root = mkdtempSync(path.join(existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir(), "sg-bench-reuse-"));
  const ws = path.join(root, "work");
  const home = path.join(root, "home");
  mkdirSync(ws);
  mkdirSync(home);
  spawnSync("git", ["init", "-q", ws], { stdio: "ignore" });
  const savedHome = process.env.HOME;
  process.env.HOME = home;
  try {
    const policy = parseSandboxPolicy({ mode: "workspace-write" });
    const spec = { argv: ["bash", "-c", "true"], cwd: ws, env: { PATH: "/usr/bin:/bin", HOME: home } };
    const backends = {
      on: createLinuxSandboxBackend({ placeholders: "per-session", planReuse: "on" }),
      off: createLinuxSandboxBackend({ placeholders: "per-session", planReuse: "off" }),
    };
    const transform = async (backend) => {
      const start = performance.now();
      const env = await backend.transform(spec, policy, { sandboxPolicyCwd: ws });
      const ms = performance.now() - start;
      await env.cleanup?.();
      return ms;
    };
    for (const backend of Object.values(backends)) await transform(backend);
    console.log(`\n[plan reuse] transform of bash -c true (git workspace, HOME beside it), medians of ${runs} interleaved rounds:`);
    for (const [label, pause] of [["250 ms pause before each", 250], ["back to back", 0]]) {
      const times = { on: [], off: [] };
      for (let i = 0; i < runs; i++) {
        for (const which of i % 2 ? ["on", "off"] : ["off", "on"]) {
          if (pause) await sleep(pause);
          times[which].push(await transform(backends[which]));
        }
      }
      const on = median(times.on);
      const off = median(times.off);
      console.log(`  ${label}: reuse on ${on.toFixed(2)} ms, off ${off.toFixed(2)} ms, on/off ${(on / off).toFixed(2)}x (saved ${(off - on).toFixed(2)} ms)`);
    }
    // What a reused view checks, against what computing it reads.
    const reads = async (backend) => {
      const stop = recordObservations();
      await transform(backend);
      return stop().list.length;
    };
    const computed = await reads(backends.off);
    const reused = await reads(backends.on);
    console.log(`  observed reads per transform: ${computed} computing the view; ${reused} besides the view when it is reused (its ${computed - reused} are checked again instead, each distinct one once)`);
  } finally {
    process.env.HOME = savedHome;
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchPlanReuse({ runs: Number(process.env.BENCH_RUNS ?? 40) });
