// Handing bulk CONNECT and SOCKS5 tunnels to a native splicer (the sandbox helper's --splice mode).
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startNetworkProxy, type NetworkProxy, type NetworkProxyError } from "../src/index.js";
import { kSplicer } from "../src/start-proxy.js";
import type { TunnelSplicer } from "../src/splice.js";
import { connectViaProxy, nativeSplicer, nativeSplicerSkip, privateDir, recordingSplicer, proxyWith, readBytes, socksRequest, stopAll, tableResolver } from "./helpers.js";

const helper = nativeSplicer;
const skip = nativeSplicerSkip;

const SIZE = 20 * 1024 * 1024;
// Random, so that a lost, doubled or reordered chunk anywhere changes the digest.
const PAYLOAD = randomBytes(SIZE);
const digest = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The origin reads one line: `down N` sends N bytes of PAYLOAD and ends; `up N` reads N bytes and
 * answers their digest; `hold N` sends N bytes and keeps the connection open; `both N` sends N
 * bytes at once and, after the upload ends, the upload's digest after them.
 */
let origin: net.Server;
let port = 0;
const originSockets = new Set<net.Socket>();
beforeAll(async () => {
  origin = net.createServer({ allowHalfOpen: true }, (socket) => {
    originSockets.add(socket);
    socket.once("close", () => originSockets.delete(socket));
    socket.on("error", () => {});
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const nl = head.indexOf("\n");
      if (nl < 0) return;
      socket.off("data", onData);
      const [verb, count] = head.subarray(0, nl).toString().split(" ");
      const n = Number(count);
      const rest = head.subarray(nl + 1);
      if (verb === "down") socket.end(PAYLOAD.subarray(0, n));
      else if (verb === "hold") socket.write(PAYLOAD.subarray(0, n));
      else if (verb === "up" || verb === "both") {
        if (verb === "both") socket.write(PAYLOAD.subarray(0, n));
        const hash = createHash("sha256").update(rest);
        let got = rest.length;
        socket.on("data", (d: Buffer) => {
          hash.update(d);
          got += d.length;
        });
        socket.once("end", () => socket.end(`${got} ${hash.digest("hex")}`));
      }
    };
    socket.on("data", onData);
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", () => resolve()));
  port = (origin.address() as net.AddressInfo).port;
});
afterAll(() => {
  // `hold` connections stay open on purpose; close() would wait for them.
  for (const socket of originSockets) socket.destroy();
  return new Promise<void>((resolve) => origin.close(() => resolve()));
});
afterEach(stopAll);

/** Everything until the other side ends; stalls at first when `slow`, so queues are full at the handoff. */
async function readToEnd(socket: net.Socket, slow = false): Promise<Buffer> {
  const chunks: Buffer[] = [];
  if (slow) await sleep(200);
  for await (const chunk of socket) {
    chunks.push(chunk as Buffer);
    if (slow && chunks.length % 8 === 0) await sleep(2);
  }
  return Buffer.concat(chunks);
}

type Kind = "CONNECT" | "SOCKS5";
async function open(proxy: NetworkProxy, kind: Kind): Promise<net.Socket> {
  if (kind === "CONNECT") {
    const t = await connectViaProxy(proxy.endpoints.http, `bulk.test:${port}`);
    expect(t.status).toBe(200);
    return t.socket;
  }
  const { reply, socket } = await socksRequest(proxy.endpoints.socks, { name: "bulk.test", port });
  expect(reply).toBe(0);
  return socket;
}

async function download(proxy: NetworkProxy, kind: Kind, n: number, slow = false): Promise<Buffer> {
  const socket = await open(proxy, kind);
  socket.write(`down ${n}\n`);
  return readToEnd(socket, slow);
}

async function upload(proxy: NetworkProxy, kind: Kind, n: number): Promise<string> {
  const socket = await open(proxy, kind);
  const answer = readToEnd(socket);
  // In pieces, so that the handoff falls in the middle of the upload, not after it.
  socket.write(`up ${n}\n`);
  for (let i = 0; i < n; i += 256 * 1024) {
    if (!socket.write(PAYLOAD.subarray(i, Math.min(n, i + 256 * 1024)))) await new Promise((resolve) => socket.once("drain", resolve));
  }
  socket.end();
  return (await answer).toString();
}

const decide = () => ({ decision: "allow" as const, allowPrivate: true });
const resolver = () => tableResolver({ "bulk.test": ["127.0.0.1"] });
const splicerOf = (proxy: NetworkProxy) => (proxy as unknown as Record<symbol, TunnelSplicer>)[kSplicer] as TunnelSplicer;

describe.skipIf(skip !== undefined)(`tunnels handed to a native splicer${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const recorder = recordingSplicer("np-splicer-");
  const { dir, runCount } = recorder;
  const recording = recorder.path;
  afterEach(recorder.reset);
  afterAll(recorder.remove);

  for (const kind of ["CONNECT", "SOCKS5"] as const) {
    it(`${kind}: a 20 MB download and upload arrive byte-exact through the splicer, one event each`, async () => {
      const { proxy, events } = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: recording });
      const down = await download(proxy, kind, SIZE);
      expect(down.length).toBe(SIZE);
      expect(digest(down)).toBe(digest(PAYLOAD));
      expect(await upload(proxy, kind, SIZE)).toBe(`${SIZE} ${digest(PAYLOAD)}`);
      expect(runCount()).toBe(2);
      expect(events).toHaveLength(2);
      expect(events.every((e) => e.decision === "allow")).toBe(true);
      for (let i = 0; i < 100 && splicerOf(proxy).running > 0; i++) await sleep(20);
      expect(splicerOf(proxy).running).toBe(0);
      expect(splicerOf(proxy).unexpectedExits).toBe(0);
    });
  }

  it("hands over tunnels on the unix-socket transport too (the client end is a unix socket, as in use)", async () => {
    const socketDir = privateDir();
    try {
      const { proxy } = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: recording, listen: { transport: "unix-socket", directory: socketDir.dir } });
      for (const kind of ["CONNECT", "SOCKS5"] as const) {
        expect(digest(await download(proxy, kind, SIZE))).toBe(digest(PAYLOAD));
        expect(await upload(proxy, kind, SIZE)).toBe(`${SIZE} ${digest(PAYLOAD)}`);
      }
      expect(runCount()).toBe(4);
      await proxy.stop();
    } finally {
      socketDir.remove();
    }
  });

  it("loses and reorders nothing when the client reads slowly (queues full around the handoff)", async () => {
    const { proxy } = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: recording });
    const [a, b] = await Promise.all([download(proxy, "CONNECT", SIZE, true), download(proxy, "SOCKS5", SIZE, true)]);
    expect(digest(a)).toBe(digest(PAYLOAD));
    expect(digest(b)).toBe(digest(PAYLOAD));
    expect(runCount()).toBe(2);
  });

  it("stays in JS when a peer does not read while the handoff waits (no deadlock, nothing lost)", async () => {
    // Over a unix socket, whose kernel buffers hold far less than the threshold: the proxy's queue
    // towards the client is never empty once the download has crossed it.
    const socketDir = privateDir();
    const { proxy } = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: recording, listen: { transport: "unix-socket", directory: socketDir.dir } });
    const socket = await open(proxy, "CONNECT");
    // The download fills every queue towards a client that reads nothing until its upload is through:
    // the handoff cannot find the tunnel idle, and the upload must go on regardless.
    socket.write(`both ${SIZE}\n`);
    // Time for the download to fill the kernel's buffers and the proxy's queue before the upload
    // crosses the threshold: the tunnel is then never idle, and the handoff has to give up.
    await sleep(300);
    for (let i = 0; i < SIZE; i += 256 * 1024) {
      if (!socket.write(PAYLOAD.subarray(i, i + 256 * 1024))) await new Promise((resolve) => socket.once("drain", resolve));
    }
    socket.end();
    const got = await readToEnd(socket);
    expect(got.length).toBeGreaterThan(SIZE);
    expect(digest(got.subarray(0, SIZE))).toBe(digest(PAYLOAD));
    expect(got.subarray(SIZE).toString()).toBe(`${SIZE} ${digest(PAYLOAD)}`);
    expect(runCount()).toBe(0);
    await proxy.stop();
    socketDir.remove();
  });

  it("never starts the splicer for a small request", async () => {
    const { proxy, events } = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: recording });
    for (const kind of ["CONNECT", "SOCKS5"] as const) {
      const small = await download(proxy, kind, 64 * 1024);
      expect(digest(small)).toBe(digest(PAYLOAD.subarray(0, 64 * 1024)));
      expect(await upload(proxy, kind, 512 * 1024)).toBe(`${512 * 1024} ${digest(PAYLOAD.subarray(0, 512 * 1024))}`);
    }
    expect(runCount()).toBe(0);
    expect(events).toHaveLength(4);
  });

  it("stop() kills the splicer of a handed-over tunnel, which closes it", async () => {
    const { proxy } = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: helper });
    const sockets = await Promise.all((["CONNECT", "SOCKS5"] as const).map((kind) => open(proxy, kind)));
    for (const socket of sockets) {
      socket.write(`hold ${4 * 1024 * 1024}\n`);
      expect((await readBytes(socket, 4 * 1024 * 1024)).length).toBe(4 * 1024 * 1024);
    }
    for (let i = 0; i < 100 && splicerOf(proxy).running < 2; i++) await sleep(20);
    expect(splicerOf(proxy).running).toBe(2);
    const closed = sockets.map((s) => new Promise((resolve) => s.once("close", resolve).on("error", () => {}).resume()));
    await proxy.stop();
    await Promise.all(closed);
  });

  it("falls back to the JS pump with the data intact when the splicer cannot start", async () => {
    // Valid at start, gone by the time a tunnel would be handed over.
    const vanishing = join(dir, "vanishing");
    writeFileSync(vanishing, `#!/bin/sh\nexec '${helper}' "$@"\n`);
    chmodSync(vanishing, 0o755);
    // Executable, but its interpreter does not exist: the fork happens and the exec fails.
    const broken = join(dir, "broken");
    writeFileSync(broken, "#!/nonexistent/interpreter\n");
    chmodSync(broken, 0o755);
    const first = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: vanishing });
    rmSync(vanishing);
    const second = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: broken });
    for (const { proxy } of [first, second]) {
      for (const kind of ["CONNECT", "SOCKS5"] as const) {
        expect(digest(await download(proxy, kind, SIZE))).toBe(digest(PAYLOAD));
        expect(await upload(proxy, kind, SIZE)).toBe(`${SIZE} ${digest(PAYLOAD)}`);
      }
      expect(splicerOf(proxy).running).toBe(0);
    }
  });

  it.each([
    ["relative/splicer", "a relative path"],
    ["/nonexistent/splicer", "a missing file"],
    ["__DIR__", "a directory"],
    ["__NOEXEC__", "a file that is not executable"],
  ])("refuses %s (%s) as tunnelSplicer with NETPROXY_INVALID_OPTIONS", async (value) => {
    const noexec = join(dir, "noexec");
    writeFileSync(noexec, "#!/bin/sh\n");
    chmodSync(noexec, 0o644);
    const path = value === "__DIR__" ? dir : value === "__NOEXEC__" ? noexec : value;
    const error = (await startNetworkProxy({ decide, listen: { transport: "loopback-tcp" }, tunnelSplicer: path }).then(
      () => undefined,
      (e: unknown) => e,
    )) as NetworkProxyError & { field: string };
    expect(error.code).toBe("NETPROXY_INVALID_OPTIONS");
    expect(error.field).toBe("tunnelSplicer");
  });
});
