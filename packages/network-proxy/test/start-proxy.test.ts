import { chmodSync, existsSync, lstatSync, mkdirSync, symlinkSync } from "node:fs";
import type { Server } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { NetworkProxyError, startNetworkProxy, type NetworkProxy, type NetworkRequestEvent } from "../src/index.js";
import { kListeners } from "../src/start-proxy.js";
import { connectViaProxy, grants, httpViaProxy, privateDir, proxyWith, readAll, socksRequest, startOrigin, stopAll, tableResolver } from "./helpers.js";

let origin: Awaited<ReturnType<typeof startOrigin>>;
beforeAll(async () => {
  origin = await startOrigin("registry");
});
afterAll(() => origin.close());
afterEach(stopAll);

const resolver = () => tableResolver({ "registry.test": ["127.0.0.1"] });

async function rejection(promise: Promise<unknown>): Promise<NetworkProxyError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(NetworkProxyError);
  return error as NetworkProxyError;
}

describe("unix-socket transport", () => {
  it("listens on http.sock and socks.sock (0600) in the directory and removes them on stop", async () => {
    const { dir, remove } = privateDir();
    try {
      const proxy = await startNetworkProxy({ listen: { transport: "unix-socket", directory: dir }, decide: grants("registry.test"), resolver: resolver() });
      expect(proxy.endpoints).toEqual({ http: { socketPath: join(dir, "http.sock") }, socks: { socketPath: join(dir, "socks.sock") } });
      for (const path of [join(dir, "http.sock"), join(dir, "socks.sock")]) {
        expect(lstatSync(path).isSocket()).toBe(true);
        expect(lstatSync(path).mode & 0o777).toBe(0o600);
      }
      expect(await httpViaProxy(proxy.endpoints.http, `http://registry.test:${origin.port}/u`)).toMatchObject({ status: 200, body: "registry /u" });
      expect((await httpViaProxy(proxy.endpoints.http, "http://evil.test/")).status).toBe(403);
      const tunnel = await connectViaProxy(proxy.endpoints.http, `registry.test:${origin.port}`);
      expect(tunnel.status).toBe(200);
      tunnel.socket.end("GET /t HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      expect(await readAll(tunnel.socket)).toMatch(/registry \/t$/);
      const { reply, socket } = await socksRequest(proxy.endpoints.socks, { name: "registry.test", port: origin.port });
      expect(reply).toBe(0);
      socket.end("GET /s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      expect(await readAll(socket)).toMatch(/registry \/s$/);
      await proxy.stop();
      expect(existsSync(join(dir, "http.sock"))).toBe(false);
      expect(existsSync(join(dir, "socks.sock"))).toBe(false);
    } finally {
      remove();
    }
  });

  it("refuses a group- or world-writable directory, a symlink and a missing one with NETPROXY_INVALID_OPTIONS", async () => {
    const { dir, remove } = privateDir();
    try {
      const open = join(dir, "open");
      mkdirSync(open);
      chmodSync(open, 0o777);
      const group = join(dir, "group");
      mkdirSync(group);
      chmodSync(group, 0o770);
      const link = join(dir, "link");
      symlinkSync(dir, link);
      for (const directory of [open, group, link, join(dir, "missing")]) {
        const error = await rejection(startNetworkProxy({ listen: { transport: "unix-socket", directory }, decide: grants() }));
        expect(error.code, directory).toBe("NETPROXY_INVALID_OPTIONS");
        expect(error.message, directory).toMatch(/^listen\.directory: /);
      }
      expect(existsSync(join(open, "http.sock"))).toBe(false);
    } finally {
      remove();
    }
  });

  it("fails to start with NETPROXY_START_FAILED when a socket path is taken, and leaves nothing listening", async () => {
    const { dir, remove } = privateDir();
    try {
      const first = await startNetworkProxy({ listen: { transport: "unix-socket", directory: dir }, decide: grants() });
      const error = await rejection(startNetworkProxy({ listen: { transport: "unix-socket", directory: dir }, decide: grants() }));
      expect(error.code).toBe("NETPROXY_START_FAILED");
      expect(first.alive).toBe(true);
      await first.stop();
    } finally {
      remove();
    }
  });
});

describe("options", () => {
  it.each([
    [{ listen: { transport: "loopback-tcp" } }, "decide"],
    [{ decide: "allow", listen: { transport: "loopback-tcp" } }, "decide"],
    [{ decide: () => ({ decision: "allow" }), listen: { transport: "udp" } }, "listen.transport"],
    [{ decide: () => ({ decision: "allow" }), listen: { transport: "unix-socket", directory: "relative/dir" } }, "listen.directory"],
    [{ decide: () => ({ decision: "allow" }), listen: { transport: "unix-socket", directory: `/${"d".repeat(120)}` } }, "listen.directory"],
    [{ decide: () => ({ decision: "allow" }), listen: { transport: "loopback-tcp" }, connectTimeoutMs: 0 }, "connectTimeoutMs"],
    [{ decide: () => ({ decision: "allow" }), listen: { transport: "loopback-tcp" }, resolver: 42 }, "resolver"],
    [{ decide: () => ({ decision: "allow" }), listen: { transport: "loopback-tcp" }, maxConnections: 0 }, "maxConnections"],
    [{ decide: () => ({ decision: "allow" }), listen: { transport: "loopback-tcp" }, maxConnections: 1.5 }, "maxConnections"],
    [{ decide: () => ({ decision: "allow" }), listen: { transport: "loopback-tcp" }, port: 8080 }, "options"],
  ])("refuses %j naming %s", async (options, field) => {
    const error = await rejection(startNetworkProxy(options as never));
    expect(error.code).toBe("NETPROXY_INVALID_OPTIONS");
    expect((error as NetworkProxyError & { field: string }).field).toBe(field);
  });
});

describe("lifecycle", () => {
  it("reports two loopback ports and stays alive until stop()", async () => {
    const { proxy } = await proxyWith({ decide: grants() });
    expect(proxy.endpoints.http.port).toBeGreaterThan(0);
    expect(proxy.endpoints.socks.port).toBeGreaterThan(0);
    expect(proxy.endpoints.http.socketPath).toBeUndefined();
    expect(proxy.alive).toBe(true);
    await proxy.stop();
    await proxy.stop();
    expect(proxy.alive).toBe(false);
    expect(await proxy.closed).toEqual({});
  });

  it("stop() closes open CONNECT tunnels and SOCKS streams", async () => {
    const { proxy } = await proxyWith({ decide: grants("registry.test"), resolver: resolver() });
    const tunnel = await connectViaProxy(proxy.endpoints.http, `registry.test:${origin.port}`);
    const { socket } = await socksRequest(proxy.endpoints.socks, { name: "registry.test", port: origin.port });
    const closedTunnel = new Promise((resolve) => tunnel.socket.once("close", resolve));
    const closedSocks = new Promise((resolve) => socket.once("close", resolve));
    await proxy.stop();
    await Promise.all([closedTunnel, closedSocks]);
  });

  it.each(["http", "socks"] as const)("a %s listener failure sets alive=false, resolves closed with the error and closes the other", async (which) => {
    const { proxy } = await proxyWith({ decide: grants() });
    const listeners = (proxy as NetworkProxy & { [kListeners]: Record<"http" | "socks", Server> })[kListeners];
    listeners[which].emit("error", Object.assign(new Error("accept failed: EMFILE"), { code: "EMFILE" }));
    const { error } = await proxy.closed;
    expect(proxy.alive).toBe(false);
    expect(error).toBeInstanceOf(NetworkProxyError);
    expect((error as NetworkProxyError).code).toBe("NETPROXY_LISTENER_FAILED");
    expect(error?.message).toBe(`${which} listener: accept failed: EMFILE`);
    expect(listeners.http.listening || listeners.socks.listening).toBe(false);
  });

  it("a listener closed by something other than stop() counts as a failure too", async () => {
    const { proxy } = await proxyWith({ decide: grants() });
    const listeners = (proxy as NetworkProxy & { [kListeners]: Record<"http" | "socks", Server> })[kListeners];
    listeners.socks.close();
    const { error } = await proxy.closed;
    expect(proxy.alive).toBe(false);
    expect(error?.message).toBe("socks listener: closed unexpectedly");
    expect(listeners.http.listening).toBe(false);
  });

  it("an onRequest that throws or rejects changes nothing", async () => {
    const seen: NetworkRequestEvent[] = [];
    for (const onRequest of [
      (e: NetworkRequestEvent) => { seen.push(e); throw new Error("listener bug"); },
      async (e: NetworkRequestEvent) => { seen.push(e); throw new Error("async listener bug"); },
    ]) {
      const { proxy } = await proxyWith({ decide: grants("registry.test"), resolver: resolver(), onRequest });
      expect((await httpViaProxy(proxy.endpoints.http, `http://registry.test:${origin.port}/`)).status).toBe(200);
      expect((await httpViaProxy(proxy.endpoints.http, "http://evil.test/")).status).toBe(403);
      expect(proxy.alive).toBe(true);
    }
    expect(seen.map((e) => e.decision)).toEqual(["allow", "deny", "allow", "deny"]);
  });

  it("a request still being decided when stop() runs gets nowhere, even if decide never answers", async () => {
    const r = resolver();
    const { proxy, events } = await proxyWith({ decide: () => new Promise<never>(() => {}), resolver: r });
    const pending = httpViaProxy(proxy.endpoints.http, `http://registry.test:${origin.port}/`).catch((e: Error) => e);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await proxy.stop();
    const outcome = await pending;
    expect(outcome instanceof Error || outcome.status !== 200).toBe(true);
    expect(r.calls).toEqual([]);
    expect(events.map((e) => e.cause)).toEqual(["stopped"]);
  });
});
