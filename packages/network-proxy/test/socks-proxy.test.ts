import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { grants, proxyWith, readAll, socksRequest, startOrigin, stopAll, tableResolver } from "./helpers.js";

let origin: Awaited<ReturnType<typeof startOrigin>>;
beforeAll(async () => {
  origin = await startOrigin("registry");
});
afterAll(() => origin.close());
afterEach(stopAll);

const GET = "GET /socks HTTP/1.1\r\nHost: registry.test\r\nConnection: close\r\n\r\n";

describe("SOCKS5", () => {
  it("connects a granted name (socks5h: the proxy resolves) and carries the stream both ways", async () => {
    const resolver = tableResolver({ "registry.test": ["127.0.0.1"] });
    const { proxy, events } = await proxyWith({ decide: grants("registry.test"), resolver });
    const { reply, socket } = await socksRequest(proxy.endpoints.socks, { name: "registry.test", port: origin.port });
    expect(reply).toBe(0x00);
    socket.write(GET);
    expect(await readAll(socket)).toMatch(/registry \/socks$/);
    expect(resolver.calls).toEqual(["registry.test"]);
    expect(events).toEqual([{ protocol: "socks5_tcp", host: "registry.test", port: origin.port, decision: "allow", cause: "default", address: "127.0.0.1" }]);
  });

  it("keeps data a client sends before the reply (optimistic data)", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { proxy } = await proxyWith({
      decide: async (r) => (await gate, grants("registry.test")(r)),
      resolver: tableResolver({ "registry.test": ["127.0.0.1"] }),
    });
    const pending = socksRequest(proxy.endpoints.socks, { name: "registry.test", port: origin.port }, 1, Buffer.from(GET));
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const { reply, socket } = await pending;
    expect(reply).toBe(0x00);
    expect(await readAll(socket)).toMatch(/registry \/socks$/);
  });

  it("connects IPv4 and IPv6 literals (with allowPrivate)", async () => {
    const v6 = await startOrigin("v6", "::1");
    try {
      const { proxy, events } = await proxyWith({ decide: () => ({ decision: "allow", allowPrivate: true }), resolver: tableResolver({}) });
      for (const target of [{ ipv4: "127.0.0.1", port: origin.port }, { ipv6: "::1", port: v6.port }]) {
        const { reply, socket } = await socksRequest(proxy.endpoints.socks, target);
        expect(reply).toBe(0x00);
        socket.write(GET);
        expect(await readAll(socket)).toMatch(/(registry|v6) \/socks$/);
      }
      expect(events.map((e) => e.host)).toEqual(["127.0.0.1", "::1"]);
    } finally {
      await v6.close();
    }
  });

  it("refuses a denied host with 0x02 and never resolves it", async () => {
    const resolver = tableResolver({ "evil.test": ["127.0.0.1"] });
    const { proxy, events } = await proxyWith({ decide: grants("registry.test"), resolver });
    const { reply, socket } = await socksRequest(proxy.endpoints.socks, { name: "evil.test", port: 443 });
    expect(reply).toBe(0x02);
    await readAll(socket);
    expect(socket.destroyed || socket.readableEnded).toBe(true);
    expect(resolver.calls).toEqual([]);
    expect(events).toEqual([{ protocol: "socks5_tcp", host: "evil.test", port: 443, decision: "deny", cause: "default", reason: "no rule or grant allows this host" }]);
  });

  it("answers 0x04 for a name that does not resolve and 0x05 when the destination refuses", async () => {
    const gone = await startOrigin("gone");
    await gone.close();
    const { proxy, events } = await proxyWith({ decide: grants("nowhere.test", "down.test"), resolver: tableResolver({ "down.test": ["127.0.0.1"] }) });
    expect((await socksRequest(proxy.endpoints.socks, { name: "nowhere.test", port: 80 })).reply).toBe(0x04);
    expect((await socksRequest(proxy.endpoints.socks, { name: "down.test", port: gone.port })).reply).toBe(0x05);
    expect(events.map((e) => e.cause)).toEqual(["resolve-failed", "upstream-failed"]);
  });

  it("refuses BIND and UDP ASSOCIATE with 0x07, without asking decide", async () => {
    let asked = 0;
    const { proxy, events } = await proxyWith({ decide: () => (asked++, { decision: "allow" }), resolver: tableResolver({}) });
    expect((await socksRequest(proxy.endpoints.socks, { ipv4: "127.0.0.1", port: 80 }, 2)).reply).toBe(0x07);
    expect((await socksRequest(proxy.endpoints.socks, { ipv4: "0.0.0.0", port: 0 }, 3)).reply).toBe(0x07);
    expect(asked).toBe(0);
    expect(events.map((e) => [e.cause, e.decision])).toEqual([["unsupported-command", "deny"], ["unsupported-command", "deny"]]);
  });

  it("answers 0x01 for a host name it cannot act on, and fails closed (0x02) when decide throws", async () => {
    const { proxy, events } = await proxyWith({ decide: () => { throw new Error("policy broke"); }, resolver: tableResolver({}) });
    expect((await socksRequest(proxy.endpoints.socks, { name: "evil\r\n.test", port: 80 })).reply).toBe(0x01);
    expect((await socksRequest(proxy.endpoints.socks, { name: "registry.test", port: 80 })).reply).toBe(0x02);
    expect(events.map((e) => e.cause)).toEqual(["bad-request", "decide-failed"]);
  });
});
