// Benchmarks for @shellgate/network-proxy: a loopback origin reached directly and through the proxy.
// Usage: npm run bench   (prints figures and whether the targets are met; never fails on timing)
import http from "node:http";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { startNetworkProxy } from "../dist/index.js";

const SIZE = 100 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 0x61);
const ROUNDS = 200;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const mbps = (bytes, ms) => bytes / 1e6 / (ms / 1000);
const verdict = (ok) => (ok ? "met" : "MISSED");

const origin = http.createServer((req, res) => {
  if (req.url === "/big") {
    res.writeHead(200, { "content-length": String(SIZE) });
    let left = SIZE / CHUNK.length;
    const pump = () => {
      while (left > 0) {
        left--;
        if (!res.write(CHUNK)) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  } else {
    res.end("ok");
  }
});
await new Promise((resolve) => origin.listen(0, "127.0.0.1", resolve));
const port = origin.address().port;

// The bench's origin is on loopback, so the grant carries allowPrivate, as an explicit grant does.
const proxy = await startNetworkProxy({
  listen: { transport: "loopback-tcp" },
  decide: () => ({ decision: "allow", allowPrivate: true }),
  resolver: async () => [{ address: "127.0.0.1", family: 4 }],
});

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
const viaHttp = (path) => get({ host: "127.0.0.1", port: proxy.endpoints.http.port, path: `http://origin.test:${port}${path}`, headers: { host: `origin.test:${port}` } });

/** Opens a byte stream to the origin through CONNECT or SOCKS5, sends a GET and counts the body. */
function viaTunnel(kind, path) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect(kind === "connect" ? proxy.endpoints.http.port : proxy.endpoints.socks.port, "127.0.0.1");
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

console.log("network-proxy bench (loopback origin; 100 MB download, then 200 small requests)");
console.log("\nthroughput (best of 3):");
const best = async (run) => {
  let top = 0;
  for (let i = 0; i < 3; i++) {
    const { bytes, ms } = await run();
    if (bytes < SIZE) throw new Error(`short download: ${bytes} bytes`);
    top = Math.max(top, mbps(SIZE, ms));
  }
  return top;
};
const base = await best(() => direct("/big"));
console.log(`  direct            ${base.toFixed(0)} MB/s`);
for (const [name, run] of [["plain HTTP", () => viaHttp("/big")], ["CONNECT", () => viaTunnel("connect", "/big")], ["SOCKS5", () => viaTunnel("socks", "/big")]]) {
  const rate = await best(run);
  const ratio = rate / base;
  console.log(`  ${name.padEnd(17)} ${rate.toFixed(0)} MB/s  = ${(ratio * 100).toFixed(0)} % of direct (target >= 50 %: ${verdict(ratio >= 0.5)})`);
}

console.log(`\nlatency, median of ${ROUNDS} small requests (a new connection each, direct and through the proxy):`);
const sample = async (run) => {
  for (let i = 0; i < 20; i++) await run();
  const times = [];
  for (let i = 0; i < ROUNDS; i++) times.push((await run()).ms);
  return median(times);
};
const d = await sample(() => direct("/small"));
console.log(`  direct            ${d.toFixed(3)} ms`);
for (const [name, run] of [["plain HTTP", () => viaHttp("/small")], ["CONNECT", () => viaTunnel("connect", "/small")], ["SOCKS5", () => viaTunnel("socks", "/small")]]) {
  const m = await sample(run);
  console.log(`  ${name.padEnd(17)} ${m.toFixed(3)} ms  added ${(m - d).toFixed(3)} ms (target <= 2 ms: ${verdict(m - d <= 2)})`);
}

await proxy.stop();
origin.close();
