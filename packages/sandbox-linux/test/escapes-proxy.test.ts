// Proxy-routed network under bubblewrap: the command reaches the session proxy (here a fake one on
// two unix sockets, standing in for the real proxy package, which backends never depend on) and
// nothing else. Every escape is tried unsandboxed first (the control). Named escapes-* so that
// tooling/unprivileged runs it again as nobody.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  InvalidSandboxPathError,
  parseSandboxPolicy,
  PROXY_ENV_NAMES,
  SandboxManager,
  SandboxProxyUnsupportedError,
  type NetworkProxyRoute,
  type SandboxBackend,
  type SandboxPolicyInput,
} from "@shellgate/sandbox";
import { createLinuxSandboxBackend, LinuxSandboxError, locateHelper } from "../src/index.js";
import { baseEnv, bwrapMissing, compileProbe, landlockMissing, makeDirs, run, sh, withoutCgroup, type RunResult } from "./support.js";

const bwrapSkip = await bwrapMissing();
const landlockSkip = await landlockMissing();
const CURL = "/usr/bin/curl";
const PYTHON = "/usr/bin/python3";
const hasIpv6 = Object.values(os.networkInterfaces()).some((list) => list?.some((i) => i.family === "IPv6" && i.internal));

/** Bytes of a socket, read as asked: whole pieces up to a delimiter or a length, or counted and dropped. */
class Reader {
  #buf: Buffer = Buffer.alloc(0);
  #ended = false;
  #wake: (() => void) | undefined;
  #skipping = 0;
  constructor(socket: net.Socket) {
    socket.on("data", (d: Buffer) => {
      if (this.#skipping > 0) {
        const n = Math.min(this.#skipping, d.length);
        this.#skipping -= n;
        d = d.subarray(n);
      }
      if (d.length > 0) this.#buf = this.#buf.length === 0 ? d : Buffer.concat([this.#buf, d]);
      this.#wake?.();
    });
    const end = () => {
      this.#ended = true;
      this.#wake?.();
    };
    socket.on("end", end);
    socket.on("error", end);
    socket.on("close", end);
  }
  async #wait(): Promise<void> {
    await new Promise<void>((resolve) => (this.#wake = resolve));
    this.#wake = undefined;
  }
  /** The next `n` bytes, or undefined at the end of the stream. */
  async take(n: number): Promise<Buffer | undefined> {
    while (this.#buf.length < n) {
      if (this.#ended) return undefined;
      await this.#wait();
    }
    const out = this.#buf.subarray(0, n);
    this.#buf = this.#buf.subarray(n);
    return out;
  }
  /** Everything up to and including `delimiter`. */
  async until(delimiter: string): Promise<string | undefined> {
    for (;;) {
      const i = this.#buf.indexOf(delimiter);
      if (i >= 0) return (await this.take(i + delimiter.length))?.toString("latin1");
      if (this.#ended) return undefined;
      await this.#wait();
    }
  }
  /** Drop the next `n` bytes without keeping them; false when the stream ends first. */
  async skip(n: number): Promise<boolean> {
    const now = Math.min(n, this.#buf.length);
    this.#buf = this.#buf.subarray(now);
    this.#skipping = n - now;
    while (this.#skipping > 0) {
      if (this.#ended) return false;
      await this.#wait();
    }
    return true;
  }
}

function answer(socket: net.Socket, body: string | Buffer): void {
  const data = typeof body === "string" ? Buffer.from(body) : body;
  socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${data.length}\r\nConnection: close\r\n\r\n`);
  socket.end(data);
}

/**
 * One HTTP exchange as a proxy would see it: `GET http://big.test/bytes/N` streams N bytes, a body
 * (Content-Length) is counted, `CONNECT host:port` opens a tunnel whose next request is answered
 * the same way; anything else is answered with the request line it received.
 */
async function serveHttp(socket: net.Socket, reader: Reader, label: string, seen: string[]): Promise<void> {
  const head = await reader.until("\r\n\r\n");
  if (!head) return void socket.destroy();
  const line = head.split("\r\n")[0] ?? "";
  seen.push(`${label}${line}`);
  const [method, target] = line.split(" ");
  if (method === "CONNECT") {
    socket.write("HTTP/1.1 200 Connection established\r\n\r\n");
    return serveHttp(socket, reader, `${label}tunnel to ${target} saw `, seen);
  }
  const big = /\/bytes\/(\d+)$/.exec(target ?? "");
  if (big) return answer(socket, Buffer.alloc(Number(big[1]), 0x78));
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (length) {
    const ok = await reader.skip(Number(length[1]));
    return answer(socket, ok ? `received ${length[1]} bytes` : "short body");
  }
  answer(socket, `${label}proxy saw: ${line}`);
}

/** The SOCKS5 side: no authentication, CONNECT to a domain name (socks5h) or an IPv4 address, then HTTP. */
async function serveSocks(socket: net.Socket, reader: Reader, seen: string[]): Promise<void> {
  const greeting = await reader.take(2);
  if (!greeting || greeting[0] !== 5 || !(await reader.take(greeting[1] ?? 0))) return void socket.destroy();
  socket.write(Buffer.from([5, 0]));
  const request = await reader.take(4);
  if (!request || request[1] !== 1) return void socket.destroy();
  let host: string;
  if (request[3] === 3) {
    const len = (await reader.take(1))?.[0] ?? 0;
    host = (await reader.take(len))?.toString("latin1") ?? "";
  } else {
    host = [...((await reader.take(4)) ?? [])].join(".");
  }
  const port = (await reader.take(2))?.readUInt16BE(0);
  socket.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
  await serveHttp(socket, reader, `socks to ${host}:${port} saw `, seen);
}

interface FakeProxy {
  route: NetworkProxyRoute & { transport: "unix-socket" };
  /** Request lines the proxy received, as `[socks to H:P saw ][tunnel to H:P saw ]METHOD TARGET VERSION`. */
  seen: string[];
  connections: () => number;
  close: () => Promise<void>;
}

function listen(server: net.Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(address, () => resolve());
  });
}

/** The session proxy as the sandbox sees it: two unix sockets in `dir`. */
async function fakeProxy(dir: string): Promise<FakeProxy> {
  fs.mkdirSync(dir, { recursive: true });
  const seen: string[] = [];
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    connections++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => undefined);
  };
  const http = net.createServer((s) => {
    track(s);
    void serveHttp(s, new Reader(s), "", seen);
  });
  const socks = net.createServer((s) => {
    track(s);
    void serveSocks(s, new Reader(s), seen);
  });
  const httpSocket = path.join(dir, "http.sock");
  const socksSocket = path.join(dir, "socks.sock");
  await listen(http, httpSocket);
  await listen(socks, socksSocket);
  return {
    route: { transport: "unix-socket", httpSocket, socksSocket },
    seen,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await Promise.all([http, socks].map((srv) => new Promise((r) => srv.close(r))));
    },
  };
}

/** Listen on a host loopback port and count what reaches it; answers like a tiny web server. */
function hostTcpServer(host: string): Promise<{ server: net.Server; port: number; hits: () => number }> {
  return new Promise((resolve, reject) => {
    let hits = 0;
    const server = net.createServer((s) => {
      hits++;
      s.on("error", () => undefined);
      void serveHttp(s, new Reader(s), "host server: ", []);
    });
    server.on("error", reject);
    server.listen(0, host, () => resolve({ server, port: (server.address() as net.AddressInfo).port, hits: () => hits }));
  });
}

/** Processes on the host whose name is the relay's (`/proc/PID/comm`). */
function relayPids(): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "sg-proxy-relay") found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

const settle = (ms = 150) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(bwrapSkip !== undefined)(`proxy-routed network under bwrap+seccomp${bwrapSkip ? ` (skipped: ${bwrapSkip})` : ""}`, () => {
  const dirs = makeDirs("proxy");
  const { ws, outside } = dirs;
  const backend = createLinuxSandboxBackend();
  // /tmp is left out of the writable roots: the proxy's sockets live outside every root.
  const policyInput: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };
  const policy = parseSandboxPolicy(policyInput);
  let proxy: FakeProxy;
  let probe = "";

  beforeAll(async () => {
    proxy = await fakeProxy(path.join(outside, "proxy"));
    const compiled = compileProbe(outside);
    if (!compiled) throw new Error("the escape-probe fixture needs a C compiler (cc)");
    probe = compiled;
  });
  afterAll(async () => {
    await proxy.close();
    dirs.remove();
  });

  async function inSandbox(argv: string[], options: { route?: NetworkProxyRoute; env?: Record<string, string>; policy?: SandboxPolicyInput } = {}): Promise<RunResult & { networkMode: string | undefined }> {
    const execEnv = await backend.transform(
      { argv, cwd: ws, env: options.env ?? baseEnv() },
      parseSandboxPolicy(options.policy ?? policyInput),
      { sandboxPolicyCwd: ws, networkProxy: options.route ?? proxy.route },
    );
    try {
      return { ...(await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } })), networkMode: execEnv.networkMode };
    } finally {
      await execEnv.cleanup?.();
    }
  }
  const onHost = (argv: string[]) => run(argv, { cwd: ws });

  it("reaches the proxy through the relay: curl -x, the proxy variables, python's urllib, SOCKS5 with remote names, CONNECT", async () => {
    const r = await inSandbox(sh([
      `${CURL} -sS -x http://127.0.0.1:3128 http://anything.test/x; echo`,
      `${CURL} -sS http://plain.test/by-env; echo`,
      `${PYTHON} -c "import urllib.request; print(urllib.request.urlopen('http://python.test/z').read().decode())"`,
      `${CURL} -sS -x socks5h://127.0.0.1:1080 http://socks.test/y; echo`,
      `${CURL} -sS -p -x http://127.0.0.1:3128 http://tunnel.test/t; echo`,
    ].join("; ")));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.networkMode).toBe("proxy");
    expect(r.stdout.split("\n").filter(Boolean)).toEqual([
      "proxy saw: GET http://anything.test/x HTTP/1.1",
      "proxy saw: GET http://plain.test/by-env HTTP/1.1",
      "proxy saw: GET http://python.test/z HTTP/1.1",
      "socks to socks.test:80 saw proxy saw: GET /y HTTP/1.1",
      "tunnel to tunnel.test:80 saw proxy saw: GET /t HTTP/1.1",
    ]);
  });

  it("tells the command where its proxy is, whatever the host's variables said", async () => {
    const env = { ...baseEnv(), HTTPS_PROXY: "http://host-proxy.example:8080", no_proxy: "*" };
    const r = await inSandbox(sh("env | grep -i '^[^=]*proxy[^=]*=' | sort"), { env });
    expect(r.code, r.stderr).toBe(0);
    const vars = Object.fromEntries(r.stdout.trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    expect(vars).toMatchObject({
      HTTP_PROXY: "http://127.0.0.1:3128", HTTPS_PROXY: "http://127.0.0.1:3128", http_proxy: "http://127.0.0.1:3128", https_proxy: "http://127.0.0.1:3128",
      ALL_PROXY: "socks5h://127.0.0.1:1080", all_proxy: "socks5h://127.0.0.1:1080",
      NO_PROXY: "localhost,127.0.0.1,::1", no_proxy: "localhost,127.0.0.1,::1",
    });
    expect(Object.keys(vars).sort()).toEqual([...PROXY_ENV_NAMES].sort());
  });

  it("relays many concurrent connections and large transfers both ways intact", async () => {
    const size = 20 * 1024 * 1024;
    const r = await inSandbox(sh([
      `for i in $(seq 40); do ${CURL} -sS -x http://127.0.0.1:3128 http://c$i.test/ > c$i.out & done; wait; for f in c*.out; do cat $f; echo; done | grep -c '^proxy saw: GET http://c[0-9]*.test/ HTTP/1.1$'`,
      `${CURL} -sS -x http://127.0.0.1:3128 http://big.test/bytes/${size} | wc -c`,
      `head -c ${size} /dev/zero | ${CURL} -sS -x http://127.0.0.1:3128 --data-binary @- http://upload.test/; echo`,
      "rm -f c*.out",
    ].join("; ")));
    expect(r.stderr).toBe("");
    expect(r.stdout.trim().split("\n")).toEqual(["40", String(size), `received ${size} bytes`]);
  });

  it("blocks direct TCP to host loopback listeners, also with the proxy bypassed (--noproxy)", async () => {
    const v4 = await hostTcpServer("127.0.0.1");
    const v6 = hasIpv6 ? await hostTcpServer("::1") : undefined;
    try {
      // control: reachable without the sandbox
      expect((await onHost([probe, "tcp4", String(v4.port)])).code).toBe(0);
      const direct = await onHost([CURL, "-sS", "--noproxy", "*", `http://127.0.0.1:${v4.port}/direct`]);
      expect(direct.stdout).toBe("host server: proxy saw: GET /direct HTTP/1.1");
      if (v6) expect((await onHost([probe, "tcp6", String(v6.port)])).code).toBe(0);
      await settle();
      const before = v4.hits() + (v6?.hits() ?? 0);
      expect(before).toBe(v6 ? 3 : 2);

      expect((await inSandbox([probe, "tcp4", String(v4.port)])).code).toBe(1);
      const bypass = await inSandbox([CURL, "-sS", "--noproxy", "*", "--max-time", "10", `http://127.0.0.1:${v4.port}/direct`]);
      expect(bypass.code).toBe(7); // couldn't connect: nothing listens there in the run's namespace
      if (v6) expect((await inSandbox([probe, "tcp6", String(v6.port)])).code).toBe(1);
      // a name the proxy would resolve cannot be resolved, let alone reached, directly
      const named = await inSandbox([CURL, "-sS", "--noproxy", "*", "--max-time", "10", "http://example.com/"]);
      expect(named.code).not.toBe(0);
      await settle();
      expect(v4.hits() + (v6?.hits() ?? 0)).toBe(before);
    } finally {
      v4.server.close();
      v6?.server.close();
    }
  });

  it("refuses unix sockets (a host server's, even the proxy's own at its host path), abstract ones, and non-IP families; IP sockets on the run's loopback work", async () => {
    const other = path.join(outside, "other.sock");
    let hits = 0;
    const server = net.createServer((s) => {
      hits++;
      s.destroy();
    });
    await listen(server, other);
    const abstract = net.createServer((s) => {
      hits++;
      s.destroy();
    });
    await listen(abstract, "\0sg-proxy-test-abstract");
    try {
      // control
      expect((await onHost([probe, "unix", other])).code).toBe(0);
      expect((await onHost([probe, "abstract", "sg-proxy-test-abstract"])).code).toBe(0);
      expect((await onHost([probe, "unix", proxy.route.httpSocket])).code).toBe(0);
      await settle();
      const before = hits;
      const connectionsBefore = proxy.connections();

      expect((await inSandbox([probe, "unix", other])).code).toBe(1);
      expect((await inSandbox([probe, "abstract", "sg-proxy-test-abstract"])).code).toBe(1);
      expect((await inSandbox([probe, "unix", proxy.route.httpSocket])).code).toBe(1);
      expect((await inSandbox([probe, "unix", "/dev/shellgate-proxy/http.sock"])).code).toBe(1);
      const families = await inSandbox([PYTHON, "-c", [
        "import socket",
        "for name in ['AF_UNIX', 'AF_NETLINK', 'AF_PACKET', 'AF_VSOCK']:",
        "    try:",
        "        socket.socket(getattr(socket, name), socket.SOCK_DGRAM if name in ('AF_NETLINK', 'AF_PACKET') else socket.SOCK_STREAM)",
        "        print(name, 'created')",
        "    except OSError as e:",
        "        print(name, e.errno)",
        "a, b = socket.socketpair()",
        "a.sendall(b'pair'); print(b.recv(4).decode())",
        "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()",
        "c = socket.create_connection(s.getsockname()); d, _ = s.accept(); c.sendall(b'own loopback'); print(d.recv(20).decode())",
      ].join("\n")]);
      expect(families.stderr).toBe("");
      expect(families.stdout.trim().split("\n")).toEqual(["AF_UNIX 1", "AF_NETLINK 1", "AF_PACKET 1", "AF_VSOCK 1", "pair", "own loopback"]);
      await settle();
      expect(hits).toBe(before);
      expect(proxy.connections()).toBe(connectionsBefore);
    } finally {
      server.close();
      abstract.close();
    }
  });

  it("fails fast and closed when the proxy is gone, and the run does not hang", async () => {
    const gone = await fakeProxy(path.join(outside, "gone"));
    const execEnv = await backend.transform(
      { argv: sh(`${CURL} -sS --max-time 10 -x http://127.0.0.1:3128 http://gone.test/; echo "curl=$?"; ${CURL} -sS --max-time 10 -x socks5h://127.0.0.1:1080 http://gone.test/; echo "curl=$?"`), cwd: ws, env: baseEnv() },
      policy,
      { sandboxPolicyCwd: ws, networkProxy: gone.route },
    );
    try {
      await gone.close();
      const r = await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
      expect(r.signal).toBeNull();
      expect(r.code).toBe(0);
      // reset by the relay (7 when the reset beats curl's connect check, 56 after it; 52: empty
      // reply; 97: SOCKS handshake cut), never a timeout (28)
      const codes = r.stdout.trim().split("\n").map((l) => l.replace("curl=", ""));
      expect(codes).toHaveLength(2);
      for (const code of codes) expect(["7", "52", "56", "97"]).toContain(code);
    } finally {
      await execEnv.cleanup?.();
    }
  });

  it("keeps the relay out of the command's reach: its memory, descriptors and environment cannot be read; killing it only loses the network", async () => {
    const v4 = await hostTcpServer("127.0.0.1");
    try {
      const r = await inSandbox(sh([
        "R=''; for d in /proc/[0-9]*; do [ \"$(cat $d/comm 2>/dev/null)\" = sg-proxy-relay ] && R=${d#/proc/}; done; echo relay=${R:+found}",
        // control: a process of the command's own, same uid, is readable
        "sleep 30 & S=$!; head -c 1 /proc/$S/environ >/dev/null && echo own-environ-readable; kill $S",
        "head -c 1 /proc/$R/mem >/dev/null 2>&1 || echo mem-denied",
        "head -c 1 /proc/$R/environ >/dev/null 2>&1 || echo environ-denied",
        "readlink /proc/$R/fd/0 >/dev/null 2>&1 || echo fd-denied",
        `${CURL} -sS -o /dev/null -w 'before=%{http_code}\\n' -x http://127.0.0.1:3128 http://alive.test/`,
        "kill -9 $R && echo killed",
        "sleep 0.2",
        `${CURL} -sS --max-time 10 -x http://127.0.0.1:3128 http://dead.test/ 2>/dev/null; echo "after=$?"`,
        // the port is free now, but only for the command's own listener; the host stays unreachable
        `${PYTHON} -c "import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1', 3128)); s.listen(); print('own 3128')"`,
        `${probe} tcp4 ${v4.port}; echo "host=$?"`,
      ].join("; ")));
      expect(r.stdout.trim().split("\n")).toEqual([
        "relay=found", "own-environ-readable", "mem-denied", "environ-denied", "fd-denied", "before=200", "killed", "after=7", "own 3128", "host=1",
      ]);
      await settle();
      expect(v4.hits()).toBe(0);
    } finally {
      v4.server.close();
    }
  });

  it("leaves no relay behind: it dies with the run, and the run does not wait for it", async () => {
    const before = new Set(relayPids());
    const execEnv = await backend.transform({ argv: sh("sleep 1"), cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws, networkProxy: proxy.route });
    try {
      const running = run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
      let ours: number[] = [];
      for (let i = 0; i < 50 && ours.length === 0; i++) {
        await settle(20);
        ours = relayPids().filter((p) => !before.has(p));
      }
      expect(ours).toHaveLength(1);
      const r = await running;
      expect(r.code).toBe(0);
      for (let i = 0; i < 50 && ours.some((p) => fs.existsSync(`/proc/${p}`)); i++) await settle(20);
      expect(ours.filter((p) => fs.existsSync(`/proc/${p}`))).toEqual([]);
    } finally {
      await execEnv.cleanup?.();
    }
  });

  it("runs a deferred launch through the relay, which never holds the descriptor the command comes on", async () => {
    const before = new Set(relayPids());
    const execEnv = await backend.transform({ argv: sh(`${CURL} -sS http://deferred.test/d`), cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws, networkProxy: proxy.route });
    try {
      const deferred = execEnv.deferred;
      if (!deferred) throw new Error("no deferred launch");
      const [file, ...args] = deferred.argv;
      const spare = spawn(file as string, args, { cwd: execEnv.cwd, env: { ...execEnv.env }, stdio: ["ignore", "pipe", "pipe", "pipe"] });
      let stdout = "";
      spare.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
      const ended = new Promise<number | null>((resolve) => spare.on("close", resolve));
      // the relay starts before the sandbox waits for its command
      let ours: number[] = [];
      for (let i = 0; i < 50 && ours.length === 0; i++) {
        await settle(20);
        ours = relayPids().filter((p) => !before.has(p));
      }
      expect(ours).toHaveLength(1);
      if (process.getuid?.() === 0) {
        // its descriptors: /dev/null on 0-2, its epoll, and one listening socket per relay port
        const targets = fs.readdirSync(`/proc/${ours[0]}/fd`).map((fd) => fs.readlinkSync(`/proc/${ours[0]}/fd/${fd}`));
        expect(targets.filter((t) => t.startsWith("socket:"))).toHaveLength(2);
      }
      (spare.stdio[3] as NodeJS.WritableStream).end(deferred.payload);
      expect(await ended).toBe(0);
      expect(stdout).toBe("proxy saw: GET http://deferred.test/d HTTP/1.1");
    } finally {
      await execEnv.cleanup?.();
    }
  });

  it("keeps the socket bind points from being replaced, renamed or removed", async () => {
    const attempts = [
      "rm -f /dev/shellgate-proxy/http.sock",
      "mv /dev/shellgate-proxy/http.sock /dev/shellgate-proxy/old",
      "mv /dev/shellgate-proxy/socks.sock /dev/moved.sock",
      "mv /dev/shellgate-proxy /dev/moved",
      "rm -rf /dev/shellgate-proxy",
      "touch /dev/shellgate-proxy/planted",
      "ln -sf /tmp/x /dev/shellgate-proxy/http.sock",
      "chmod 000 /dev/shellgate-proxy",
    ];
    // control: the same operations in a directory of the same /dev the command made itself
    const control = await inSandbox(sh(attempts.map((a, i) => {
      const dir = `/dev/mine${i}`;
      return `mkdir ${dir} && touch ${dir}/http.sock ${dir}/socks.sock && ${a.replaceAll("/dev/shellgate-proxy", dir)} && echo ok`;
    }).join("; ")));
    expect(control.stdout.trim().split("\n")).toEqual(attempts.map(() => "ok"));
    const r = await inSandbox(sh([
      ...attempts.map((a) => `${a} 2>/dev/null && echo "escaped: ${a}"`),
      `${CURL} -sS -x http://127.0.0.1:3128 http://still.test/; echo`,
      `${CURL} -sS -x socks5h://127.0.0.1:1080 http://still.test/; echo`,
      "ls /dev/shellgate-proxy",
    ].join("; ")));
    expect(r.stdout.trim().split("\n")).toEqual([
      "proxy saw: GET http://still.test/ HTTP/1.1", "socks to still.test:80 saw proxy saw: GET / HTTP/1.1", "http.sock", "socks.sock",
    ]);
  });

  it("is the argv a real run spawns, and the plan says so (network mode, relays, environment)", async () => {
    const spec = { argv: sh("true"), cwd: ws, env: { ...baseEnv(), HTTP_PROXY: "http://elsewhere.example:1", LD_PRELOAD: "/nonexistent/x.so" } };
    const opts = { sandboxPolicyCwd: ws, networkProxy: proxy.route };
    const plan = await backend.plan(spec, policy, opts);
    const execEnv = await backend.transform(spec, policy, opts);
    try {
      expect(withoutCgroup(execEnv.argv)).toEqual(plan.argv);
      expect(execEnv.networkMode).toBe("proxy");
      const r = await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await execEnv.cleanup?.();
    }
    expect(plan.argv).toContain("--unshare-all");
    expect(plan.argv).not.toContain("--share-net");
    const helperAt = plan.argv.indexOf("--net");
    expect(plan.argv.slice(helperAt, helperAt + 6)).toEqual([
      "--net", "proxy", "--relay", "3128=/dev/shellgate-proxy/http.sock", "--relay", "1080=/dev/shellgate-proxy/socks.sock",
    ]);
    // the socket binds come after every other mount, so nothing covers them
    const chdir = plan.argv.indexOf("--chdir");
    expect(plan.argv.slice(chdir - 10, chdir)).toEqual([
      "--tmpfs", "/dev/shellgate-proxy",
      "--ro-bind-try", fs.realpathSync(proxy.route.httpSocket), "/dev/shellgate-proxy/http.sock",
      "--ro-bind-try", fs.realpathSync(proxy.route.socksSocket), "/dev/shellgate-proxy/socks.sock",
      "--remount-ro", "/dev/shellgate-proxy",
    ]);
    expect(plan.env).toMatchObject({ HTTP_PROXY: "http://127.0.0.1:3128", ALL_PROXY: "socks5h://127.0.0.1:1080" });
    expect(plan.unsetEnv).toEqual(["LD_PRELOAD"]);
    expect(plan.plan).toMatchObject({
      network: false,
      networkMode: "proxy",
      proxy: {
        mountDir: "/dev/shellgate-proxy",
        relays: [
          { protocol: "http", port: 3128, inside: "/dev/shellgate-proxy/http.sock", host: fs.realpathSync(proxy.route.httpSocket) },
          { protocol: "socks5", port: 1080, inside: "/dev/shellgate-proxy/socks.sock", host: fs.realpathSync(proxy.route.socksSocket) },
        ],
      },
    });
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  it("without a route it drops the host's proxy variables; with the whole network granted it keeps them (a corporate proxy may be the way out); neither routes anything", async () => {
    const env = { ...baseEnv(), HTTPS_PROXY: "http://host-proxy.example:8080", npm_config_proxy: "http://host-proxy.example:8080" };
    const script = sh("env | grep -i '^[^=]*proxy[^=]*='; echo end");
    for (const [p, mode] of [[policyInput, "off"], [{ ...policyInput, networkAccess: true }, "full"]] as const) {
      const execEnv = await backend.transform({ argv: script, cwd: ws, env }, parseSandboxPolicy(p), { sandboxPolicyCwd: ws });
      try {
        expect(execEnv.networkMode).toBe(mode);
        expect(execEnv.argv).toContain(mode === "full" ? "on" : "off");
        const r = await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
        expect(r.stdout).toBe(mode === "full" ? "HTTPS_PROXY=http://host-proxy.example:8080\nnpm_config_proxy=http://host-proxy.example:8080\nend\n" : "end\n");
      } finally {
        await execEnv.cleanup?.();
      }
      const plan = await backend.plan({ argv: script, cwd: ws, env }, parseSandboxPolicy(p), { sandboxPolicyCwd: ws });
      expect(plan.unsetEnv).toEqual(mode === "full" ? [] : ["HTTPS_PROXY", "npm_config_proxy"]);
      expect(plan.plan).toMatchObject({ networkMode: mode, proxy: null });
    }
    // the route changes nothing when the policy grants the network
    const full = await backend.plan({ argv: script, cwd: ws, env }, parseSandboxPolicy({ ...policyInput, networkAccess: true }), { sandboxPolicyCwd: ws, networkProxy: proxy.route });
    expect(full.argv).toContain("--share-net");
    expect(full.plan).toMatchObject({ networkMode: "full", proxy: null });
  });

  it("refuses a route it cannot hold: sockets inside a writable root, relative paths, files that are not sockets, another transport", async () => {
    const inRoot = await fakeProxy(path.join(ws, "proxy-in-workspace"));
    const file = path.join(outside, "not-a-socket");
    fs.writeFileSync(file, "");
    try {
      const spec = { argv: sh("true"), cwd: ws, env: baseEnv() };
      const withRoute = (route: NetworkProxyRoute) => ({ sandboxPolicyCwd: ws, networkProxy: route });
      for (const call of [backend.transform.bind(backend), backend.plan.bind(backend)]) {
        await expect(call(spec, policy, withRoute(inRoot.route))).rejects.toThrow(LinuxSandboxError);
        await expect(call(spec, policy, withRoute(inRoot.route))).rejects.toThrow(/inside the writable root/);
        await expect(call(spec, policy, withRoute({ ...proxy.route, httpSocket: "relative/http.sock" }))).rejects.toThrow(InvalidSandboxPathError);
        await expect(call(spec, policy, withRoute({ transport: "loopback-tcp", httpPort: 1, socksPort: 2 }))).rejects.toThrow(SandboxProxyUnsupportedError);
      }
      // a symlink outside the roots that leads into one is judged by where it leads
      const link = path.join(outside, "link.sock");
      fs.symlinkSync(inRoot.route.httpSocket, link);
      await expect(backend.transform(spec, policy, withRoute({ ...proxy.route, httpSocket: link }))).rejects.toThrow(/inside the writable root/);
      await expect(backend.transform(spec, policy, withRoute({ ...proxy.route, socksSocket: file }))).rejects.toThrow(/not a unix socket/);
      await expect(backend.transform(spec, policy, withRoute({ ...proxy.route, socksSocket: path.join(outside, "missing.sock") }))).rejects.toThrow(InvalidSandboxPathError);
      // nothing was left behind by the refused runs
      expect(fs.existsSync(path.join(ws, ".codex"))).toBe(false);
    } finally {
      await inRoot.close();
    }
  });

  it("is what a manager accepts: the backend routes through unix sockets only", async () => {
    expect(backend.proxyTransport).toBe("unix-socket");
    const manager = new SandboxManager();
    manager.register(backend);
    const env = await manager.prepare({ argv: sh(`${CURL} -sS http://managed.test/`), cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws, networkProxy: proxy.route });
    try {
      expect(env.networkMode).toBe("proxy");
      const r = await run(env.argv, { cwd: env.cwd, env: { ...env.env } });
      expect(r.stdout).toBe("proxy saw: GET http://managed.test/ HTTP/1.1");
    } finally {
      await env.cleanup?.();
    }
    await expect(manager.prepare({ argv: sh("true"), cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws, networkProxy: { transport: "loopback-tcp", httpPort: 1, socksPort: 2 } }))
      .rejects.toThrow(SandboxProxyUnsupportedError);
  });
});

const helper = locateHelper();
skipUnless((process.platform === "linux" ? undefined : `not Linux (${process.platform})`) ?? (helper ? undefined : "the helper is not built (run the package build)")).describe("the helper's proxy arguments", () => {
  it("fail closed (125) before anything runs: no relay, a relay without proxy mode, bad ports or paths, Landlock or the reaper", async () => {
    const h = helper as string;
    const marker = path.join(os.tmpdir(), `sg-proxy-args-${process.pid}`);
    for (const args of [
      ["--net", "proxy"],
      ["--net", "off", "--relay", "3128=/x.sock"],
      ["--net", "proxy", "--relay", "0=/x.sock"],
      ["--net", "proxy", "--relay", "70000=/x.sock"],
      ["--net", "proxy", "--relay", "3128"],
      ["--net", "proxy", "--relay", "3128=relative.sock"],
      ["--net", "proxy", "--relay", `3128=/${"x".repeat(120)}`],
      ["--net", "proxy", "--relay", "3128=/a.sock", "--relay", "3128=/b.sock"],
      ["--net", "proxy", "--relay", "3128=/x.sock", "--landlock"],
      ["--net", "proxy", "--relay", "3128=/x.sock", "--reap"],
    ]) {
      const r = await run([h, ...args, "--", "/usr/bin/touch", marker]);
      expect(r.code, args.join(" ")).toBe(125);
      expect(r.stderr).toMatch(/shellgate-sandbox-helper/);
      expect(fs.existsSync(marker)).toBe(false);
    }
  });
});

describe.skipIf(landlockSkip !== undefined)(`proxy-routed network under the Landlock layer${landlockSkip ? ` (skipped: ${landlockSkip})` : ""}`, () => {
  const dirs = makeDirs("proxy-landlock");
  afterAll(() => dirs.remove());
  // a bwrap that does not exist forces the fallback, as on a host without user namespaces
  const backend: SandboxBackend = createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true });
  const policy = parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true });

  it("refuses proxy mode from transform and plan (no network namespace to confine the command to the proxy); without a route it runs", async () => {
    const proxy = await fakeProxy(path.join(dirs.outside, "proxy"));
    try {
      const spec = { argv: sh("true"), cwd: dirs.ws, env: baseEnv() };
      const opts = { sandboxPolicyCwd: dirs.ws, networkProxy: proxy.route };
      // a plan before any probe judges by the missing bubblewrap, after one by the probe's verdict
      await expect(backend.plan(spec, policy, opts)).rejects.toThrow(SandboxProxyUnsupportedError);
      await expect(backend.transform(spec, policy, opts)).rejects.toThrow(SandboxProxyUnsupportedError);
      await expect(backend.transform(spec, policy, opts)).rejects.toThrow(/no network namespace/);
      await expect(backend.plan(spec, policy, opts)).rejects.toThrow(SandboxProxyUnsupportedError);
      const env = await backend.transform(spec, policy, { sandboxPolicyCwd: dirs.ws });
      try {
        expect(env.isolation.startsWith("landlock")).toBe(true);
        expect(env.networkMode).toBe("off");
        expect((await run(env.argv, { cwd: env.cwd, env: { ...env.env } })).code).toBe(0);
      } finally {
        await env.cleanup?.();
      }
      expect(proxy.connections()).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
