// Proxy-routed network on Windows: without elevation nothing confines sockets, so the route is
// advisory (the proxy variables); the plan and the isolation string say so. Elevated, the firewall
// step leaves only the proxy's two loopback ports open (planned only). Off and full are unchanged.
import { describe, expect, it } from "vitest";
import {
  parseSandboxPolicy,
  proxyEnvironment,
  SandboxManager,
  SandboxProxyUnsupportedError,
  type NetworkProxyRoute,
} from "@shellgate/sandbox";
import { WindowsSandboxError } from "../src/index.js";
import { createFakeWin32Api } from "../src/testing.js";
import { onWindows, spec, steps, TEMP, WS, ww } from "./support.js";

const tree = { [WS]: { ".git": {} }, [TEMP]: {} };
const ROUTE: NetworkProxyRoute = { transport: "loopback-tcp", httpPort: 3128, socksPort: 1080 };
const URLS = { http: "http://127.0.0.1:3128", socks: "socks5h://127.0.0.1:1080" };
const ENV = { TEMP, Path: "C:\\Windows\\System32" };
const opts = (networkProxy?: NetworkProxyRoute) => ({ sandboxPolicyCwd: WS, ...(networkProxy ? { networkProxy } : {}) });

describe("the backend declares its transport", () => {
  it("proxyTransport is loopback-tcp: a manager takes a loopback route and refuses a unix-socket one", async () => {
    const backend = onWindows(tree);
    expect(backend.proxyTransport).toBe("loopback-tcp");
    const manager = new SandboxManager({ platform: "win32" });
    manager.register(backend);
    // the manager checks spec paths with this host's rules, so the route is what is looked at here
    const posix = { argv: ["echo"], cwd: "/work/main", env: {} };
    const posixOpts = { sandboxPolicyCwd: "/work/main", backend: "windows" };
    const unix: NetworkProxyRoute = { transport: "unix-socket", httpSocket: "/tmp/h", socksSocket: "/tmp/s" };
    await expect(manager.plan(posix, ww(), { ...posixOpts, networkProxy: unix })).rejects.toBeInstanceOf(SandboxProxyUnsupportedError);
    await expect(onWindows(tree).plan(spec(), ww(), opts(unix))).rejects.toThrow(/needs a loopback-tcp route, got unix-socket/);
  });
});

describe("proxy mode without elevation: advisory", () => {
  it("the proxy variables replace the network-off block; the isolation string and the plan say advisory", async () => {
    const plan = await onWindows(tree).plan(spec(), ww(), opts(ROUTE));
    expect(plan.isolation).toBe("restricted-token+acl; network: proxy, advisory (env)");
    expect(plan.env).toEqual(proxyEnvironment(URLS));
    // nothing of the network-off block: no dead proxy, no offline flags, no deny-bin on PATH
    expect(Object.values(plan.env)).not.toContain("http://127.0.0.1:9");
    for (const k of ["NPM_CONFIG_OFFLINE", "PIP_NO_INDEX", "CARGO_NET_OFFLINE", "SBX_NONET_ACTIVE", "GIT_SSH_COMMAND", "Path", "PATHEXT"]) expect(plan.env).not.toHaveProperty(k);
    expect(steps(plan).map((s) => s["step"])).not.toContain("write-denybin");
    expect(plan.plan).not.toHaveProperty("denybin");
    expect(plan.plan).toMatchObject({
      network: "proxy",
      networkMode: "proxy",
      networkEnforcement: "advisory-env",
      proxy: { transport: "loopback-tcp", httpPort: 3128, socksPort: 1080, http: URLS.http, socks: URLS.socks },
    });
    expect((plan.plan["notes"] as string[]).join("\n")).toMatch(/proxy routing is advisory[^]*cannot confine sockets without elevation/);
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  it("read-only: the same, advisory", async () => {
    const plan = await onWindows(tree).plan(spec(), parseSandboxPolicy({ mode: "read-only" }), opts(ROUTE));
    expect(plan.isolation).toBe("restricted-token+acl (read-only); network: proxy, advisory (env)");
    expect(plan.env).toMatchObject({ HTTPS_PROXY: URLS.http, ALL_PROXY: URLS.socks });
  });

  it("inherited proxy variables: the same name is overwritten, another spelling removed, offline flags of the host kept", async () => {
    const plan = await onWindows(tree).plan(spec(WS, { ...ENV, HTTPS_PROXY: "http://corp:8080", Http_Proxy: "http://corp:8080", NPM_CONFIG_OFFLINE: "false" }), ww(), opts(ROUTE));
    expect(plan.env["HTTPS_PROXY"]).toBe(URLS.http);
    expect(plan.unsetEnv).toEqual(["Http_Proxy"]);
    expect(plan.env).not.toHaveProperty("NPM_CONFIG_OFFLINE");
  });

  it("transform (fake Win32): the command's environment has the proxy, no ssh stubs are written, networkMode says proxy", async () => {
    const api = createFakeWin32Api();
    const exec = await onWindows(tree, { win32Api: api }).transform(spec(WS, { ...ENV, HTTP_PROXY: "http://corp:8080" }), ww(), opts(ROUTE));
    expect(exec).toMatchObject({ sandboxType: "windows", isolation: "restricted-token+acl; network: proxy, advisory (env)", networkMode: "proxy" });
    expect(exec.env).toEqual({ ...ENV, ...proxyEnvironment(URLS), CODEX_SANDBOX: "windows", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    expect(api.calls.filter((c) => c.call === "writeFile")).toEqual([]);
    await exec.cleanup?.();
  });
});

describe("off and full are unchanged", () => {
  it("network on: a route changes nothing", async () => {
    const backend = onWindows(tree);
    const withRoute = await backend.plan(spec(), ww({ networkAccess: true }), opts(ROUTE));
    expect(withRoute).toEqual(await backend.plan(spec(), ww({ networkAccess: true }), opts()));
    expect(withRoute).toMatchObject({ isolation: "restricted-token+acl; network: allowed", env: {} });
    expect(withRoute.plan).toMatchObject({ network: "allowed", networkMode: "full", networkEnforcement: "none" });
  });

  it("network off without a route: the advisory block as before", async () => {
    const plan = await onWindows(tree).plan(spec(), ww(), opts());
    expect(plan.isolation).toBe("restricted-token+acl; network: advisory (env)");
    expect(plan.env).toMatchObject({ HTTP_PROXY: "http://127.0.0.1:9", NPM_CONFIG_OFFLINE: "true", SBX_NONET_ACTIVE: "1" });
    expect(plan.plan).toMatchObject({ network: "blocked", networkMode: "off", networkEnforcement: "advisory-env" });
    expect(plan.plan).not.toHaveProperty("proxy");
  });

  it("transform: networkMode off and full", async () => {
    for (const [networkAccess, route, mode] of [[false, undefined, "off"], [true, ROUTE, "full"]] as const) {
      const exec = await onWindows(tree, { win32Api: createFakeWin32Api() }).transform(spec(), ww({ networkAccess }), opts(route));
      expect(exec.networkMode).toBe(mode);
      await exec.cleanup?.();
    }
  });
});

describe("refused routes", () => {
  it.each([
    ["httpPort", 0], ["httpPort", 65536], ["httpPort", 2.5], ["httpPort", Number.NaN], ["socksPort", "1080"], ["socksPort", undefined], ["socksPort", -80],
  ] as const)("%s = %j is a WindowsSandboxError naming the field, in plan and transform", async (field, value) => {
    const route = { ...ROUTE, [field]: value } as unknown as NetworkProxyRoute;
    const error = await onWindows(tree).plan(spec(), ww(), opts(route)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WindowsSandboxError);
    expect(error).toMatchObject({ code: "SANDBOX_TRANSFORM_FAILED", backend: "windows", failure: "invalid-proxy-route" });
    expect((error as Error).message).toContain(`networkProxy.${field}: a proxy port must be an integer from 1 to 65535`);
    await expect(onWindows(tree, { win32Api: createFakeWin32Api() }).transform(spec(), ww(), opts(route))).rejects.toMatchObject({ failure: "invalid-proxy-route" });
  });
});

describe("elevated (planned only): the firewall leaves only the proxy open", () => {
  it("one firewall step blocking outbound except TCP to 127.0.0.1 on the two ports; the proxy variables set; WFP noted", async () => {
    const backend = onWindows(tree, { elevated: true });
    const plan = await backend.plan(spec(), ww(), opts(ROUTE));
    expect(plan.isolation).toBe("sandbox-user+acl; network: proxy (firewall)");
    expect(plan.plan).toMatchObject({ network: "proxy", networkMode: "proxy", networkEnforcement: "firewall", proxy: { httpPort: 3128, socksPort: 1080 } });
    const firewall = steps(plan).filter((s) => s["step"] === "firewall-block");
    expect(firewall).toEqual([{
      step: "firewall-block", phase: "host-before", direction: "outbound", identity: "sandbox-user",
      rule: "shellgate-sandbox: block outbound for the sandbox user except TCP to the session proxy on 127.0.0.1:3128 and 127.0.0.1:1080",
      except: [{ protocol: "TCP", remoteAddress: "127.0.0.1", remotePort: 3128 }, { protocol: "TCP", remoteAddress: "127.0.0.1", remotePort: 1080 }],
    }]);
    expect(plan.env).toEqual(proxyEnvironment(URLS));
    expect((plan.plan["notes"] as string[]).join("\n")).toMatch(/WFP filters/);
    await expect(backend.transform(spec(), ww(), opts(ROUTE))).rejects.toMatchObject({ failure: "not-implemented" });
    // control: elevated without a route blocks everything, with no exception
    const off = await backend.plan(spec(), ww(), opts());
    expect(steps(off).filter((s) => s["step"] === "firewall-block")).toEqual([expect.not.objectContaining({ except: expect.anything() })]);
    expect(off.isolation).toBe("sandbox-user+acl; network: firewall");
  });
});
