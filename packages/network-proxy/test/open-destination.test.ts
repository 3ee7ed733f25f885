import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProxyVerdict } from "../src/index.js";
import { connectViaProxy, httpViaProxy, netnsSkip, proxyWith, readAll, runInNetns, socksRequest, startOrigin, stopAll, tableResolver } from "./helpers.js";

// The fake internet runs on loopback, which is exactly what a sandboxed command must not reach by
// itself: allowed requests below carry `allowPrivate` (an explicit grant by name), and the
// refusals prove that without it the same destinations are closed.
let v4: Awaited<ReturnType<typeof startOrigin>>;
let v6: Awaited<ReturnType<typeof startOrigin>>;
beforeAll(async () => {
  v4 = await startOrigin("v4", "127.0.0.1");
  v6 = await startOrigin("v6", "::1");
});
afterAll(async () => {
  await v4.close();
  await v6.close();
});
afterEach(stopAll);

const allow = (allowPrivate: boolean): (() => ProxyVerdict) => () => ({ decision: "allow", allowPrivate });

describe("address check", () => {
  const cases = () => [
    { what: "the 127.0.0.1 literal", host: "127.0.0.1", port: v4.port, address: "127.0.0.1" },
    { what: "the ::1 literal", host: "[::1]", port: v6.port, address: "::1" },
    { what: "a name resolving to 127.0.0.1", host: "sneaky.test", port: v4.port, address: "127.0.0.1" },
    { what: "a decimal IPv4 form", host: "2130706433", port: v4.port, address: "127.0.0.1" },
    { what: "a hex IPv4 form", host: "0x7f.1", port: v4.port, address: "127.0.0.1" },
    { what: "localhost", host: "localhost", port: v4.port, address: "127.0.0.1" },
  ];
  const resolver = () => tableResolver({ "sneaky.test": ["127.0.0.1"], localhost: ["127.0.0.1"] });

  it("refuses loopback destinations for a host allowed without allowPrivate, over plain HTTP", async () => {
    for (const c of cases()) {
      const { proxy, events } = await proxyWith({ decide: allow(false), resolver: resolver() });
      const res = await httpViaProxy(proxy.endpoints.http, `http://${c.host}:${c.port}/`);
      expect(res.status, c.what).toBe(403);
      expect(res.body, c.what).toMatch(/refused: .*loopback address, reachable only for a host granted by name in the configuration\n$/);
      expect(events, c.what).toEqual([expect.objectContaining({ decision: "deny", cause: "private-address", address: c.address })]);
    }
  });

  it("lets the same requests through with allowPrivate (the control)", async () => {
    for (const c of cases()) {
      const { proxy, events } = await proxyWith({ decide: allow(true), resolver: resolver() });
      const res = await httpViaProxy(proxy.endpoints.http, `http://${c.host}:${c.port}/ok`);
      expect(res, c.what).toMatchObject({ status: 200, body: `${c.address === "::1" ? "v6" : "v4"} /ok` });
      expect(events[0], c.what).toMatchObject({ decision: "allow", address: c.address });
    }
  });

  it("refuses ::ffff:127.0.0.1 and 169.254.169.254 over CONNECT and SOCKS5 without connecting", async () => {
    for (const host of ["[::ffff:127.0.0.1]", "169.254.169.254"]) {
      const { proxy, events } = await proxyWith({ decide: allow(false), connectTimeoutMs: 200 });
      const tunnel = await connectViaProxy(proxy.endpoints.http, `${host}:80`);
      expect(tunnel.status, host).toBe(403);
      expect(tunnel.body, host).toMatch(/(loopback|link-local) address/);
      const literal = host.startsWith("[") ? { ipv6: "::ffff:7f00:1", port: 80 } : { ipv4: host, port: 80 };
      const socks = await socksRequest(proxy.endpoints.socks, literal);
      expect(socks.reply, host).toBe(0x02);
      expect(events.map((e) => e.cause), host).toEqual(["private-address", "private-address"]);
    }
  });

  it("refuses 0.0.0.0 and multicast even with allowPrivate", async () => {
    const { proxy, events } = await proxyWith({ decide: allow(true), connectTimeoutMs: 200 });
    expect((await httpViaProxy(proxy.endpoints.http, `http://0.0.0.0:${v4.port}/`)).status).toBe(403);
    expect((await socksRequest(proxy.endpoints.socks, { ipv4: "224.0.0.1", port: 80 })).reply).toBe(0x02);
    expect(events.map((e) => [e.cause, e.address])).toEqual([["private-address", "0.0.0.0"], ["private-address", "224.0.0.1"]]);
  });

  it("checks every address a name resolves to, not only the first", async () => {
    const { proxy, events } = await proxyWith({ decide: allow(false), resolver: tableResolver({ "mixed.test": ["::1", "127.0.0.1"] }) });
    const res = await httpViaProxy(proxy.endpoints.http, `http://mixed.test:${v4.port}/`);
    expect(res.status).toBe(403);
    expect(events[0]).toMatchObject({ cause: "private-address", address: "::1" });
  });
});

describe("DNS pinning", () => {
  // Two origins on the same port at two loopback addresses: the name "rebinds" from the first to the
  // second after its first resolution. A proxy that let a library resolve the name again would land
  // on the second.
  it("connects to the address it checked and resolves once per request", async () => {
    const first = await startOrigin("checked", "127.0.0.2");
    const second = await startOrigin("rebound", "127.0.0.3", first.port).catch(() => undefined);
    try {
      let calls = 0;
      const resolver = async () => [{ address: ++calls === 1 ? "127.0.0.2" : "127.0.0.3", family: 4 as const }];
      for (const via of ["http", "https", "socks"] as const) {
        calls = 0;
        const { proxy } = await proxyWith({ decide: allow(true), resolver });
        let body: string;
        if (via === "http") {
          body = (await httpViaProxy(proxy.endpoints.http, `http://rebind.test:${first.port}/x`)).body;
        } else {
          const socket = via === "https"
            ? (await connectViaProxy(proxy.endpoints.http, `rebind.test:${first.port}`)).socket
            : (await socksRequest(proxy.endpoints.socks, { name: "rebind.test", port: first.port })).socket;
          socket.write("GET /x HTTP/1.1\r\nHost: rebind.test\r\nConnection: close\r\n\r\n");
          body = (await readAll(socket)).split("\r\n\r\n").pop() ?? "";
        }
        expect(body, via).toBe("checked /x");
        expect(calls, via).toBe(1);
      }
    } finally {
      await first.close();
      await second?.close();
    }
  });
});

describe("resolver answers", () => {
  it("a resolver that never answers ends as resolve-failed after connectTimeoutMs", async () => {
    const { proxy, events } = await proxyWith({ decide: allow(true), resolver: () => new Promise<never>(() => {}), connectTimeoutMs: 100 });
    const res = await httpViaProxy(proxy.endpoints.http, "http://slow.test/");
    expect(res.status).toBe(502);
    expect(events[0]).toMatchObject({ cause: "resolve-failed", reason: "cannot resolve slow.test (ETIMEDOUT)" });
  });

  it("ignores answers that are not addresses, and refuses a scoped IPv6 address", async () => {
    const resolver = async (host: string) =>
      host === "junk.test" ? [{ address: "not-an-ip", family: 4 as const }] : [{ address: "fe80::1%lo", family: 6 as const }];
    const { proxy, events } = await proxyWith({ decide: allow(true), resolver });
    expect((await httpViaProxy(proxy.endpoints.http, "http://junk.test/")).status).toBe(502);
    expect((await httpViaProxy(proxy.endpoints.http, "http://scoped.test/")).status).toBe(403);
    expect(events.map((e) => e.cause)).toEqual(["resolve-failed", "private-address"]);
  });
});


describe("hosts allowed by name (allowNamed)", () => {
  // Origins on documentation, fake-IP and private addresses exist only inside a network namespace
  // of this test's own (nothing leaves the machine); the proxy runs there too.
  it.skipIf(netnsSkip !== undefined)("a host allowed by name reaches documentation, fake-IP and private addresses; without the name grant they are refused", async () => {
    const addresses = ["203.0.113.80", "198.18.0.7", "10.255.255.1"];
    const out = await runInNetns(addresses, `
      const http = await import("node:http");
      const { startNetworkProxy } = await import(DIST);
      const results = [];
      for (const address of ADDRESSES) {
        const origin = http.createServer((q, r) => r.end("origin " + address));
        await new Promise((ok) => origin.listen(8080, address, ok));
        for (const verdict of [{ decision: "allow", allowNamed: true }, { decision: "allow" }]) {
          const events = [];
          const proxy = await startNetworkProxy({ decide: () => verdict, listen: { transport: "loopback-tcp" }, resolver: async () => [{ address, family: 4 }], onRequest: (e) => events.push(e) });
          const body = await new Promise((ok, no) => http.get({ host: "127.0.0.1", port: proxy.endpoints.http.port, path: "http://registry.test:8080/" }, (res) => {
            let b = ""; res.on("data", (d) => (b += d)); res.on("end", () => ok(res.statusCode + " " + b));
          }).on("error", no));
          results.push({ address, named: verdict.allowNamed === true, body, cause: events[0].cause });
          await proxy.stop();
        }
        origin.close();
      }
      console.log(JSON.stringify(results));
    `);
    const results = JSON.parse(out) as Array<{ address: string; named: boolean; body: string; cause: string }>;
    for (const address of addresses) {
      expect(results.find((r) => r.address === address && r.named)).toMatchObject({ body: `200 origin ${address}`, cause: "default" });
      expect(results.find((r) => r.address === address && !r.named)).toMatchObject({ cause: "private-address" });
    }
  });
  it("allowNamed does not open loopback, link-local or broadcast", async () => {
    const resolver = tableResolver({ "a.test": ["127.0.0.1"], "b.test": ["169.254.169.254"], "c.test": ["255.255.255.255"] });
    const { proxy, events } = await proxyWith({ decide: () => ({ decision: "allow", allowNamed: true }), resolver, connectTimeoutMs: 200 });
    for (const host of ["a.test", "b.test", "c.test"]) expect((await httpViaProxy(proxy.endpoints.http, `http://${host}:${v4.port}/`)).status, host).toBe(403);
    expect(events.map((e) => e.cause)).toEqual(["private-address", "private-address", "private-address"]);
  });
});
