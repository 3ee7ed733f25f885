// Proxy-routed network through the backend: what the route changes in the profile, the plan and the
// environment, what it leaves alone (network off and on), and the routes it refuses. What the
// profile lets through is proven query by query in policy-shapes.test.ts.
import {
  parseSandboxPolicy,
  proxyEnvironment,
  PROXY_ENV_NAMES,
  SandboxManager,
  SandboxProxyUnsupportedError,
  SandboxUnavailableError,
  type NetworkProxyRoute,
} from "@shellgate/sandbox";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { createSeatbeltSandboxBackend, SeatbeltSandboxError } from "../src/index.js";
import { buildSeatbeltProfile } from "../src/testing.js";
import { compileArgv } from "./sbpl/evaluator.js";
import { makeLayout, PLAN_ENV, removeLayout } from "./support.js";

const L = makeLayout();
afterAll(() => removeLayout(L));
const ws = L.workspace;
const onlyWs = { excludeSlashTmp: true, excludeTmpdirEnvVar: true };
const ROUTE: NetworkProxyRoute = { transport: "loopback-tcp", httpPort: 3128, socksPort: 1080 };
const off = parseSandboxPolicy({ mode: "workspace-write", ...onlyWs });
const on = parseSandboxPolicy({ mode: "workspace-write", networkAccess: true, ...onlyWs });
const readOnly = parseSandboxPolicy({ mode: "read-only" });
const spec = (env: Record<string, string> = PLAN_ENV) => ({ argv: ["true"], cwd: ws, env });
/** `null`: no route (an `undefined` would mean the default route). */
const plan = (policy = off, networkProxy: NetworkProxyRoute | null = ROUTE, env?: Record<string, string>) =>
  createSeatbeltSandboxBackend().plan(spec(env), policy, { sandboxPolicyCwd: ws, ...(networkProxy ? { networkProxy } : {}) });
const HOST_PROXIES = { ...PLAN_ENV, HTTPS_PROXY: "http://corp.example:8080", no_proxy: "corp.example", npm_config_proxy: "http://corp.example:8080" };

describe("the backend declares its transport", () => {
  it("proxyTransport is loopback-tcp, so a manager with a loopback route accepts it", async () => {
    const backend = createSeatbeltSandboxBackend();
    expect(backend.proxyTransport).toBe("loopback-tcp");
    const manager = new SandboxManager({ platform: "darwin" });
    manager.register(backend);
    await expect(manager.plan(spec(), off, { sandboxPolicyCwd: ws, backend: "seatbelt", networkProxy: ROUTE })).resolves.toMatchObject({ sandboxType: "seatbelt" });
  });
});

describe("proxy mode: the profile", () => {
  it("has no blanket network rule: outbound to localhost:<httpPort> and localhost:<socksPort>, TCP sockets, nothing else", async () => {
    const text = (await plan()).argv[2] as string;
    expect(text).toContain('(remote ip "localhost:3128")');
    expect(text).toContain('(remote ip "localhost:1080")');
    expect(text).not.toMatch(/\(allow network-outbound\)|\(allow network-outbound network-inbound|\(allow system-socket\)|network-bind|network-inbound/);
    expect(text).not.toMatch(/DNSConfiguration|trustd|networkd|configd|ocspd/);
    expect(text).not.toContain("; network: off");
  });

  it("the same for read-only", async () => {
    const { profile } = compileArgv((await plan(readOnly)).argv);
    expect(profile.allows({ operation: "network-outbound", remote: { ip: "127.0.0.1", port: 1080 } })).toBe(true);
    expect(profile.allows({ operation: "network-outbound", remote: { ip: "127.0.0.1", port: 1079 } })).toBe(false);
  });

  it("one rule when both proxies share a port", async () => {
    const text = (await plan(off, { transport: "loopback-tcp", httpPort: 8888, socksPort: 8888 })).argv[2] as string;
    expect(text.match(/remote ip "localhost:8888"/g)).toHaveLength(1);
  });

  it("off and full are unchanged by a route: network on ignores it; without a route network off stays off", async () => {
    const withoutRoute = (await plan(on, null)).argv[2];
    expect((await plan(on, ROUTE)).argv[2]).toBe(withoutRoute);
    expect(withoutRoute).toContain("(allow network-outbound network-inbound network-bind)");
    const offText = (await plan(off, null)).argv[2] as string;
    expect(offText).toContain("; network: off");
    expect(offText).not.toMatch(/network-outbound|system-socket/);
    // external-sandbox keeps the network off without a platform sandbox: no route, no profile
    const ext = await createSeatbeltSandboxBackend().plan(spec(), parseSandboxPolicy({ mode: "external-sandbox" }), { sandboxPolicyCwd: ws, networkProxy: ROUTE });
    expect(ext).toMatchObject({ sandboxType: "none", env: {}, unsetEnv: [] });
  });
});

describe("proxy mode: refused routes (never a run with more network than asked)", () => {
  it.each([
    ["httpPort", 0], ["httpPort", 65536], ["httpPort", -1], ["httpPort", 1.5], ["httpPort", Number.NaN], ["httpPort", Number.POSITIVE_INFINITY],
    ["httpPort", "3128"], ["httpPort", undefined], ["socksPort", 70000], ["socksPort", '1080"))(allow network*'],
  ] as const)("%s = %j is a SeatbeltSandboxError naming the field", async (field, value) => {
    const route = { ...ROUTE, [field]: value } as unknown as NetworkProxyRoute;
    const error = await plan(off, route).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SeatbeltSandboxError);
    expect(error).toMatchObject({ code: "SANDBOX_TRANSFORM_FAILED", backend: "seatbelt", failure: "invalid-proxy-route" });
    expect((error as Error).message).toContain(`networkProxy.${field}: a proxy port must be an integer from 1 to 65535`);
    // transform refuses it too, before it looks at whether Seatbelt is there
    await expect(createSeatbeltSandboxBackend().transform(spec(), off, { sandboxPolicyCwd: ws, networkProxy: route })).rejects.toMatchObject({ failure: "invalid-proxy-route" });
  });

  it("the profile builder checks the ports itself, since it writes them into the text", () => {
    const input = { writableRoots: [], readOnlyPaths: [], pinnedPaths: [], deniedReadPaths: [], network: false };
    expect(() => buildSeatbeltProfile({ ...input, proxy: { httpPort: 3128, socksPort: 0 } })).toThrow(/proxy\.socksPort: a proxy port must be an integer/);
    expect(() => buildSeatbeltProfile({ ...input, network: true, proxy: { httpPort: 3128, socksPort: 1080 } })).toThrow(SeatbeltSandboxError);
    expect(buildSeatbeltProfile({ ...input, proxy: { httpPort: 3128, socksPort: 1080 } }).text).toContain('"localhost:1080"');
  });

  it("a unix-socket route is refused, by the backend called directly and by the manager", async () => {
    const unix: NetworkProxyRoute = { transport: "unix-socket", httpSocket: "/tmp/h.sock", socksSocket: "/tmp/s.sock" };
    await expect(plan(off, unix)).rejects.toBeInstanceOf(SandboxProxyUnsupportedError);
    await expect(plan(off, unix)).rejects.toThrow(/needs a loopback-tcp route, got unix-socket/);
    const manager = new SandboxManager({ platform: "darwin" });
    manager.register(createSeatbeltSandboxBackend());
    await expect(manager.plan(spec(), off, { sandboxPolicyCwd: ws, backend: "seatbelt", networkProxy: unix })).rejects.toBeInstanceOf(SandboxProxyUnsupportedError);
    // control: with the network on the route is not used, so nothing is refused
    await expect(plan(on, unix)).resolves.toMatchObject({ sandboxType: "seatbelt" });
  });

  skipUnless(process.platform === "darwin" ? "on macOS, where sandbox-exec is available" : undefined).it("a good route still cannot run here: unavailable, after the route is checked", async () => {
    await expect(createSeatbeltSandboxBackend().transform(spec(), off, { sandboxPolicyCwd: ws, networkProxy: ROUTE })).rejects.toBeInstanceOf(SandboxUnavailableError);
  });
});

describe("proxy mode: environment and plan", () => {
  const urls = { http: "http://127.0.0.1:3128", socks: "socks5h://127.0.0.1:1080" };

  it("proxy: every proxy variable points at the session proxy (inherited ones overwritten), nothing unset", async () => {
    const p = await plan(off, ROUTE, HOST_PROXIES);
    expect(p.env).toEqual(proxyEnvironment(urls));
    expect(p.env).toMatchObject({ HTTPS_PROXY: "http://127.0.0.1:3128", ALL_PROXY: "socks5h://127.0.0.1:1080", no_proxy: "localhost,127.0.0.1,::1", npm_config_proxy: "http://127.0.0.1:3128" });
    expect(p.unsetEnv).toEqual([]);
  });

  it("off: the inherited proxy variables are removed (and listed), nothing set", async () => {
    const p = await plan(off, null, HOST_PROXIES);
    expect(p.env).toEqual({});
    expect(p.unsetEnv).toEqual(["HTTPS_PROXY", "no_proxy", "npm_config_proxy"]);
    expect(PROXY_ENV_NAMES).toEqual(expect.arrayContaining(p.unsetEnv as string[]));
    // none inherited, none listed
    expect((await plan(off, null)).unsetEnv).toEqual([]);
  });

  it("full: the host's proxy settings are kept (they may be how this network is reached)", async () => {
    const p = await plan(on, ROUTE, HOST_PROXIES);
    expect(p.env).toEqual({});
    expect(p.unsetEnv).toEqual([]);
  });

  it("through the manager: the markers and the proxy variables; the network marker still says the policy's network is off", async () => {
    const manager = new SandboxManager({ platform: "darwin" });
    manager.register(createSeatbeltSandboxBackend());
    const p = await manager.plan(spec(), off, { sandboxPolicyCwd: ws, backend: "seatbelt", networkProxy: ROUTE });
    expect(p.env).toEqual({ ...proxyEnvironment(urls), CODEX_SANDBOX: "seatbelt", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
  });

  it("the plan says the mode and the ports", async () => {
    expect((await plan()).plan).toMatchObject({
      network: false,
      networkMode: "proxy",
      proxy: { transport: "loopback-tcp", httpPort: 3128, socksPort: 1080, http: urls.http, socks: urls.socks },
    });
    expect((await plan(off, null)).plan).toMatchObject({ network: false, networkMode: "off" });
    expect((await plan(off, null)).plan).not.toHaveProperty("proxy");
    expect((await plan(on)).plan).toMatchObject({ network: true, networkMode: "full" });
    expect((await plan(on)).plan).not.toHaveProperty("proxy");
    const p = await plan();
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  });
});
