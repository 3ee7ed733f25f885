#!/usr/bin/env node
// Benchmarks for @shellgate/execpolicy (run `npm run build` first; `npm run bench`).
//  1. evaluations per second on a 1,000-rule policy       (target >= 1,000,000/s)
//  2. compiling a 10,000-rule file                          (target <= 150 ms)
//  3. policy-check one-command median wall vs `codex execpolicy check` in the same run (target <= 0.5x)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parsePolicy } from "../dist/index.js";

const CODEX = process.env.CODEX_BIN ?? "/opt/codex/node_modules/.bin/codex";
// The committed launcher users run (npm links it): it runs the CLI bundle (cli/dist/bundle/) when built.
const POLICY_CHECK = fileURLToPath(new URL("../../cli/bin/policy-check.js", import.meta.url));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const verdict = (ok) => (ok ? "OK" : "MISSED");
const programs = ["git", "npm", "cargo", "go", "docker", "kubectl", "python3", "node", "make", "ls", "cat", "rm", "curl", "gh", "yarn"];

function generateRules(n) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const prog = i < programs.length * 4 ? programs[i % programs.length] : `tool${i % 400}`;
    const decision = ["allow", "prompt", "forbidden"][i % 3];
    const tail = i % 5 === 0 ? `["sub${i % 7}", "opt${i % 11}"]` : i % 5 === 1 ? `"sub${i}"` : `"sub${i % 13}", "x${i}"`;
    lines.push(`prefix_rule(pattern=["${prog}", ${tail}], decision="${decision}"${i % 4 === 0 ? `, justification="rule ${i}"` : ""})`);
  }
  return lines.join("\n") + "\n";
}

// 1. evaluations per second
{
  const policy = parsePolicy([{ path: "bench.rules", source: generateRules(1000) }]);
  const commands = [];
  for (let i = 0; i < 1000; i++) {
    const prog = i % 3 === 0 ? programs[i % programs.length] : `tool${i % 500}`;
    commands.push([prog, `sub${i % 13}`, `x${i}`, "--flag", "value"]);
    commands.push([prog, `sub${i % 7}`, `opt${i % 11}`]);
  }
  let matched = 0;
  for (const c of commands) if (policy.evaluate(c).decision) matched++;
  const deadline = performance.now() + 1500;
  let n = 0;
  const t0 = performance.now();
  while (performance.now() < deadline) {
    for (let i = 0; i < commands.length; i++) policy.evaluate(commands[i]);
    n += commands.length;
  }
  const rate = n / ((performance.now() - t0) / 1000);
  console.log(`evaluate: ${Math.round(rate).toLocaleString("en-US")} evaluations/s on a 1,000-rule policy (${matched}/${commands.length} commands match) vs target 1,000,000/s: ${(rate / 1e6).toFixed(2)}x ${verdict(rate >= 1e6)}`);
}

// 2. compile a 10,000-rule file
{
  const source = generateRules(10_000);
  const t0 = performance.now();
  parsePolicy([{ path: "big.rules", source: generateRules(10) }]);
  const init = performance.now() - t0;
  const times = [];
  const cpu = [];
  for (let i = 0; i < 7; i++) {
    const s = performance.now();
    const c = process.cpuUsage();
    const p = parsePolicy([{ path: "big.rules", source }]);
    const u = process.cpuUsage(c);
    times.push(performance.now() - s);
    cpu.push((u.user + u.system) / 1000);
    if (p.rules.length !== 10_000) throw new Error("bad rule count");
  }
  const m = median(times);
  console.log(`compile: 10,000-rule file (${(source.length / 1024).toFixed(0)} KiB) median ${m.toFixed(1)} ms wall (CPU ${median(cpu).toFixed(1)} ms; first run ${times[0].toFixed(1)} ms) over 7 runs (a first small file took ${init.toFixed(1)} ms) vs target 150 ms: ${(m / 150).toFixed(2)}x ${verdict(m <= 150)}`);
  // The same file through the full chevrotain parser + interpreter (what a hand-written file of this size costs).
  const full = [];
  for (let i = 0; i < 3; i++) {
    const s = performance.now();
    parsePolicy([{ path: "big.rules", source }], { fastPath: false });
    full.push(performance.now() - s);
  }
  console.log(`compile without the literal-calls fast path (chevrotain lexer+parser+interpreter): median ${median(full).toFixed(1)} ms`);
}

// 3. policy-check vs codex, one command, same run, interleaved
{
  const dir = mkdtempSync(join(tmpdir(), "execpolicy-bench-"));
  try {
    const rules = join(dir, "default.rules");
    writeFileSync(rules, 'prefix_rule(pattern=["git", "push"], decision="forbidden", justification="pushing is blocked")\nprefix_rule(pattern=["git", ["status", "log"]])\n' + generateRules(200));
    const cmd = ["--rules", rules, "--", "git", "push", "origin", "main"];
    if (!existsSync(fileURLToPath(new URL("../../cli/dist/bin/policy-check.js", import.meta.url)))) {
      console.log(`policy-check: ${POLICY_CHECK} not built; run \`npx tsc -b packages/cli\` first. Skipped.`);
    } else {
      const env = { ...process.env, SHELLGATE_POLICY_CACHE_DIR: join(dir, "cache") };
      const ours = () => spawnSync(process.execPath, [POLICY_CHECK, ...cmd], { env, encoding: "utf8" });
      const oursNoCache = () => spawnSync(process.execPath, [POLICY_CHECK, ...cmd], { env: { ...env, SHELLGATE_POLICY_CACHE: "off" }, encoding: "utf8" });
      const haveCodex = existsSync(CODEX);
      const codex = () => spawnSync(CODEX, ["execpolicy", "check", ...cmd], { encoding: "utf8" });
      const first = ours();
      if (first.status !== 0) throw new Error(`policy-check failed: ${first.stderr}`);
      if (haveCodex) {
        const ref = codex();
        console.log(`policy-check output ${ref.stdout === first.stdout ? "matches" : "DIFFERS FROM"} codex: ${first.stdout.trim()}`);
      }
      const runs = Number(process.env.BENCH_RUNS ?? 15);
      const tOurs = [], tOursCold = [], tCodex = [];
      const time = (f, into) => { const s = performance.now(); const r = f(); into.push(performance.now() - s); if (r.status !== 0) throw new Error(r.stderr); };
      for (let i = 0; i < runs; i++) {
        time(ours, tOurs);
        time(oursNoCache, tOursCold);
        if (haveCodex) time(codex, tCodex);
      }
      const mo = median(tOurs), mc = median(tOursCold);
      if (haveCodex) {
        const mx = median(tCodex);
        console.log(`policy-check: median ${mo.toFixed(1)} ms (compiled-policy cache hit) vs codex execpolicy check ${mx.toFixed(1)} ms: ${(mo / mx).toFixed(2)}x vs target 0.5x ${verdict(mo / mx <= 0.5)}`);
        console.log(`policy-check without cache: median ${mc.toFixed(1)} ms: ${(mc / mx).toFixed(2)}x of codex`);
      } else {
        console.log(`policy-check: median ${mo.toFixed(1)} ms (cache hit), ${mc.toFixed(1)} ms (no cache); codex not installed at ${CODEX}, comparison skipped`);
      }
      const bare = [];
      for (let i = 0; i < runs; i++) time(() => spawnSync(process.execPath, ["-e", "0"]), bare);
      console.log(`(reference: bare \`node -e 0\` median ${median(bare).toFixed(1)} ms on this machine now)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
