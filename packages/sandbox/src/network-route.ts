import { policyAllowsNetwork, type SandboxPolicy } from "./policy.js";

/**
 * How a backend's proxy-routed runs reach the session's network proxy. `unix-socket`: the proxy
 * listens on host unix sockets the backend binds into the sandbox (Linux: the command has its own
 * empty network namespace, and a relay inside it forwards loopback ports to the sockets).
 * `loopback-tcp`: the proxy listens on host loopback ports the sandbox lets the command reach
 * (macOS: the Seatbelt profile allows outbound to those ports only; Windows: advisory).
 */
export type ProxyTransport = "unix-socket" | "loopback-tcp";

/** The session proxy as a backend routes one run's network to it; its `transport` is the backend's own. */
export type NetworkProxyRoute =
  | {
      transport: "unix-socket";
      /** Absolute host path of the HTTP proxy's socket (plain HTTP and `CONNECT`). */
      httpSocket: string;
      /** Absolute host path of the SOCKS5 proxy's socket. */
      socksSocket: string;
    }
  | {
      transport: "loopback-tcp";
      /** Host loopback port of the HTTP proxy. */
      httpPort: number;
      /** Host loopback port of the SOCKS5 proxy. */
      socksPort: number;
    };

/**
 * What a run's network is: `full` (the policy grants it), `proxy` (only the session proxy is
 * reachable, which decides per host), `off`. A route is used only where the policy keeps the network
 * off and a platform sandbox confines the command (read-only, workspace-write); `--network on` keeps
 * meaning full access.
 */
export type NetworkMode = "full" | "proxy" | "off";

/** The network mode of a run under `policy`, given the session proxy's route (if any). */
export function networkModeOf(policy: SandboxPolicy, route: NetworkProxyRoute | undefined): NetworkMode {
  if (policyAllowsNetwork(policy)) return "full";
  if (route !== undefined && (policy.mode === "read-only" || policy.mode === "workspace-write")) return "proxy";
  return "off";
}

/**
 * The variables ordinary tools read to find a proxy, and that a proxy-routed run therefore sets and
 * a run without one must not inherit (a host's `HTTPS_PROXY` pointing elsewhere would only fail
 * confusingly inside the sandbox).
 */
export const PROXY_ENV_NAMES: readonly string[] = Object.freeze([
  "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY",
  "http_proxy", "https_proxy", "all_proxy", "no_proxy",
  "npm_config_proxy", "npm_config_https_proxy", "npm_config_noproxy",
  "YARN_HTTP_PROXY", "YARN_HTTPS_PROXY",
  "PIP_PROXY",
  "CARGO_HTTP_PROXY",
  "NODE_USE_ENV_PROXY",
]);

/** Where the command itself finds the proxy (inside the sandbox): both are loopback URLs. */
export interface ProxyUrls {
  /** E.g. `http://127.0.0.1:3128`. */
  http: string;
  /** E.g. `socks5h://127.0.0.1:1080` (`socks5h`: the proxy resolves names, so the command needs no DNS). */
  socks: string;
}

/**
 * The environment a proxy-routed command gets so that ordinary tools use the proxy: the usual
 * variables in both cases, and the ones npm, yarn, pip and cargo read themselves (git goes through libcurl, which reads the usual ones). `NO_PROXY`
 * keeps loopback direct: a server the command starts inside its own sandbox is not the proxy's
 * business, and nothing else is reachable directly anyway.
 */
export function proxyEnvironment(urls: ProxyUrls): Record<string, string> {
  const noProxy = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: urls.http, HTTPS_PROXY: urls.http, ALL_PROXY: urls.socks, NO_PROXY: noProxy,
    http_proxy: urls.http, https_proxy: urls.http, all_proxy: urls.socks, no_proxy: noProxy,
    npm_config_proxy: urls.http, npm_config_https_proxy: urls.http, npm_config_noproxy: noProxy,
    YARN_HTTP_PROXY: urls.http, YARN_HTTPS_PROXY: urls.http,
    PIP_PROXY: urls.http,
    CARGO_HTTP_PROXY: urls.http,
    // Node 24's fetch and http honour the variables only when asked; older versions ignore it.
    NODE_USE_ENV_PROXY: "1",
  };
}
