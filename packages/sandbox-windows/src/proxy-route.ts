import { SandboxProxyUnsupportedError, type NetworkProxyRoute, type ProxyUrls } from "@shellgate/sandbox";
import { WindowsSandboxError } from "./errors.js";

/** The session proxy as a Windows run uses it: its two loopback ports, checked, and the URLs the command is given. */
export interface WindowsProxy extends ProxyUrls {
  readonly httpPort: number;
  readonly socksPort: number;
}

function port(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 65535) {
    const shown = typeof value === "number" ? String(value) : value === undefined ? "nothing" : JSON.stringify(value) ?? typeof value;
    throw new WindowsSandboxError("invalid-proxy-route", `${field}: a proxy port must be an integer from 1 to 65535, got ${shown}`);
  }
  return value;
}

/**
 * Check a route for a proxy-routed run. Checked here as well as by the manager, because the
 * backend may be called directly; the ports end up in URLs, a plan and (elevated) a firewall rule.
 * @throws SandboxProxyUnsupportedError for a route that is not `loopback-tcp`.
 * @throws WindowsSandboxError (`invalid-proxy-route`) for a port that is not 1..65535.
 */
export function windowsProxy(route: NetworkProxyRoute): WindowsProxy {
  if (route.transport !== "loopback-tcp") throw new SandboxProxyUnsupportedError("windows", `it needs a loopback-tcp route, got ${String(route.transport)}`);
  const httpPort = port(route.httpPort, "networkProxy.httpPort");
  const socksPort = port(route.socksPort, "networkProxy.socksPort");
  // 127.0.0.1, not `localhost`: nothing to resolve, and no IPv6 detour the proxy may not listen on.
  // `socks5h`: the proxy resolves names.
  return { httpPort, socksPort, http: `http://127.0.0.1:${httpPort}`, socks: `socks5h://127.0.0.1:${socksPort}` };
}
