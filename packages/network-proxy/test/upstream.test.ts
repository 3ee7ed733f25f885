import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  bypassesUpstream,
  NetworkProxyError,
  parseNoProxy,
  parseUpstreamUrl,
  redactProxyUrl,
  startNetworkProxy,
  UnsupportedUpstreamError,
  upstreamSettingsFromEnv,
  type UpstreamSettings,
} from "../src/index.js";
import { connectViaProxy, grants, httpViaProxy, proxyWith, readAll, socksRequest, startOrigin, stopAll, tableResolver } from "./helpers.js";
import { startHttpUpstream, startSocksUpstream } from "./upstream-fakes.js";

describe("upstream settings from the environment", () => {
  it("reads the proxy variables, lower case first, empty values unset", () => {
    expect(upstreamSettingsFromEnv({ PATH: "/bin" })).toBeUndefined();
    expect(upstreamSettingsFromEnv({ HTTPS_PROXY: "http://a.example.com:1", https_proxy: "http://b.example.com:2", HTTP_PROXY: "", ALL_PROXY: "socks5h://c.example.com", NO_PROXY: "x.test" })).toEqual({
      https: { url: "http://b.example.com:2", variable: "https_proxy" },
      all: { url: "socks5h://c.example.com", variable: "ALL_PROXY" },
      noProxy: { value: "x.test", variable: "NO_PROXY" },
    });
  });

  it("parses http, socks5 and socks5h URLs (a bare host:port is http), with credentials, and shows them redacted", () => {
    expect(parseUpstreamUrl({ url: "proxy.example.com:3128", variable: "HTTP_PROXY" })).toMatchObject({ protocol: "http", host: "proxy.example.com", port: 3128 });
    expect(parseUpstreamUrl({ url: "http://u%40corp:p%3Aw@proxy.example.com", variable: "HTTPS_PROXY" })).toEqual({
      protocol: "http",
      host: "proxy.example.com",
      port: 80,
      username: "u@corp",
      password: "p:w",
      variable: "HTTPS_PROXY",
      shown: "http://u%40corp:***@proxy.example.com",
    });
    expect(parseUpstreamUrl({ url: "socks5h://[::1]", variable: "ALL_PROXY" })).toMatchObject({ protocol: "socks5h", host: "::1", port: 1080 });
    expect(parseUpstreamUrl({ url: "SOCKS5://10.0.0.1:9050", variable: "ALL_PROXY" })).toMatchObject({ protocol: "socks5", port: 9050 });
    expect(redactProxyUrl("http://user:secret@proxy.example.com:8080/")).toBe("http://user:***@proxy.example.com:8080");
    expect(redactProxyUrl("http://proxy.example.com:8080")).toBe("http://proxy.example.com:8080");
  });

  it.each(["https://proxy.example.com", "socks4://proxy.example.com", "ftp://proxy.example.com", "http://"])("refuses %s with NETPROXY_UNSUPPORTED_UPSTREAM naming the variable", (url) => {
    let thrown: unknown;
    try {
      parseUpstreamUrl({ url: url.replace("proxy", "u:secret@proxy"), variable: "HTTPS_PROXY" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnsupportedUpstreamError);
    expect(thrown).toBeInstanceOf(NetworkProxyError);
    expect((thrown as UnsupportedUpstreamError).code).toBe("NETPROXY_UNSUPPORTED_UPSTREAM");
    expect((thrown as UnsupportedUpstreamError).variable).toBe("HTTPS_PROXY");
    expect((thrown as Error).message).toMatch(/^HTTPS_PROXY=/);
    expect((thrown as Error).message).not.toContain("secret");
  });
});

describe("NO_PROXY", () => {
  const { entries, ignored } = parseNoProxy("registry.example.org, .corp.example.com *.internal.test,10.1.2.3,[::1]:8080, intranet.test:8443, 10.0.0.0/8, FD00::5");
  it.each([
    ["registry.example.org", 443, true],
    ["mirror.registry.example.org", 443, true],
    ["xregistry.example.org", 443, false],
    ["corp.example.com", 443, false],
    ["a.corp.example.com", 443, true],
    ["internal.test", 80, false],
    ["a.b.internal.test", 80, true],
    ["10.1.2.3", 80, true],
    ["10.1.2.4", 80, false],
    ["10.9.9.9", 80, false],
    ["::1", 8080, true],
    ["::1", 80, false],
    ["fd00::5", 443, true],
    ["intranet.test", 8443, true],
    ["intranet.test", 443, false],
    ["example.com", 443, false],
  ])("%s port %d bypasses the upstream: %s", (host, port, expected) => {
    expect(bypassesUpstream(entries, host, port)).toBe(expected);
  });
  it("lists what it does not support (CIDR) instead of guessing", () => {
    expect(ignored).toEqual(["10.0.0.0/8"]);
  });
  it("`*` sends everything direct; an empty value nothing", () => {
    expect(bypassesUpstream(parseNoProxy("*").entries, "anything.test", 1)).toBe(true);
    expect(bypassesUpstream(parseNoProxy("").entries, "anything.test", 1)).toBe(false);
  });
});

describe("chaining through an upstream proxy", () => {
  let origin: Awaited<ReturnType<typeof startOrigin>>;
  beforeAll(async () => {
    origin = await startOrigin("origin");
  });
  afterAll(() => origin.close());
  afterEach(stopAll);
  // The proxy resolves origin.test to loopback (granted explicitly, as the CLI's --allow-domain
  // does); the fake upstreams map names to loopback themselves.
  const table = { "origin.test": "127.0.0.1", "outside.test": "127.0.0.1" };
  const resolver = () => tableResolver({ "origin.test": ["127.0.0.1"], "denied.test": ["127.0.0.1"] });
  const viaHttp = (port: number, credentials = "") => ({ https: { url: `http://${credentials}127.0.0.1:${port}`, variable: "HTTPS_PROXY" }, http: { url: `http://${credentials}127.0.0.1:${port}`, variable: "HTTP_PROXY" } });

  async function tunnelGet(socket: import("node:net").Socket): Promise<string> {
    socket.write("GET /t HTTP/1.1\r\nHost: origin.test\r\nConnection: close\r\n\r\n");
    return (await readAll(socket)).split("\r\n\r\n").pop() ?? "";
  }

  it("HTTP upstream with credentials: CONNECT for tunnels, absolute form for plain HTTP, Proxy-Authorization on both", async () => {
    const upstream = await startHttpUpstream(table, "me:s3cret");
    try {
      const { proxy, events } = await proxyWith({ decide: grants("origin.test"), resolver: resolver(), upstream: viaHttp(upstream.port, "me:s3cret@") });
      const plain = await httpViaProxy(proxy.endpoints.http, `http://origin.test:${origin.port}/p`);
      expect(plain).toMatchObject({ status: 200, body: "origin /p" });
      const tunnel = await connectViaProxy(proxy.endpoints.http, `origin.test:${origin.port}`);
      expect(tunnel.status).toBe(200);
      expect(await tunnelGet(tunnel.socket)).toBe("origin /t");
      const socks = await socksRequest(proxy.endpoints.socks, { name: "origin.test", port: origin.port });
      expect(socks.reply).toBe(0);
      expect(await tunnelGet(socks.socket)).toBe("origin /t");
      const auth = `Basic ${Buffer.from("me:s3cret").toString("base64")}`;
      expect(upstream.log.requests).toEqual([
        { kind: "forward", target: `http://origin.test:${origin.port}/p`, auth },
        { kind: "connect", target: `origin.test:${origin.port}`, auth },
        { kind: "connect", target: `origin.test:${origin.port}`, auth },
      ]);
      expect(events.map((e) => [e.decision, e.upstream])).toEqual([
        ["allow", `http://me:***@127.0.0.1:${upstream.port}`],
        ["allow", `http://me:***@127.0.0.1:${upstream.port}`],
        ["allow", `http://me:***@127.0.0.1:${upstream.port}`],
      ]);
    } finally {
      await upstream.close();
    }
  });

  it("wrong credentials: the upstream's 407 is a gateway failure that says so", async () => {
    const upstream = await startHttpUpstream(table, "me:s3cret");
    try {
      const { proxy, events } = await proxyWith({ decide: grants("origin.test"), resolver: resolver(), upstream: viaHttp(upstream.port, "me:wrong@") });
      const tunnel = await connectViaProxy(proxy.endpoints.http, `origin.test:${origin.port}`);
      expect(tunnel.status).toBe(502);
      expect(events[0]).toMatchObject({ cause: "upstream-failed" });
      expect(events[0]?.reason).toContain("answered 407");
      expect(events[0]?.reason).toContain("from HTTPS_PROXY");
      expect(events[0]?.reason).not.toContain("wrong");
    } finally {
      await upstream.close();
    }
  });

  it.each(["socks5h", "socks5"] as const)("%s upstream with username and password carries plain HTTP and tunnels", async (scheme) => {
    const upstream = await startSocksUpstream(table, "me:s3cret");
    try {
      const url = `${scheme}://me:s3cret@127.0.0.1:${upstream.port}`;
      const { proxy, events } = await proxyWith({ decide: grants("origin.test"), resolver: resolver(), upstream: { all: { url, variable: "ALL_PROXY" } } });
      expect(await httpViaProxy(proxy.endpoints.http, `http://origin.test:${origin.port}/p`)).toMatchObject({ status: 200, body: "origin /p" });
      const tunnel = await connectViaProxy(proxy.endpoints.http, `origin.test:${origin.port}`);
      expect(await tunnelGet(tunnel.socket)).toBe("origin /t");
      // socks5h sends the name on; socks5 the address checked here.
      const target = scheme === "socks5h" ? `origin.test:${origin.port}` : `127.0.0.1:${origin.port}`;
      expect(upstream.log.requests).toEqual([
        { kind: "socks", target, auth: "me:s3cret" },
        { kind: "socks", target, auth: "me:s3cret" },
      ]);
      expect(events.every((e) => e.upstream === `${scheme}://me:***@127.0.0.1:${upstream.port}`)).toBe(true);
    } finally {
      await upstream.close();
    }
  });

  it("the policy judges first: a refused host never reaches the upstream, nor the resolver", async () => {
    const upstream = await startHttpUpstream(table);
    const socks = await startSocksUpstream(table);
    try {
      for (const settings of [viaHttp(upstream.port), { all: { url: `socks5h://127.0.0.1:${socks.port}`, variable: "ALL_PROXY" } }] as UpstreamSettings[]) {
        const r = resolver();
        const { proxy, events } = await proxyWith({ decide: grants("origin.test"), resolver: r, upstream: settings });
        expect((await httpViaProxy(proxy.endpoints.http, `http://denied.test:${origin.port}/`)).status).toBe(403);
        expect((await connectViaProxy(proxy.endpoints.http, `denied.test:${origin.port}`)).status).toBe(403);
        expect((await socksRequest(proxy.endpoints.socks, { name: "denied.test", port: origin.port })).reply).toBe(0x02);
        expect(events.map((e) => [e.decision, e.cause, e.upstream])).toEqual([
          ["deny", "default", undefined],
          ["deny", "default", undefined],
          ["deny", "default", undefined],
        ]);
        expect(r.calls).toEqual([]);
      }
      expect(upstream.log.connections).toBe(0);
      expect(socks.log.connections).toBe(0);
      // Control: an allowed host does reach it.
      const { proxy } = await proxyWith({ decide: grants("origin.test"), resolver: resolver(), upstream: viaHttp(upstream.port) });
      expect((await httpViaProxy(proxy.endpoints.http, `http://origin.test:${origin.port}/`)).status).toBe(200);
      expect(upstream.log.connections).toBe(1);
    } finally {
      await upstream.close();
      await socks.close();
    }
  });

  it("the address check still holds behind an upstream: a host allowed by name only may not resolve to loopback", async () => {
    const upstream = await startHttpUpstream(table);
    try {
      const { proxy, events } = await proxyWith({ decide: () => ({ decision: "allow", allowNamed: true }), resolver: resolver(), upstream: viaHttp(upstream.port) });
      expect((await connectViaProxy(proxy.endpoints.http, `origin.test:${origin.port}`)).status).toBe(403);
      expect(events[0]).toMatchObject({ cause: "private-address", refusedBy: "needs-explicit-grant" });
      expect(upstream.log.connections).toBe(0);
    } finally {
      await upstream.close();
    }
  });

  it("NO_PROXY hosts go direct", async () => {
    const upstream = await startHttpUpstream(table);
    try {
      const settings = { ...viaHttp(upstream.port), noProxy: { value: `.example.com,origin.test:${origin.port}`, variable: "NO_PROXY" } };
      const { proxy, events } = await proxyWith({ decide: grants("origin.test"), resolver: resolver(), upstream: settings });
      expect(await httpViaProxy(proxy.endpoints.http, `http://origin.test:${origin.port}/d`)).toMatchObject({ status: 200, body: "origin /d" });
      expect(await tunnelGet((await connectViaProxy(proxy.endpoints.http, `origin.test:${origin.port}`)).socket)).toBe("origin /t");
      expect(upstream.log.connections).toBe(0);
      expect(events.map((e) => [e.decision, e.upstream])).toEqual([["allow", undefined], ["allow", undefined]]);
    } finally {
      await upstream.close();
    }
  });

  it("a name the host cannot resolve is resolved by an HTTP or socks5h upstream; socks5 needs it resolved here", async () => {
    const upstream = await startHttpUpstream(table);
    const socks = await startSocksUpstream(table);
    try {
      const a = await proxyWith({ decide: grants("outside.test"), resolver: resolver(), upstream: viaHttp(upstream.port) });
      expect(await tunnelGet((await connectViaProxy(a.proxy.endpoints.http, `outside.test:${origin.port}`)).socket)).toBe("origin /t");
      expect(a.events[0]).not.toHaveProperty("address");
      const b = await proxyWith({ decide: grants("outside.test"), resolver: resolver(), upstream: { all: { url: `socks5h://127.0.0.1:${socks.port}`, variable: "ALL_PROXY" } } });
      expect(await tunnelGet((await connectViaProxy(b.proxy.endpoints.http, `outside.test:${origin.port}`)).socket)).toBe("origin /t");
      const c = await proxyWith({ decide: grants("outside.test"), resolver: resolver(), upstream: { all: { url: `socks5://127.0.0.1:${socks.port}`, variable: "ALL_PROXY" } } });
      expect((await connectViaProxy(c.proxy.endpoints.http, `outside.test:${origin.port}`)).status).toBe(502);
      expect(c.events[0]).toMatchObject({ cause: "resolve-failed" });
    } finally {
      await upstream.close();
      await socks.close();
    }
  });

  it("an upstream it cannot use fails the start, naming the variable", async () => {
    await expect(
      startNetworkProxy({ decide: grants(), listen: { transport: "loopback-tcp" }, upstream: { https: { url: "socks4://proxy.example.com", variable: "HTTPS_PROXY" } } }),
    ).rejects.toMatchObject({ code: "NETPROXY_UNSUPPORTED_UPSTREAM", variable: "HTTPS_PROXY" });
  });
});
