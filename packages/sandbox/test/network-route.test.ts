import { describe, expect, it } from "vitest";
import {
  InvalidSandboxBackendError,
  networkModeOf,
  parseSandboxPolicy,
  PROXY_ENV_NAMES,
  proxyEnvironment,
  SandboxManager,
  SandboxProxyUnsupportedError,
  type CommandSpec,
  type NetworkProxyRoute,
  type ProxyTransport,
  type SandboxBackend,
  type TransformOptions,
} from "../src/index.js";

const unixRoute: NetworkProxyRoute = { transport: "unix-socket", httpSocket: "/run/p/http.sock", socksSocket: "/run/p/socks.sock" };
const tcpRoute: NetworkProxyRoute = { transport: "loopback-tcp", httpPort: 41000, socksPort: 41001 };
const spec: CommandSpec = { argv: ["/bin/true"], cwd: "/", env: {} };

/** A backend that records the options its transform and plan were given. */
function routingBackend(proxyTransport?: ProxyTransport): SandboxBackend & { seen: TransformOptions[] } {
  const seen: TransformOptions[] = [];
  return {
    name: "fake",
    platform: "linux",
    sandboxType: "fake",
    ...(proxyTransport ? { proxyTransport } : {}),
    seen,
    async isAvailable() {
      return { available: true, isolation: "fake" };
    },
    async plan(s, _p, options) {
      seen.push(options);
      return { backend: "fake", sandboxType: "fake", isolation: "fake", argv: s.argv, cwd: s.cwd, env: {}, unsetEnv: [], plan: {} };
    },
    async transform(s, _p, options) {
      seen.push(options);
      return { argv: ["launcher", ...s.argv], cwd: s.cwd, env: { ...s.env }, sandboxType: "fake", isolation: "fake" };
    },
  };
}

describe("networkModeOf", () => {
  it("is full whenever the policy grants the network, route or not", () => {
    const policy = parseSandboxPolicy({ mode: "workspace-write", networkAccess: true });
    expect(networkModeOf(policy, unixRoute)).toBe("full");
    expect(networkModeOf(parseSandboxPolicy({ mode: "danger-full-access" }), unixRoute)).toBe("full");
  });

  it("is proxy for a confined policy with a route, off without one", () => {
    for (const mode of ["read-only", "workspace-write"] as const) {
      const policy = parseSandboxPolicy({ mode });
      expect(networkModeOf(policy, tcpRoute)).toBe("proxy");
      expect(networkModeOf(policy, undefined)).toBe("off");
    }
  });

  it("never routes a policy that runs without a platform sandbox", () => {
    expect(networkModeOf(parseSandboxPolicy({ mode: "external-sandbox" }), unixRoute)).toBe("off");
  });
});

describe("proxyEnvironment", () => {
  it("sets every listed name and nothing else, pointing HTTP tools at the HTTP proxy and ALL_PROXY at SOCKS", () => {
    const env = proxyEnvironment({ http: "http://127.0.0.1:3128", socks: "socks5h://127.0.0.1:1080" });
    expect(Object.keys(env).sort()).toEqual([...PROXY_ENV_NAMES].sort());
    expect(env["HTTPS_PROXY"]).toBe("http://127.0.0.1:3128");
    expect(env["https_proxy"]).toBe("http://127.0.0.1:3128");
    expect(env["ALL_PROXY"]).toBe("socks5h://127.0.0.1:1080");
    expect(env["NO_PROXY"]).toBe("localhost,127.0.0.1,::1");
  });
});

describe("SandboxManager with a proxy route", () => {
  const confined = parseSandboxPolicy({ mode: "workspace-write" });

  it("passes a route of the backend's own transport through to transform and plan", async () => {
    const backend = routingBackend("unix-socket");
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(backend);
    await manager.prepare(spec, confined, { sandboxPolicyCwd: "/", networkProxy: unixRoute });
    await manager.plan(spec, confined, { sandboxPolicyCwd: "/", networkProxy: unixRoute });
    expect(backend.seen.map((o) => o.networkProxy)).toEqual([unixRoute, unixRoute]);
  });

  it("refuses a route of the other transport, and a backend that cannot route at all, before the backend runs", async () => {
    for (const [backend, message] of [
      [routingBackend("unix-socket"), /needs a unix-socket route, got loopback-tcp/],
      [routingBackend(undefined), /does not support proxy-routed network/],
    ] as const) {
      const manager = new SandboxManager({ platform: "linux" });
      manager.register(backend);
      const run = manager.prepare(spec, confined, { sandboxPolicyCwd: "/", networkProxy: tcpRoute });
      await expect(run).rejects.toBeInstanceOf(SandboxProxyUnsupportedError);
      await expect(run).rejects.toThrow(message);
      await expect(manager.plan(spec, confined, { sandboxPolicyCwd: "/", networkProxy: tcpRoute })).rejects.toMatchObject({
        code: "SANDBOX_PROXY_UNSUPPORTED",
      });
      expect(backend.seen).toEqual([]);
    }
  });

  it("does not check the route when the policy grants full network (the route is unused)", async () => {
    const backend = routingBackend(undefined);
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(backend);
    const open = parseSandboxPolicy({ mode: "workspace-write", networkAccess: true });
    await expect(manager.prepare(spec, open, { sandboxPolicyCwd: "/", networkProxy: tcpRoute })).resolves.toMatchObject({ sandboxType: "fake" });
  });

  it("rejects an unknown proxyTransport at registration, naming the field", () => {
    const manager = new SandboxManager({ platform: "linux" });
    const bad = { ...routingBackend(), proxyTransport: "carrier-pigeon" } as unknown as SandboxBackend;
    expect(() => manager.register(bad)).toThrow(InvalidSandboxBackendError);
    expect(() => manager.register(bad)).toThrow(/proxyTransport/);
  });
});
