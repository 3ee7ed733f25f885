// End-to-end latency of the CLI, as a person or an agent host feels it. Prints medians, the ratio
// against Codex's `codex sandbox -- true` (the closest published peer: one sandboxed command), and the
// targets. Run after building: `npm run bench -w @shellgate/cli`. Takes well under a minute.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

// The committed launcher, as npm links it: runs the bundle (dist/bundle/) when built, else dist/bin/.
const BIN = fileURLToPath(new URL("../bin/shellgate.js", import.meta.url));
const CODEX = "/opt/codex/node_modules/.bin/codex";
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const TARGETS = { version: 150, exec: 600, mcpCall: 100 };

const root = mkdtempSync(path.join(os.tmpdir(), "sg-bench-"));
const env = { PATH: process.env.PATH, HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "xdg"), SHELL: "/bin/bash" };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function time(cmd, args, extraEnv = env, cwd = root) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { env: extraEnv, cwd, stdio: "ignore" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}`);
  return performance.now() - t;
}
function report(name, ms, target, peer) {
  const verdict = ms <= target ? "OK" : "over target";
  const vsPeer = peer ? `, ${(ms / peer).toFixed(2)}× codex (${peer.toFixed(0)} ms)` : "";
  console.log(`${name.padEnd(34)} median ${ms.toFixed(0).padStart(5)} ms vs target ${target} ms: ${verdict}${vsPeer}`);
}

try {
  const version = median(Array.from({ length: RUNS }, () => time(process.execPath, [BIN, "--version"])));
  const exec = median(Array.from({ length: RUNS }, () => time(process.execPath, [BIN, "exec", "--", "true"])));
  let peer;
  if (existsSync(CODEX)) {
    // Codex refuses to set up its helper under /tmp, so its home lives under /var/tmp.
    const codexHome = mkdtempSync("/var/tmp/sg-bench-codex-");
    try {
      peer = median(Array.from({ length: RUNS }, () => time(CODEX, ["sandbox", "--", "true"], { ...env, HOME: codexHome })));
    } catch (error) {
      console.log(`codex sandbox unavailable here: ${error.message}`);
    } finally {
      rmSync(codexHome, { recursive: true, force: true });
    }
  }
  report("shellgate --version (start-up)", version, TARGETS.version);
  report("shellgate exec -- true (sandboxed)", exec, TARGETS.exec, peer);

  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "mcp"], env, cwd: root, stderr: "ignore" });
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
