import {
  networkModeOf,
  proxyEnvironment,
  PROXY_ENV_NAMES,
  SandboxProxyUnsupportedError,
  type CommandSpec,
  type NetworkMode,
  type NetworkProxyRoute,
  type SandboxPolicy,
} from "@shellgate/sandbox";
import { SeatbeltSandboxError } from "./errors.js";

/** The two loopback ports of the session proxy, validated. */
export interface ProxyPorts {
  readonly httpPort: number;
  readonly socksPort: number;
}

/**
 * A port as the profile may hold it: an integer from 1 to 65535. The number is written into the
 * profile text (see `buildSeatbeltProfile`), so this check is what keeps anything but digits out.
 * @throws SeatbeltSandboxError (`invalid-proxy-route`) naming `field`.
 */
export function checkProxyPort(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 65535) {
    const shown = typeof value === "number" ? String(value) : value === undefined ? "nothing" : JSON.stringify(value) ?? typeof value;
    throw new SeatbeltSandboxError("invalid-proxy-route", `${field}: a proxy port must be an integer from 1 to 65535, got ${shown}`);
  }
  return value;
}

/** How one run's network is set up: the mode, the proxy's ports in proxy mode, and the environment that goes with it. */
export interface SeatbeltNetwork {
  readonly mode: NetworkMode;
  readonly proxy?: ProxyPorts & { readonly http: string; readonly socks: string };
  /** Variables the run sets (proxy mode: where the proxy is). */
  readonly set: Readonly<Record<string, string>>;
  /** Inherited variables the run removes. */
  readonly unset: readonly string[];
}

/**
 * The run's network under `policy` with the session proxy's `route`. A route Seatbelt cannot use
 * is refused here as well as by the manager, because the backend may be called directly.
 * @throws SandboxProxyUnsupportedError for a route that is not `loopback-tcp`.
 * @throws SeatbeltSandboxError (`invalid-proxy-route`) for a port that is not 1..65535.
 */
export function seatbeltNetwork(spec: CommandSpec, policy: SandboxPolicy, route: NetworkProxyRoute | undefined): SeatbeltNetwork {
  const mode = networkModeOf(policy, route);
  if (mode === "proxy" && route !== undefined) {
    if (route.transport !== "loopback-tcp") {
      throw new SandboxProxyUnsupportedError("seatbelt", `it needs a loopback-tcp route, got ${String(route.transport)}`);
    }
    const httpPort = checkProxyPort(route.httpPort, "networkProxy.httpPort");
    const socksPort = checkProxyPort(route.socksPort, "networkProxy.socksPort");
    // 127.0.0.1 rather than `localhost`: nothing has to be resolved to find the proxy, and the
    // profile's `localhost` covers it. `socks5h`: the proxy resolves names, the command cannot.
    const urls = { http: `http://127.0.0.1:${httpPort}`, socks: `socks5h://127.0.0.1:${socksPort}` };
    // Every inherited proxy variable is overwritten (the helper sets all of PROXY_ENV_NAMES), so none is left to unset.
    return { mode, proxy: { httpPort, socksPort, ...urls }, set: proxyEnvironment(urls), unset: [] };
  }
  if (mode === "off") {
    // With the network off a host proxy cannot be reached either; left in place, it turns "no
    // network" into a confusing connection error to a proxy instead of the sandbox's refusal.
    return { mode, set: {}, unset: PROXY_ENV_NAMES.filter((name) => Object.hasOwn(spec.env, name)) };
  }
  // Full network: the host's proxy settings are how some networks are reached at all (a company
  // proxy), and the command may reach that proxy, so they are kept.
  return { mode, set: {}, unset: [] };
}
