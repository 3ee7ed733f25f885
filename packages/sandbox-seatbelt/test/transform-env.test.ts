// The environment and network mode a transform hands the spawner, on a machine made to look like
// macOS with /usr/bin/sandbox-exec (the platform and that one file are faked; the run is not
// spawned). On a real Mac, runtime.darwin.test.ts runs the same through sandbox-exec.
import { parseSandboxPolicy, proxyEnvironment, type NetworkProxyRoute } from "@shellgate/sandbox";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSeatbeltSandboxBackend } from "../src/index.js";
import { makeLayout, PLAN_ENV, removeLayout } from "./support.js";

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const existsSync = (p: import("node:fs").PathLike) => p === "/usr/bin/sandbox-exec" || real.existsSync(p);
  return { ...real, existsSync, default: { ...real, existsSync } };
});

const L = makeLayout();
const ws = L.workspace;
const realPlatform = Object.getOwnPropertyDescriptor(process, "platform") as PropertyDescriptor;
beforeAll(() => Object.defineProperty(process, "platform", { ...realPlatform, value: "darwin" }));
afterAll(() => {
  Object.defineProperty(process, "platform", realPlatform);
  removeLayout(L);
});

const ROUTE: NetworkProxyRoute = { transport: "loopback-tcp", httpPort: 3128, socksPort: 1080 };
const onlyWs = { excludeSlashTmp: true, excludeTmpdirEnvVar: true };
const HOST = { ...PLAN_ENV, HOME: "/Users/me", HTTPS_PROXY: "http://corp.example:8080", all_proxy: "socks5://corp.example:1080" };
const transform = (networkAccess: boolean, networkProxy?: NetworkProxyRoute) =>
  createSeatbeltSandboxBackend().transform(
    { argv: ["true"], cwd: ws, env: HOST },
    parseSandboxPolicy({ mode: "workspace-write", networkAccess, ...onlyWs }),
    { sandboxPolicyCwd: ws, ...(networkProxy ? { networkProxy } : {}) },
  );

describe("transform (as on macOS): environment and network mode", () => {
  it("proxy: the proxy variables replace the host's, the rest is kept; networkMode says proxy", async () => {
    const exec = await transform(false, ROUTE);
    expect(exec.sandboxType).toBe("seatbelt");
    expect(exec.networkMode).toBe("proxy");
    expect(exec.env).toEqual({
      ...PLAN_ENV, HOME: "/Users/me",
      ...proxyEnvironment({ http: "http://127.0.0.1:3128", socks: "socks5h://127.0.0.1:1080" }),
      CODEX_SANDBOX: "seatbelt", CODEX_SANDBOX_NETWORK_DISABLED: "1",
    });
  });

  it("off: the host's proxy variables are gone, nothing added but the markers", async () => {
    const exec = await transform(false);
    expect(exec.networkMode).toBe("off");
    expect(exec.env).toEqual({ ...PLAN_ENV, HOME: "/Users/me", CODEX_SANDBOX: "seatbelt", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
  });

  it("full: the host's proxy variables are kept, with or without a route", async () => {
    for (const route of [undefined, ROUTE]) {
      const exec = await transform(true, route);
      expect(exec.networkMode).toBe("full");
      expect(exec.env).toEqual({ ...HOST, CODEX_SANDBOX: "seatbelt" });
    }
  });
});
