import { execFile, execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startNetworkProxy, type NetworkProxy, type NetworkProxyOptions, type NetworkRequestEvent, type ProxyResolver, type ProxyVerdict } from "../src/index.js";

/** The built sandbox helper (its splicer modes), found by architecture here in the tests only: the package itself knows just a path. */
export const nativeSplicer = fileURLToPath(
  new URL(`../../sandbox-linux/dist/native/linux-${process.arch === "arm64" ? "arm64" : "x64"}/shellgate-sandbox-helper`, import.meta.url),
);
/** Why the splicer tests cannot run here, or undefined. */
export const nativeSplicerSkip =
  process.platform !== "linux" ? "not Linux" : existsSync(nativeSplicer) ? undefined : "the sandbox helper is not built (npm run build in packages/sandbox-linux)";

/**
 * A stand-in splicer that records each run (a file per process), then becomes the real helper:
 * tests count the runs to prove a transfer went through the splicer, or did not.
 */
export function recordingSplicer(prefix: string): { dir: string; path: string; runCount(): number; reset(): void; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const runs = join(dir, "runs");
  mkdirSync(runs);
  const path = join(dir, "recording-splicer");
  writeFileSync(path, `#!/bin/sh\ntouch '${runs}'/$$\nexec '${nativeSplicer}' "$@"\n`);
  chmodSync(path, 0o755);
  return {
    dir,
    path,
    runCount: () => readdirSync(runs).length,
    reset: () => {
      for (const f of readdirSync(runs)) rmSync(join(runs, f));
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** An origin server on a loopback address standing in for a host on the internet; answers `<name> <path>`. */
export async function startOrigin(name: string, host = "127.0.0.1", port = 0): Promise<{ server: http.Server; port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.setHeader("content-type", "text/plain");
    res.end(`${name} ${req.url}`);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, host, () => resolve()));
  return {
    server,
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A resolver over a fixed table that counts its calls, so tests can prove who was resolved and how often. */
export function tableResolver(table: Record<string, string[]>): ProxyResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (host: string) => {
    calls.push(host);
    const addresses = table[host];
    if (addresses === undefined) throw Object.assign(new Error(`${host} not found`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: (net.isIPv6(address) ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolver, { calls });
}

/** A decide that allows `granted` by name (with `allowPrivate`, as an explicit grant does) and denies the rest with a hint. */
export function grants(...granted: string[]): (r: { host: string }) => ProxyVerdict {
  return ({ host }) =>
    granted.includes(host)
      ? { decision: "allow", allowPrivate: true }
      : { decision: "deny", reason: "no rule or grant allows this host", hint: `re-run with --allow-domain ${host}` };
}

/** Starts a loopback-tcp proxy recording its events; stopped by `stopAll`. */
export async function proxyWith(options: Partial<NetworkProxyOptions> & Pick<NetworkProxyOptions, "decide">): Promise<{ proxy: NetworkProxy; events: NetworkRequestEvent[] }> {
  const events: NetworkRequestEvent[] = [];
  const proxy = await startNetworkProxy({ listen: { transport: "loopback-tcp" }, onRequest: (e) => events.push(e), ...options });
  started.push(proxy);
  return { proxy, events };
}
const started: NetworkProxy[] = [];
export async function stopAll(): Promise<void> {
  await Promise.all(started.splice(0).map((p) => p.stop()));
}

/** Where to reach a listener: a TCP port on 127.0.0.1 or a unix socket path. */
export type Endpoint = { port?: number; socketPath?: string };
export function connectTo(endpoint: Endpoint): net.Socket {
  return endpoint.socketPath !== undefined ? net.connect(endpoint.socketPath) : net.connect(endpoint.port as number, "127.0.0.1");
}

/** Sends raw bytes and returns everything the server sent until it closed (or `ms` passed). */
export function rawExchange(endpoint: Endpoint, request: string, ms = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTo(endpoint);
    let data = "";
    const timer = setTimeout(() => { socket.destroy(); resolve(data); }, ms);
    socket.on("data", (d) => (data += d.toString("utf8")));
    socket.on("error", reject);
    socket.on("close", () => { clearTimeout(timer); resolve(data); });
    socket.write(request);
  });
}

/** A plain-HTTP request through the proxy (absolute-form target). */
export function httpViaProxy(endpoint: Endpoint, url: string): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const target = endpoint.socketPath !== undefined ? { socketPath: endpoint.socketPath } : { host: "127.0.0.1", port: endpoint.port };
    const req = http.request({ ...target, path: url, agent: false, headers: { host: new URL(url).host } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Opens a CONNECT tunnel; resolves with the status line's code, the body of a refusal, and the socket for a 200. */
export function connectViaProxy(endpoint: Endpoint, target: string): Promise<{ status: number; body: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connectTo(endpoint);
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buffer.subarray(0, end).toString("latin1");
      const status = Number(head.split(" ")[1]);
      if (status === 200) {
        socket.off("data", onData);
        socket.pause();
        if (buffer.length > end + 4) socket.unshift(buffer.subarray(end + 4));
        resolve({ status, body: "", socket });
        return;
      }
      socket.once("close", () => resolve({ status, body: buffer.subarray(end + 4).toString("utf8"), socket }));
    };
    socket.on("data", onData);
    socket.on("error", reject);
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

/** Reads from a socket until `n` bytes arrived (or it closed: then fewer). */
export function readBytes(socket: net.Socket, n: number): Promise<Buffer> {
  return new Promise((resolve) => {
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length >= n) {
        done();
        if (buffer.length > n) socket.unshift(buffer.subarray(n));
        resolve(buffer.subarray(0, n));
      }
    };
    const onClose = () => { done(); resolve(buffer); };
    // Paused again: a flowing socket with no listener would drop what arrives before the next reader.
    const done = () => { socket.off("data", onData); socket.off("close", onClose); socket.off("end", onClose); socket.pause(); };
    socket.on("data", onData);
    socket.once("close", onClose);
    socket.once("end", onClose);
    socket.resume();
  });
}

/**
 * Everything `stream` delivers, read slowly: nothing for `stallMs` first (so the kernel buffers and
 * the writer's queue fill), then a pause of `pauseMs` after every `every` chunks.
 */
export async function slowRead(stream: AsyncIterable<unknown>, stallMs: number, every: number, pauseMs: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await new Promise((resolve) => setTimeout(resolve, stallMs));
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    if (chunks.length % every === 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return Buffer.concat(chunks);
}

/** Reads everything until the other side ends. */
export function readAll(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    let data = "";
    socket.on("data", (d) => (data += d.toString("utf8")));
    socket.resume();
    socket.once("end", () => resolve(data));
    socket.once("close", () => resolve(data));
  });
}

/** A minimal SOCKS5 client (RFC 1928, no authentication): greeting, one request, the reply code. */
export async function socksRequest(
  endpoint: Endpoint,
  target: { name?: string; ipv4?: string; ipv6?: string; port: number },
  command = 1,
  early?: Buffer,
): Promise<{ reply: number; socket: net.Socket }> {
  const socket = connectTo(endpoint);
  socket.on("error", () => {});
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.write(Buffer.from([5, 1, 0]));
  const method = await readBytes(socket, 2);
  if (method[0] !== 5 || method[1] !== 0) throw new Error(`unexpected method reply ${method.toString("hex")}`);
  let address: Buffer;
  if (target.name !== undefined) address = Buffer.concat([Buffer.from([3, Buffer.byteLength(target.name)]), Buffer.from(target.name)]);
  else if (target.ipv4 !== undefined) address = Buffer.from([1, ...target.ipv4.split(".").map(Number)]);
  else address = Buffer.concat([Buffer.from([4]), ipv6ToBytes(target.ipv6 as string)]);
  socket.write(Buffer.concat([Buffer.from([5, command, 0]), address, Buffer.from([target.port >> 8, target.port & 0xff]), early ?? Buffer.alloc(0)]));
  const reply = await readBytes(socket, 10);
  if (reply.length < 10) throw new Error(`short SOCKS reply: ${reply.toString("hex")}`);
  return { reply: reply[1] as number, socket };
}

function ipv6ToBytes(address: string): Buffer {
  const [head = "", tail = ""] = address.split("::");
  const l = head ? head.split(":") : [];
  const r = tail ? tail.split(":") : [];
  const words = [...l, ...new Array(8 - l.length - r.length).fill("0"), ...r].map((w) => Number.parseInt(w, 16));
  return Buffer.from(words.flatMap((w) => [w >> 8, w & 0xff]));
}

/** A private temporary directory (0700), removed by the returned function. */
export function privateDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "np-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A self-signed certificate for `name`, made with the openssl CLI; undefined when openssl is missing. */
export function selfSignedCert(name: string): { key: string; cert: string } | undefined {
  if (!existsSync("/usr/bin/openssl")) return undefined;
  const { dir, remove } = privateDir();
  try {
    execFileSync("/usr/bin/openssl", [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
      "-days", "1", "-subj", `/CN=${name}`, "-addext", `subjectAltName=DNS:${name}`,
    ], { stdio: "ignore" });
    return { key: readFileSync(join(dir, "key.pem"), "utf8"), cert: readFileSync(join(dir, "cert.pem"), "utf8") };
  } finally {
    remove();
  }
}

/** The built package, for code run in a child process (tests run after the build). */
export const DIST_INDEX = new URL("../dist/index.js", import.meta.url).href;

/** Why a network namespace of the test's own cannot be made here (`unshare -rn` with `ip`), or undefined. */
export const netnsSkip: string | undefined = (() => {
  if (process.platform !== "linux") return "not Linux";
  try {
    execFileSync("unshare", ["-rn", "ip", "link", "set", "lo", "up"], { stdio: "ignore", timeout: 10_000 });
    return undefined;
  } catch {
    return "unshare -rn (a user and network namespace) or ip is not available";
  }
})();

/**
 * Runs `code` (an ES module body; `DIST` is the built package's URL, `ADDRESSES` the list) with node
 * in a new user and network namespace whose loopback interface also holds `addresses`: servers can
 * listen on documentation or private addresses there, and nothing reaches the outside. Resolves
 * with its stdout; rejects with its stderr when it fails.
 */
export function runInNetns(addresses: readonly string[], code: string, timeoutMs = 30_000): Promise<string> {
  const setup = ["ip link set lo up", ...addresses.map((a) => `ip addr add ${a}/${a.includes(":") ? 128 : 32} dev lo`)].join(" && ");
  const body = `const DIST = ${JSON.stringify(DIST_INDEX)}; const ADDRESSES = ${JSON.stringify(addresses)};\n${code}`;
  return new Promise((resolve, reject) => {
    execFile("unshare", ["-rn", "sh", "-c", `${setup} && exec "$0" --input-type=module -e "$1"`, process.execPath, body], { timeout: timeoutMs }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}
