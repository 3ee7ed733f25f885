// End-to-end latency of the CLI, as a person or an agent host feels it. Prints medians, the ratio
// against Codex's `codex sandbox -- /bin/true` (the closest published peer: one sandboxed command),
// and the targets: `exec` within 20 ms of `sandbox` (policy, config and approval cost little on top
// of the sandbox), `sandbox` no slower than Codex's. The three are run interleaved, so a change in
// the machine's load hits them alike. Run after building: `npm run bench -w @shellgate/cli`;
// Codex is looked for at /opt/codex (npm install @openai/codex there) and skipped when absent.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

// The committed launcher, as npm links it: runs the bundle (dist/bundle/) when built, else dist/bin/.
const BIN = fileURLToPath(new URL("../bin/shellgate.js", import.meta.url));
const CODEX = "/opt/codex/node_modules/.bin/codex";
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TARGETS = { version: 150, mcpCall: 100 };

const root = mkdtempSync(path.join(os.tmpdir(), "sg-bench-"));
// The commands run in a project directory of their own: a workspace that contains HOME is refused.
const work = path.join(root, "work");
mkdirSync(work);
const env = { PATH: process.env.PATH, HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "xdg"), SHELL: "/bin/bash" };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function time(cmd, args, extraEnv = env, cwd = work) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { env: extraEnv, cwd, stdio: "ignore" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}`);
  return performance.now() - t;
}
function report(name, ms, target, peer) {
  const verdict = ms <= target ? "OK" : "over target";
  target = Number.isFinite(target) ? Math.round(target) : "-";
  const vsPeer = peer ? `, ${(ms / peer).toFixed(2)}× codex (${peer.toFixed(0)} ms)` : "";
  console.log(`${name.padEnd(34)} median ${ms.toFixed(0).padStart(5)} ms vs target ${target} ms: ${verdict}${vsPeer}`);
}

try {
  const bare = median(Array.from({ length: RUNS }, () => time(process.execPath, ["-e", "0"])));
  const version = median(Array.from({ length: RUNS }, () => time(process.execPath, [BIN, "--version"])));
  // Codex refuses to set up its helper under /tmp, so its home lives under /var/tmp.
  const codexHome = existsSync(CODEX) ? mkdtempSync("/var/tmp/sg-bench-codex-") : undefined;
  const samples = { sandbox: [], exec: [], codex: [] };
  try {
    // One warm-up round (the sandbox's capability probe is cached on disk after the first run).
    for (let i = -1; i < RUNS * 2; i++) {
      const s = time(process.execPath, [BIN, "sandbox", "--", "/bin/true"]);
      const e = time(process.execPath, [BIN, "exec", "--", "/bin/true"]);
      let c;
      if (codexHome && samples.codex !== undefined) {
        try {
          c = time(CODEX, ["sandbox", "--", "/bin/true"], { ...env, HOME: codexHome });
        } catch (error) {
          console.log(`codex sandbox unavailable here: ${error.message}`);
          samples.codex = undefined;
        }
      }
      if (i < 0) continue;
      samples.sandbox.push(s);
      samples.exec.push(e);
      if (c !== undefined) samples.codex?.push(c);
    }
  } finally {
    if (codexHome) rmSync(codexHome, { recursive: true, force: true });
  }
  const sandbox = median(samples.sandbox);
  const exec = median(samples.exec);
  const peer = samples.codex?.length ? median(samples.codex) : undefined;
  console.log(`${"node -e 0 (bare start-up)".padEnd(34)} median ${bare.toFixed(0).padStart(5)} ms`);
  report("shellgate --version (start-up)", version, TARGETS.version);
  report("shellgate sandbox -- /bin/true", sandbox, peer ?? Infinity, peer);
  if (peer === undefined) console.log("  (no codex at /opt/codex: the sandbox-vs-codex target was not measured)");
  report("shellgate exec -- /bin/true", exec, sandbox + 20, peer);
  console.log(`  exec - sandbox: ${(exec - sandbox).toFixed(0)} ms (target ≤ 20 ms)`);

  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], env, cwd: work, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1" });
  const t0 = performance.now();
  await client.connect(transport);
  await client.listTools();
  const ready = performance.now() - t0;
  await client.callTool({ name: "shell_command", arguments: { command: "true", login: false } });
  const calls = [];
  for (let i = 0; i < RUNS * 2; i++) {
    const t = performance.now();
    await client.callTool({ name: "shell_command", arguments: { command: "true", login: false } });
    calls.push(performance.now() - t);
  }
  await client.close();
  console.log(`${"mcp: spawn to tools/list".padEnd(34)} ${ready.toFixed(0).padStart(12)} ms (no target)`);
  report("mcp: shell_command `true` (warm)", median(calls), TARGETS.mcpCall);
  const load = os.loadavg()[0];
  console.log(`(load average ${load.toFixed(1)} on ${os.cpus().length} cores; figures scale with it)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
