import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BULK_READ_BYTES, connectBulk, isBulk, pumpBulk } from "../src/bulk-read.js";
import { connectViaProxy, proxyWith, readBytes, slowRead, socksRequest, stopAll, tableResolver } from "./helpers.js";

const digest = (b: Buffer) => createHash("sha256").update(b).digest("hex");
// Many bulk reads long, in random pieces (reads end anywhere in it), and more than the kernel's
// loopback buffers hold, so that writes to a stalled reader queue.
const PAYLOAD = randomBytes(16 * BULK_READ_BYTES + 12345);
const BANNER = "220 ready\r\n";

let origin: net.Server;
let port = 0;
beforeAll(async () => {
  // Speaks first (a banner, like SMTP or SSH), then sends PAYLOAD in random pieces and closes.
  origin = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.write(BANNER);
    let offset = 0;
    const more = () => {
      while (offset < PAYLOAD.length) {
        const n = Math.min(PAYLOAD.length - offset, 1 + Math.floor(Math.random() * 200_000));
        const ok = socket.write(PAYLOAD.subarray(offset, offset + n));
        offset += n;
        if (!ok) return void socket.once("drain", more);
      }
      socket.end();
    };
    // After the banner has had time to arrive alone: it must wait for the pump, not be lost.
    setTimeout(more, 50);
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", () => resolve()));
  port = (origin.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => origin.close(() => resolve())));
afterEach(stopAll);

/** Stalls, so that the writer's queue fills and reading must stop while writes are queued. */
const slowCollect = (stream: AsyncIterable<unknown>) => slowRead(stream, 200, 3, 3);

describe("connectBulk and pumpBulk", () => {
  // Into a plain socket the read buffer itself is written; into anything else, a copy of it.
  it.each(["socket", "stream"] as const)("deliver what came before the pump, then every byte in order to a slow %s, and the end", async (kind) => {
    const socket = connectBulk({ host: "127.0.0.1", port });
    await new Promise((resolve) => socket.once("connect", resolve));
    expect(isBulk(socket)).toBe(true);
    // The banner arrives while nothing consumes the socket; reading waits for the pump.
    await new Promise((resolve) => setTimeout(resolve, 30));
    let out: net.Socket | PassThrough;
    let reader: AsyncIterable<unknown>;
    let sink: net.Server | undefined;
    if (kind === "socket") {
      // A loopback pair whose reader stalls: writes queue, and reading must stop while they do.
      const accepted = new Promise<net.Socket>((resolve) => (sink = net.createServer(resolve)));
      await new Promise<void>((resolve) => sink?.listen(0, "127.0.0.1", () => resolve()));
      out = net.connect((sink?.address() as net.AddressInfo).port, "127.0.0.1");
      reader = await accepted;
    } else {
      // A small mark: its write callbacks come while it still holds what it was given.
      out = new PassThrough({ highWaterMark: 1024 });
      reader = out;
    }
    pumpBulk(socket, out);
    const got = await slowCollect(reader);
    sink?.close();
    expect(got.subarray(0, BANNER.length).toString()).toBe(BANNER);
    expect(got.length).toBe(BANNER.length + PAYLOAD.length);
    expect(digest(got.subarray(BANNER.length))).toBe(digest(PAYLOAD));
  });

  it("refuse a socket that connectBulk did not make (its bytes would go nowhere)", () => {
    const plain = new net.Socket();
    expect(isBulk(plain)).toBe(false);
    expect(() => pumpBulk(plain, new PassThrough())).toThrow(/connectBulk/);
  });
});

describe("tunnels without a splicer", () => {
  const decide = () => ({ decision: "allow" as const, allowPrivate: true });

  it("carry a destination that speaks first, and all that follows, through CONNECT and SOCKS5", async () => {
    const { proxy } = await proxyWith({ decide, resolver: tableResolver({ "banner.test": ["127.0.0.1"] }) });
    const tunnel = await connectViaProxy(proxy.endpoints.http, `banner.test:${port}`);
    const viaConnect = await slowCollect(tunnel.socket);
    const { socket } = await socksRequest(proxy.endpoints.socks, { name: "banner.test", port });
    const viaSocks = await slowCollect(socket);
    for (const got of [viaConnect, viaSocks]) {
      expect(got.subarray(0, BANNER.length).toString()).toBe(BANNER);
      expect(digest(got.subarray(BANNER.length))).toBe(digest(PAYLOAD));
    }
  });

  it("carry a large plain-HTTP body, with a length and chunked, byte-exact to a slow reader", async () => {
    const web = http.createServer((req, res) => {
      if (req.url === "/chunked") res.write(PAYLOAD.subarray(0, 1000));
      else res.setHeader("content-length", PAYLOAD.length);
      res.end(req.url === "/chunked" ? PAYLOAD.subarray(1000) : PAYLOAD);
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", () => resolve()));
    const webPort = (web.address() as net.AddressInfo).port;
    try {
      const { proxy } = await proxyWith({ decide, resolver: tableResolver({ "web.test": ["127.0.0.1"] }) });
      for (const path of ["/length", "/chunked"]) {
        const body = await new Promise<Buffer>((resolve, reject) => {
          const url = `http://web.test:${webPort}${path}`;
          const req = http.request({ host: "127.0.0.1", port: proxy.endpoints.http.port, path: url, agent: false, headers: { host: `web.test:${webPort}` } }, (res) => {
            slowCollect(res).then(resolve, reject);
          });
          req.on("error", reject);
          req.end();
        });
        expect(body.length).toBe(PAYLOAD.length);
        expect(digest(body)).toBe(digest(PAYLOAD));
      }
    } finally {
      web.close();
    }
  });

  it("read the banner before the client sends anything", async () => {
    const { proxy } = await proxyWith({ decide, resolver: tableResolver({ "banner.test": ["127.0.0.1"] }) });
    const { socket } = await socksRequest(proxy.endpoints.socks, { name: "banner.test", port });
    expect((await readBytes(socket, BANNER.length)).toString()).toBe(BANNER);
    socket.destroy();
  });
});
