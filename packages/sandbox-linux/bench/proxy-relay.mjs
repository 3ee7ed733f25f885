// The proxy relay's cost, for bench/run.mjs: 100 MB through the relay (sandboxed curl → relay →
// unix socket) against the same 100 MB over host loopback TCP (curl → server), and the median time
// of a small request (connect, request, answer, close) through the relay against the same request
// made directly. The server is one node process answering on both, so both paths share its cost.
// Targets: >= 50 % of loopback throughput, <= 2 ms added per small request. Never fails on timing.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseSandboxPolicy } from "@shellgate/sandbox";

const CURL = "/usr/bin/curl";
const PYTHON = "/usr/bin/python3";

const bodies = new Map();
const bodyOf = (n) => {
  if (!bodies.has(n)) bodies.set(n, Buffer.alloc(n, 0x78));
  return bodies.get(n);
};

function serve(socket) {
  let head = Buffer.alloc(0);
  socket.on("error", () => undefined);
  socket.on("data", function onData(d) {
    head = Buffer.concat([head, d]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) return;
    socket.off("data", onData);
    const line = head.subarray(0, head.indexOf("\r\n")).toString("latin1");
    const big = /\/bytes\/(\d+) /.exec(line);
    const body = big ? bodyOf(Number(big[1])) : Buffer.from("ok");
    socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
    socket.end(body);
  });
}

function listen(server, ...args) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(...args, () => resolve());
  });
}

function output(argv, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], ...opts });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`${argv[0]} exited ${code}: ${err.trim()}`))));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Sequential small requests, one connection each; prints one duration in ms per line. */
const latencyScript = (host, port, n) => [
  "import socket, time",
  "out = []",
  `for i in range(${n}):`,
  "    t = time.perf_counter()",
  `    s = socket.create_connection(('${host}', ${port}))`,
  "    s.sendall(b'GET http://small.test/ HTTP/1.1\\r\\nHost: small.test\\r\\n\\r\\n')",
  "    data = b''",
  "    while True:",
  "        chunk = s.recv(65536)",
  "        if not chunk: break",
  "        data += chunk",
  "    s.close()",
  "    out.append((time.perf_counter() - t) * 1000)",
  "print('\\n'.join('%.4f' % x for x in out))",
].join("\n");

/**
 * Prints the figures; returns whether both targets were met (undefined when not measured).
 * @param backend a Linux sandbox backend
 */
export async function benchProxyRelay(backend, { runs = 0 } = {}) {
  if (!existsSync(CURL) || !existsSync(PYTHON)) {
    console.log(`\n[proxy relay] SKIP: needs ${CURL} and ${PYTHON}`);
    return undefined;
  }
  const base = mkdtempSync(path.join(existsSync("/var/tmp") ? "/var/tmp" : os.homedir(), "sg-bench-proxy-"));
  const ws = path.join(base, "ws");
  const servers = [net.createServer(serve), net.createServer(serve), net.createServer(serve)];
  try {
    mkdirSync(ws);
    const httpSocket = path.join(base, "http.sock");
    const socksSocket = path.join(base, "socks.sock");
    await listen(servers[0], httpSocket);
    await listen(servers[1], socksSocket);
    await listen(servers[2], 0, "127.0.0.1");
    const port = servers[2].address().port;
    const policy = parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true });
    const route = { transport: "unix-socket", httpSocket, socksSocket };
    const env = { PATH: "/usr/bin:/bin", LANG: "C" };
    const sandboxed = async (argv) => {
      const execEnv = await backend.transform({ argv, cwd: ws, env }, policy, { sandboxPolicyCwd: ws, networkProxy: route });
      try {
        return await output(execEnv.argv, { cwd: ws, env: execEnv.env });
      } finally {
        await execEnv.cleanup?.();
      }
    };

    // throughput, as curl measures it (the sandbox's start is not part of it)
    const size = 100 * 1024 * 1024;
    const speed = ["-sS", "-o", "/dev/null", "-w", "%{speed_download} %{size_download}"];
    const parse = (out) => {
      const [bps, bytes] = out.trim().split(" ").map(Number);
      if (bytes !== size) throw new Error(`received ${bytes} of ${size} bytes`);
      return bps / 1e6;
    };
    const direct = [];
    const relayed = [];
    const reps = runs || 3;
    for (let i = 0; i < reps; i++) {
      direct.push(parse(await output([CURL, ...speed, `http://127.0.0.1:${port}/bytes/${size}`], { env })));
      relayed.push(parse(await sandboxed([CURL, ...speed, "-x", "http://127.0.0.1:3128", `http://big.test/bytes/${size}`])));
    }
    const mbDirect = median(direct);
    const mbRelay = median(relayed);
    const ratio = mbRelay / mbDirect;
    const okThroughput = ratio >= 0.5;
    console.log(`\n[proxy relay] 100 MB, ${reps} runs each (median): loopback TCP ${mbDirect.toFixed(0)} MB/s, through the relay ${mbRelay.toFixed(0)} MB/s`);
    console.log(`  ratio ${(ratio * 100).toFixed(0)} % vs target >= 50 %: ${okThroughput ? "OK" : "UNDER"}`);

    // latency of a small request, one connection each
    const n = runs || 200;
    const times = (out) => out.trim().split("\n").map(Number);
    const directMs = median(times(await output([PYTHON, "-c", latencyScript("127.0.0.1", port, n)], { env })));
    const relayMs = median(times(await sandboxed([PYTHON, "-c", latencyScript("127.0.0.1", 3128, n)])));
    const added = relayMs - directMs;
    const okLatency = added <= 2;
    console.log(`  small request (connect, request, answer, close), ${n} each (median): direct ${directMs.toFixed(3)} ms, through the relay ${relayMs.toFixed(3)} ms`);
    console.log(`  added ${added.toFixed(3)} ms vs target <= 2 ms: ${okLatency ? "OK" : "OVER"}`);
    return okThroughput && okLatency;
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(() => r()))));
    rmSync(base, { recursive: true, force: true });
  }
}
