import https from "node:https";
import type { AddressInfo } from "node:net";
import tls from "node:tls";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProxyRequest } from "../src/index.js";
import { connectTo, connectViaProxy, readBytes, grants, httpViaProxy, proxyWith, rawExchange, readAll, selfSignedCert, startOrigin, stopAll, tableResolver } from "./helpers.js";

let origin: Awaited<ReturnType<typeof startOrigin>>;
beforeAll(async () => {
  origin = await startOrigin("registry");
});
afterAll(() => origin.close());
afterEach(stopAll);

describe("plain HTTP", () => {
  it("forwards a request for a granted host to the address the resolver gave", async () => {
    const resolver = tableResolver({ "registry.test": ["127.0.0.1"] });
    const { proxy, events } = await proxyWith({ decide: grants("registry.test"), resolver });
    const res = await httpViaProxy(proxy.endpoints.http, `http://registry.test:${origin.port}/pkg`);
    expect(res).toMatchObject({ status: 200, body: "registry /pkg" });
    expect(events).toEqual([
      { protocol: "http", host: "registry.test", port: origin.port, decision: "allow", cause: "default", address: "127.0.0.1" },
    ]);
  });

  it("refuses a denied host with 403 and a readable body, without resolving it", async () => {
    const resolver = tableResolver({ "evil.test": ["127.0.0.1"] });
    const { proxy, events } = await proxyWith({ decide: grants("registry.test"), resolver });
    const res = await httpViaProxy(proxy.endpoints.http, `http://evil.test:${origin.port}/steal`);
    expect(res.status).toBe(403);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.body).toBe(
      `shellgate: network access to evil.test:${origin.port} refused: no rule or grant allows this host\nTo allow it: re-run with --allow-domain evil.test\n`,
    );
    expect(resolver.calls).toEqual([]);
    expect(events).toEqual([
      { protocol: "http", host: "evil.test", port: origin.port, decision: "deny", cause: "default", reason: "no rule or grant allows this host" },
    ]);
  });

  it("names the rule that forbade a host", async () => {
    const rule = { file: "/p/net.rules", line: 3, column: 1 };
    const { proxy, events } = await proxyWith({
      decide: () => ({ decision: "deny", reason: "forbidden by network_rule at /p/net.rules:3:1", rule }),
      resolver: tableResolver({}),
    });
    const res = await httpViaProxy(proxy.endpoints.http, "http://evil.test/");
    expect(res.body).toBe("shellgate: network access to evil.test:80 refused: forbidden by network_rule at /p/net.rules:3:1\n");
    expect(events[0]).toMatchObject({ decision: "deny", cause: "rule", rule });
  });

  it("passes decide the normalised host, protocol and port", async () => {
    const seen: ProxyRequest[] = [];
    const { proxy } = await proxyWith({ decide: (r) => (seen.push(r), { decision: "deny" }), resolver: tableResolver({}) });
    await httpViaProxy(proxy.endpoints.http, "http://Registry.TEST.:8080/");
    await httpViaProxy(proxy.endpoints.http, "http://0x7f.1/");
    expect(seen).toEqual([
      { protocol: "http", host: "registry.test", port: 8080 },
      { protocol: "http", host: "127.0.0.1", port: 80 },
    ]);
  });

  it("fails closed when decide throws or rejects", async () => {
    for (const decide of [() => { throw new Error("boom"); }, async () => Promise.reject(new Error("later boom")), () => null as never]) {
      const resolver = tableResolver({ "registry.test": ["127.0.0.1"] });
      const { proxy, events } = await proxyWith({ decide, resolver });
      const res = await httpViaProxy(proxy.endpoints.http, `http://registry.test:${origin.port}/`);
      expect(res.status).toBe(403);
      expect(res.body).toMatch(/^shellgate: network access to registry\.test:\d+ refused: the network policy failed/);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ decision: "deny", cause: "decide-failed" });
      expect(resolver.calls).toEqual([]);
    }
  });

  it("treats anything but decision 'allow' as deny", async () => {
    const { proxy, events } = await proxyWith({ decide: () => ({ decision: "ALLOW" as never }), resolver: tableResolver({ "registry.test": ["127.0.0.1"] }) });
    const res = await httpViaProxy(proxy.endpoints.http, `http://registry.test:${origin.port}/`);
    expect(res.status).toBe(403);
    expect(events[0]).toMatchObject({ decision: "deny" });
  });

  it("answers 502 with cause resolve-failed for a name that does not resolve", async () => {
    const { proxy, events } = await proxyWith({ decide: grants("nowhere.test"), resolver: tableResolver({}) });
    const res = await httpViaProxy(proxy.endpoints.http, "http://nowhere.test/");
    expect(res.status).toBe(502);
    expect(res.body).toBe("shellgate: network access to nowhere.test:80 failed: cannot resolve nowhere.test (ENOTFOUND)\n");
    expect(events[0]).toMatchObject({ decision: "deny", cause: "resolve-failed" });
  });

  it("answers 502 with cause upstream-failed when nothing listens at the checked address", async () => {
    const closed = await startOrigin("gone");
    await closed.close();
    const { proxy, events } = await proxyWith({ decide: grants("down.test"), resolver: tableResolver({ "down.test": ["127.0.0.1"] }) });
    const res = await httpViaProxy(proxy.endpoints.http, `http://down.test:${closed.port}/`);
    expect(res.status).toBe(502);
    expect(res.body).toContain("ECONNREFUSED");
    expect(events).toEqual([
      expect.objectContaining({ decision: "deny", cause: "upstream-failed", address: "127.0.0.1", host: "down.test" }),
    ]);
  });

  it("answers 400 for a host it cannot act on, without calling decide", async () => {
    let called = 0;
    const { proxy, events } = await proxyWith({ decide: () => (called++, { decision: "allow" }), resolver: tableResolver({}) });
    const reply = await rawExchange(proxy.endpoints.http, "CONNECT *.evil.test:443 HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(called).toBe(0);
    expect(events[0]).toMatchObject({ decision: "deny", cause: "bad-request", protocol: "https" });
  });

  it("decides and checks every request on a keep-alive client connection afresh", async () => {
    let n = 0;
    const { proxy, events } = await proxyWith({
      decide: () => (++n === 1 ? { decision: "allow", allowPrivate: true } : { decision: "deny" }),
      resolver: tableResolver({ "registry.test": ["127.0.0.1"] }),
    });
    const socket = connectTo(proxy.endpoints.http);
    const request = `GET http://registry.test:${origin.port}/ HTTP/1.1\r\nHost: registry.test\r\n\r\n`;
    socket.write(request);
    const first = (await readBytes(socket, 12)).toString();
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.write(request);
    const rest = await readAll(socket);
    expect(first).toBe("HTTP/1.1 200");
    expect(rest).toMatch(/HTTP\/1\.1 403 /);
    expect(events.map((e) => e.decision)).toEqual(["allow", "deny"]);
  });
});

describe("CONNECT (HTTPS)", () => {
  const cert = selfSignedCert("registry.test");
  let tlsOrigin: https.Server | undefined;
  let tlsPort = 0;
  beforeAll(async () => {
    if (!cert) return;
    tlsOrigin = https.createServer(cert, (req, res) => res.end(`tls ${req.url}`));
    await new Promise<void>((resolve) => tlsOrigin?.listen(0, "127.0.0.1", () => resolve()));
    tlsPort = (tlsOrigin.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => (tlsOrigin ? (tlsOrigin.closeAllConnections(), tlsOrigin.close(() => resolve())) : resolve())));

  skipUnless(cert ? undefined : "no /usr/bin/openssl to make the test certificate").it("tunnels TLS end to end to a granted host (certificate verified against the test CA)", async () => {
    const { proxy, events } = await proxyWith({ decide: grants("registry.test"), resolver: tableResolver({ "registry.test": ["127.0.0.1"] }) });
    const tunnel = await connectViaProxy(proxy.endpoints.http, `registry.test:${tlsPort}`);
    expect(tunnel.status).toBe(200);
    const secure = tls.connect({ socket: tunnel.socket, servername: "registry.test", ca: cert?.cert });
    await new Promise<void>((resolve, reject) => secure.once("secureConnect", resolve).once("error", reject));
    expect(secure.authorized).toBe(true);
    secure.write("GET /tarball HTTP/1.1\r\nHost: registry.test\r\nConnection: close\r\n\r\n");
    expect(await readAll(secure)).toMatch(/\r\n\r\ntls \/tarball$/);
    expect(events).toEqual([{ protocol: "https", host: "registry.test", port: tlsPort, decision: "allow", cause: "default", address: "127.0.0.1" }]);
  });

  it("refuses a denied host with 403 and the readable body", async () => {
    const resolver = tableResolver({ "evil.test": ["127.0.0.1"] });
    const { proxy, events } = await proxyWith({ decide: grants("registry.test"), resolver });
    const tunnel = await connectViaProxy(proxy.endpoints.http, "evil.test:443");
    expect(tunnel.status).toBe(403);
    expect(tunnel.body).toBe("shellgate: network access to evil.test:443 refused: no rule or grant allows this host\nTo allow it: re-run with --allow-domain evil.test\n");
    expect(resolver.calls).toEqual([]);
    expect(events).toEqual([{ protocol: "https", host: "evil.test", port: 443, decision: "deny", cause: "default", reason: "no rule or grant allows this host" }]);
  });

  it("passes bytes the client sent with the CONNECT request on to the destination", async () => {
    const { proxy } = await proxyWith({ decide: grants("registry.test"), resolver: tableResolver({ "registry.test": ["127.0.0.1"] }) });
    const reply = await rawExchange(
      proxy.endpoints.http,
      `CONNECT registry.test:${origin.port} HTTP/1.1\r\nHost: x\r\n\r\nGET /early HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK[\s\S]*registry \/early$/);
  });
});
