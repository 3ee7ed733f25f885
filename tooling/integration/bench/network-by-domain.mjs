// Network by domain end to end: a 100 MB download and small requests from inside the real Linux
// sandbox, through the relay in its network namespace and the orchestrator's per-run proxy, against
// the same requests made directly on the host loopback, in the same run. Targets: the
// download at >= 50 % of the direct throughput, <= 2 ms median added per small request. Prints
// figures and ratios; never fails on timing. Needs curl. Run after building:
// `npm run bench -w @shellgate/integration-tests`.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { Orchestrator } from "@shellgate/orchestrator";
import { createLinuxSandboxBackend, locateHelper } from "@shellgate/sandbox-linux";

const run = promisify(execFile);
const SIZE = 100 * 1024 * 1024;
const SMALL = 100;
const ROUNDS = Number(process.env.BENCH_RUNS ?? 3);
const chunk = Buffer.alloc(1024 * 1024, 97);

const server = http.createServer((req, res) => {
  if (req.url === "/big") {
    res.writeHead(200, { "content-length": String(SIZE) });
    let sent = 0;
    const more = () => {
      while (sent < SIZE) {
        sent += chunk.length;
        if (!res.write(chunk)) return res.once("drain", more);
      }
      res.end();
    };
    return more();
  }
  res.end("ok\n");
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = server.address().port;

const dir = await mkdtemp("/var/tmp/shellgate-net-bench-");
const home = path.join(dir, "home");
const work = path.join(dir, "work");
const sockets = path.join(dir, "sockets");
await Promise.all([mkdir(home), mkdir(work), mkdir(sockets, { mode: 0o700 })]);
const orch = await Orchestrator.create({
  cwd: work,
  hostEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" },
  sandboxBackends: [createLinuxSandboxBackend()],
  approvalPolicy: "never",
  network: { allow: ["origin.test"] },
  networkResolver: async () => [{ address: "127.0.0.1", family: 4 }],
  networkSocketDir: sockets,
  // As the CLI wires it: bulk CONNECT/SOCKS5 tunnels handed to the helper's kernel splice loop.
  ...(locateHelper() ? { networkTunnelSplicer: locateHelper() } : {}),
});

// http:// through HTTP_PROXY is the proxy's plain forwarding path (its slowest); an https:// download
// would go through a CONNECT tunnel, which the network-proxy bench measures at about twice the speed.
const big = (host, tunnel = false) => `curl -sS ${tunnel ? "-p " : ""}-o /dev/null -w '%{speed_download}\\n' http://${host}:${port}/big`;
// One curl for all small requests: the per-request time, not a process start, is what is measured.
const small = (host) => `curl -sS -w '%{time_total}\\n' ${Array.from({ length: SMALL }, () => `-o /dev/null http://${host}:${port}/s`).join(" ")}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function sandboxed(command) {
  const r = await orch.handleToolCall({ name: "shell", payload: { type: "function", arguments: JSON.stringify({ command: ["bash", "-c", command], timeout_ms: 120_000 }) } });
  const output = JSON.parse(r.content).output;
  if (r.exitCode !== 0) throw new Error(`sandboxed run failed: ${r.content}`);
  return output.trim().split("\n").map(Number);
}
async function direct(command) {
  // Direct on the host loopback; NO_PROXY-free environment so curl does not use any proxy.
  const { stdout } = await run("bash", ["-c", command], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, maxBuffer: 1 << 20 });
  return stdout.trim().split("\n").map(Number);
}

const speeds = { direct: [], proxied: [], tunnelled: [] };
const latency = { direct: [], proxied: [] };
try {
  for (let i = 0; i < ROUNDS; i += 1) {
    speeds.direct.push((await direct(big("127.0.0.1")))[0]);
    speeds.proxied.push((await sandboxed(big("origin.test")))[0]);
    // `curl -p`: the same download through a CONNECT tunnel, as an https:// URL would go.
    speeds.tunnelled.push((await sandboxed(big("origin.test", true)))[0]);
    latency.direct.push(median(await direct(small("127.0.0.1"))));
    latency.proxied.push(median(await sandboxed(small("origin.test"))));
  }
} finally {
  await orch.close();
  server.close();
  await rm(dir, { recursive: true, force: true });
}
const mb = (bps) => (bps / 1e6).toFixed(0);
const best = (xs) => Math.max(...xs);
const ratio = best(speeds.proxied) / best(speeds.direct);
const tunnelRatio = best(speeds.tunnelled) / best(speeds.direct);
const added = (median(latency.proxied) - median(latency.direct)) * 1000;
console.log(`network by domain, end to end (curl in the Linux sandbox → relay → per-run proxy → loopback origin), best of ${ROUNDS}:`);
console.log(`  100 MB download: direct ${mb(best(speeds.direct))} MB/s, sandboxed through the proxy ${mb(best(speeds.proxied))} MB/s = ${(ratio * 100).toFixed(0)} % (target >= 50 %: ${ratio >= 0.5 ? "met" : "MISSED"})`);
console.log(`  the same through a CONNECT tunnel (as https:// goes; handed to the native splicer after 1 MiB${locateHelper() ? "" : " — no helper built, so in JS"}): ${mb(best(speeds.tunnelled))} MB/s = ${(tunnelRatio * 100).toFixed(0)} % (target >= 50 %: ${tunnelRatio >= 0.5 ? "met" : "MISSED"})`);
console.log(`  small request, median of ${SMALL} x ${ROUNDS}: direct ${(median(latency.direct) * 1000).toFixed(2)} ms, through the proxy ${(median(latency.proxied) * 1000).toFixed(2)} ms, added ${added.toFixed(2)} ms (target <= 2 ms: ${added <= 2 ? "met" : "MISSED"})`);
