// Benchmarks for @shellgate/network-proxy: a loopback origin reached directly and through the proxy.
// Usage: npm run bench   (prints figures and whether the targets are met; never fails on timing)
import http from "node:http";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SIZE = 100 * 1024 * 1024;
const ROUNDS = 200;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mbps = (bytes, ms) => bytes / 1e6 / (ms / 1000);
const verdict = (ok) => (ok ? "met" : "MISSED");

// Origin, proxy and client each in their own process, as in use: one event loop doing all three
// would measure the loop's share of a core, not the proxy.
const here = fileURLToPath(new URL(".", import.meta.url));
const child = (file, env = {}) =>
  new Promise((resolve, reject) => {
    const c = fork(join(here, file), { env: { ...process.env, BENCH_SIZE: String(SIZE), ...env } });
    c.once("message", (m) => resolve([c, m])).once("error", reject);
  });
const [originProcess, { port }] = await child("origin.mjs");
const [proxyProcess, endpoints] = await child("proxy-host.mjs");
const proxy = { endpoints };
// The sandbox helper's --splice mode, when this checkout has built it: a second proxy hands bulk
// tunnels to it, so the same run shows the tunnel modes with and without the splicer.
const splicer = join(here, "..", "..", "sandbox-linux", "dist", "native", `linux-${process.arch === "arm64" ? "arm64" : "x64"}`, "shellgate-sandbox-helper");
const withSplicer = process.platform === "linux" && existsSync(splicer);
const [splicedProcess, splicedEndpoints] = withSplicer ? await child("proxy-host.mjs", { BENCH_SPLICER: splicer }) : [undefined, undefined];
const cpuOf = (c) =>
  new Promise((resolve) => {
    const on = (m) => {
      if (m?.cpu === undefined) return;
      c.off("message", on);
      resolve((m.cpu.user + m.cpu.system) / 1000);
    };
    c.on("message", on);
    c.send("cpu");
  });
const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function get(options) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get({ agent: false, ...options }, (res) => {
      let bytes = 0;
      res.on("data", (d) => (bytes += d.length));
      res.on("end", () => resolve({ bytes, ms: performance.now() - started }));
    });
    req.on("error", reject);
  });
}
const direct = (path) => get({ host: "127.0.0.1", port, path });
const viaHttp = (path, via = proxy.endpoints) => get({ host: "127.0.0.1", port: via.http.port, path: `http://origin.test:${port}${path}`, headers: { host: `origin.test:${port}` } });

/** Opens a byte stream to the origin through CONNECT or SOCKS5, sends a GET and counts the body. */
function viaTunnel(kind, path, via = proxy.endpoints) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(kind === "connect" ? via.http.port : via.socks.port, "127.0.0.1");
    let stage = 0;
    let bytes = 0;
    let head = Buffer.alloc(0);
    const request = `GET ${path} HTTP/1.1\r\nHost: origin.test\r\nConnection: close\r\n\r\n`;
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      if (stage === 2) return void (bytes += chunk.length);
      head = Buffer.concat([head, chunk]);
      if (kind === "connect") {
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        stage = 2;
        bytes += head.length - end - 4;
        socket.write(request);
      } else if (stage === 0 && head.length >= 2) {
        stage = 1;
        head = head.subarray(2);
        const name = Buffer.from("origin.test");
        socket.write(Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, Buffer.from([port >> 8, port & 0xff])]));
      }
      if (stage === 1 && head.length >= 10) {
        stage = 2;
        bytes += head.length - 10;
        socket.write(request);
      }
    });
    socket.on("close", () => resolve({ bytes, ms: performance.now() - started }));
    if (kind === "connect") socket.write(`CONNECT origin.test:${port} HTTP/1.1\r\nHost: origin.test:${port}\r\n\r\n`);
    else socket.write(Buffer.from([5, 1, 0]));
  });
}

// [name, run, the process doing the proxying (for its CPU)]
const modes = [
  ["direct", (path) => direct(path), proxyProcess],
  ["plain HTTP", (path) => viaHttp(path), proxyProcess],
  ["CONNECT", (path) => viaTunnel("connect", path), proxyProcess],
  ["SOCKS5", (path) => viaTunnel("socks", path), proxyProcess],
  ...(withSplicer
    ? [
        ["plain HTTP+splicer", (path) => viaHttp(path, splicedEndpoints), splicedProcess],
        ["CONNECT+splicer", (path) => viaTunnel("connect", path, splicedEndpoints), splicedProcess],
        ["SOCKS5+splicer", (path) => viaTunnel("socks", path, splicedEndpoints), splicedProcess],
      ]
    : []),
];
// Rounds interleave the modes, so that load from elsewhere on the machine (it drifts) falls on all of them alike.
async function interleaved(rounds, path, check) {
  const samples = new Map(modes.map(([name]) => [name, []]));
  const cpu = new Map(modes.map(([name]) => [name, { client: 0, proxy: 0, origin: 0 }]));
  for (let i = 0; i < rounds; i++) {
    for (const [name, run, host] of modes) {
      const before = [selfCpu(), await cpuOf(host), await cpuOf(originProcess)];
      const result = await run(path);
      // A splicer's CPU is counted once it has been reaped: give its exit a moment to arrive.
      if (host === splicedProcess && path === "/big") await new Promise((resolve) => setTimeout(resolve, 20));
      const after = [selfCpu(), await cpuOf(host), await cpuOf(originProcess)];
      check?.(result);
      samples.get(name).push(result.ms);
      const c = cpu.get(name);
      c.client += after[0] - before[0];
      c.proxy += after[1] - before[1];
      c.origin += after[2] - before[2];
    }
  }
  samples.cpu = cpu;
  return samples;
}

console.log(`network-proxy bench: origin, proxy and client in separate processes on loopback (load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}, ${cpus().length} CPUs)`);
console.log(withSplicer ? `tunnel modes also with tunnelSplicer = ${splicer}` : "no sandbox helper built: the tunnel modes run without a splicer only");

console.log("\nthroughput, 100 MB download, best of 5 interleaved rounds (the median of the 5 in brackets):");
const downloads = await interleaved(5, "/big", ({ bytes }) => {
  if (bytes < SIZE) throw new Error(`short download: ${bytes} bytes`);
});
const rate = (name) => mbps(SIZE, Math.min(...downloads.get(name)));
const typical = (name) => mbps(SIZE, median(downloads.get(name)));
const base = rate("direct");
const typicalBase = typical("direct");
console.log(`  direct             ${base.toFixed(0)} MB/s  [${typicalBase.toFixed(0)} MB/s]`);
for (const [name] of modes.slice(1)) {
  const r = rate(name);
  const m = typical(name);
  console.log(`  ${name.padEnd(18)} ${r.toFixed(0)} MB/s  = ${((r / base) * 100).toFixed(0)} % of direct (target >= 50 %: ${verdict(r / base >= 0.5)})  [${m.toFixed(0)} MB/s = ${((m / typicalBase) * 100).toFixed(0)} %]`);
}

console.log("\nCPU time per 100 MB download, mean of the rounds (ms, all threads; less distorted by load from elsewhere than wall time):");
const clientDirect = downloads.cpu.get("direct").client / 5;
for (const [name] of modes) {
  const c = downloads.cpu.get(name);
  const proxyNote = name === "direct" ? "" : `  (proxy = ${(c.proxy / 5 / clientDirect).toFixed(1)} x the direct client)`;
  console.log(`  ${name.padEnd(18)} client ${(c.client / 5).toFixed(0).padStart(5)}  proxy ${(c.proxy / 5).toFixed(0).padStart(5)}  origin ${(c.origin / 5).toFixed(0).padStart(5)}${proxyNote}`);
}

console.log(`\nlatency, median of ${ROUNDS} small requests per mode, interleaved (a new connection each, direct and through the proxy):`);
await interleaved(20, "/small");
const small = await interleaved(ROUNDS, "/small");
const d = median(small.get("direct"));
console.log(`  direct             ${d.toFixed(3)} ms`);
for (const [name] of modes.slice(1)) {
  const m = median(small.get(name));
  console.log(`  ${name.padEnd(18)} ${m.toFixed(3)} ms  added ${(m - d).toFixed(3)} ms (target <= 2 ms: ${verdict(m - d <= 2)})`);
}

proxyProcess.disconnect();
splicedProcess?.disconnect();
originProcess.disconnect();
