import { createHash } from "node:crypto";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { connectViaProxy, proxyWith, slowRead, socksRequest, stopAll, tableResolver } from "./helpers.js";

// 16 MiB of varied bytes, sent at once and followed by a close: a tunnel that destroyed the client
// when the destination closed would drop the tail still queued for a slow reader.
const PAYLOAD = Buffer.from(Array.from({ length: 16 * 1024 * 1024 }, (_, i) => (i * 7919) % 251));
const digest = (b: Buffer) => createHash("sha256").update(b).digest("hex");

let origin: net.Server;
let port = 0;
beforeAll(async () => {
  origin = net.createServer((socket) => {
    socket.on("error", () => {});
    socket.once("data", (first) => {
      if (first.toString() === "echo") {
        socket.write(first);
        socket.pipe(socket);
      } else {
        socket.end(PAYLOAD);
      }
    });
  });
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", () => resolve()));
  port = (origin.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => origin.close(() => resolve())));
afterEach(stopAll);

// Stalled first, so the kernel buffers and the proxy's queue are full when the destination closes.
const slowly = (socket: net.Socket) => slowRead(socket, 300, 4, 5);

describe("tunnels", () => {
  const decide = () => ({ decision: "allow" as const, allowPrivate: true });
  const resolver = () => tableResolver({ "bulk.test": ["127.0.0.1"] });

  it("deliver every byte to a slow reader after the destination closed (CONNECT and SOCKS5)", async () => {
    const { proxy } = await proxyWith({ decide, resolver: resolver() });
    const tunnel = await connectViaProxy(proxy.endpoints.http, `bulk.test:${port}`);
    tunnel.socket.write("send");
    const viaConnect = await slowly(tunnel.socket);
    const { socket } = await socksRequest(proxy.endpoints.socks, { name: "bulk.test", port });
    socket.write("send");
    const viaSocks = await slowly(socket);
    expect(viaConnect.length).toBe(PAYLOAD.length);
    expect(digest(viaConnect)).toBe(digest(PAYLOAD));
    expect(digest(viaSocks)).toBe(digest(PAYLOAD));
  });

  it("carry a client's half-close to the destination and the answer back", async () => {
    const { proxy } = await proxyWith({ decide, resolver: resolver() });
    const { socket } = await socksRequest(proxy.endpoints.socks, { name: "bulk.test", port });
    socket.end("echo");
    expect((await slowly(socket)).toString()).toBe("echo");
  });
});
