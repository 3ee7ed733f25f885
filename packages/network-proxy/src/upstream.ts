import { isIP } from "node:net";
import { UnsupportedUpstreamError } from "./errors.js";
import { normalizeRequestHost } from "./host.js";
import type { ProxyProtocol } from "./types.js";

/** One proxy setting as the host environment gives it, with the variable it came from (for messages). */
export interface UpstreamSetting {
  url: string;
  variable: string;
}

/**
 * The proxy settings of the host environment, as `upstreamSettingsFromEnv` reads them: `http` for
 * plain-HTTP requests, `https` for tunnels (CONNECT and SOCKS5), `all` for either when its own is
 * not set, and `noProxy`, the hosts that go direct.
 */
export interface UpstreamSettings {
  http?: UpstreamSetting;
  https?: UpstreamSetting;
  all?: UpstreamSetting;
  noProxy?: { value: string; variable: string };
}

/** An upstream proxy the per-run proxy connects through. */
export interface UpstreamProxy {
  /** `http` (CONNECT, or absolute-form for plain HTTP), `socks5` (the name resolved here) or `socks5h` (the name sent on). */
  protocol: "http" | "socks5" | "socks5h";
  host: string;
  port: number;
  username?: string;
  password?: string;
  /** The variable it came from (`HTTPS_PROXY`). */
  variable: string;
  /** The URL with any password replaced by `***`: what may be shown. */
  shown: string;
}

/** One NO_PROXY entry: a name with its subdomains, subdomains only, or an exact IP literal; a port when given. */
export type NoProxyEntry = { kind: "all" } | { kind: "name"; name: string; subdomainsOnly: boolean; port?: number } | { kind: "address"; address: string; port?: number };

/** The parsed upstream configuration. */
export interface ParsedUpstream {
  http?: UpstreamProxy;
  https?: UpstreamProxy;
  noProxy: NoProxyEntry[];
  /** NO_PROXY entries that match nothing (CIDR ranges, garbage), kept to be reported. */
  ignored: string[];
}

function pick(env: Readonly<Record<string, string | undefined>>, names: readonly string[]): UpstreamSetting | undefined {
  // Lower case first, as curl and most tools read them; an empty value counts as unset.
  for (const variable of names) {
    const url = env[variable]?.trim();
    if (url) return { url, variable };
  }
  return undefined;
}

/**
 * The upstream proxy settings in `env` (`http_proxy`/`HTTP_PROXY`, `https_proxy`/`HTTPS_PROXY`,
 * `all_proxy`/`ALL_PROXY`, `no_proxy`/`NO_PROXY`; the lower-case name wins), or undefined when none
 * of the proxy variables is set.
 */
export function upstreamSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): UpstreamSettings | undefined {
  const http = pick(env, ["http_proxy", "HTTP_PROXY"]);
  const https = pick(env, ["https_proxy", "HTTPS_PROXY"]);
  const all = pick(env, ["all_proxy", "ALL_PROXY"]);
  if (!http && !https && !all) return undefined;
  const noProxy = pick(env, ["no_proxy", "NO_PROXY"]);
  return {
    ...(http ? { http } : {}),
    ...(https ? { https } : {}),
    ...(all ? { all } : {}),
    ...(noProxy ? { noProxy: { value: noProxy.url, variable: noProxy.variable } } : {}),
  };
}

const SCHEMES: Record<string, UpstreamProxy["protocol"]> = { "http:": "http", "socks5:": "socks5", "socks5h:": "socks5h" };
const DEFAULT_PORTS: Record<UpstreamProxy["protocol"], number> = { http: 80, socks5: 1080, socks5h: 1080 };

/** A proxy URL with its password replaced by `***` (and nothing else changed); unparseable text is cut to its scheme. */
export function redactProxyUrl(url: string): string {
  const text = /^[a-z][a-z0-9+.-]*:\/\//iu.test(url) ? url : `http://${url}`;
  try {
    const u = new URL(text);
    if (u.password !== "") u.password = "***";
    return u.href.replace(/\/$/u, "");
  } catch {
    const scheme = /^([a-z][a-z0-9+.-]*:)/iu.exec(url)?.[1];
    return scheme ? `${scheme}//…` : "(unreadable)";
  }
}

/**
 * One proxy URL: `http://`, `socks5://`, `socks5h://`, or no scheme at all (`host:port`, read as
 * `http://`, as curl does), with optional `user:password@` (percent-decoded). Anything else (`https://`,
 * `socks4://`…) throws `UnsupportedUpstreamError` naming the variable.
 */
export function parseUpstreamUrl(setting: UpstreamSetting): UpstreamProxy {
  const text = /^[a-z][a-z0-9+.-]*:\/\//iu.test(setting.url) ? setting.url : `http://${setting.url}`;
  const shown = redactProxyUrl(setting.url);
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UnsupportedUpstreamError(setting.variable, shown, "not a URL");
  }
  const protocol = SCHEMES[u.protocol.toLowerCase()];
  if (!protocol) throw new UnsupportedUpstreamError(setting.variable, shown, `the scheme ${u.protocol}// is not supported (http://, socks5:// and socks5h:// are)`);
  if (u.hostname === "") throw new UnsupportedUpstreamError(setting.variable, shown, "no host");
  const host = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  return {
    protocol,
    host,
    port: u.port === "" ? DEFAULT_PORTS[protocol] : Number(u.port),
    ...(u.username !== "" ? { username: decode(u.username) } : {}),
    ...(u.password !== "" ? { password: decode(u.password) } : {}),
    variable: setting.variable,
    shown,
  };
}

/**
 * NO_PROXY as supported here, entries separated by commas or spaces, case-insensitive:
 * - `*` alone: nothing goes through the upstream;
 * - `example.com`: that host and every subdomain; `.example.com` or `*.example.com`: subdomains only;
 * - an IP literal (`10.1.2.3`, `::1` or `[::1]`): a request for exactly that literal;
 * - any of these with `:PORT`: only requests to that port.
 * CIDR ranges (`10.0.0.0/8`) and anything else are not supported: they match nothing, and are listed
 * in `ignored`. Entries are matched against the host the command asked for, never its addresses.
 */
export function parseNoProxy(value: string): { entries: NoProxyEntry[]; ignored: string[] } {
  const entries: NoProxyEntry[] = [];
  const ignored: string[] = [];
  for (const raw of value.split(/[\s,]+/u)) {
    if (raw === "") continue;
    if (raw === "*") {
      entries.push({ kind: "all" });
      continue;
    }
    let text = raw.toLowerCase();
    let port: number | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/u.exec(text);
    if (bracketed) {
      text = bracketed[1] as string;
      if (bracketed[2] !== undefined) port = Number(bracketed[2]);
    } else if (isIP(text) !== 6) {
      const withPort = /^(.*):(\d+)$/u.exec(text);
      if (withPort) {
        text = withPort[1] as string;
        port = Number(withPort[2]);
      }
    }
    if (port !== undefined && !(port >= 1 && port <= 65535)) {
      ignored.push(raw);
      continue;
    }
    const portPart = port !== undefined ? { port } : {};
    if (isIP(text) !== 0) {
      entries.push({ kind: "address", address: normalizeRequestHost(text), ...portPart });
      continue;
    }
    const subdomainsOnly = text.startsWith(".") || text.startsWith("*.");
    const name = text.replace(/^\*?\./u, "");
    let normalized: string;
    try {
      normalized = normalizeRequestHost(name);
    } catch {
      ignored.push(raw);
      continue;
    }
    if (isIP(normalized) !== 0) {
      ignored.push(raw);
      continue;
    }
    entries.push({ kind: "name", name: normalized, subdomainsOnly, ...portPart });
  }
  return { entries, ignored };
}

/** Whether NO_PROXY sends `host` (normalised) on `port` direct. */
export function bypassesUpstream(entries: readonly NoProxyEntry[], host: string, port: number): boolean {
  return entries.some((e) => {
    if (e.kind === "all") return true;
    if (e.port !== undefined && e.port !== port) return false;
    if (e.kind === "address") return host === e.address;
    if (host === e.name) return !e.subdomainsOnly;
    return host.endsWith(`.${e.name}`);
  });
}

/** Parses settings; throws `UnsupportedUpstreamError` naming the variable of a URL it cannot use. */
export function parseUpstream(settings: UpstreamSettings): ParsedUpstream {
  const http = settings.http ?? settings.all;
  const https = settings.https ?? settings.all;
  const { entries, ignored } = parseNoProxy(settings.noProxy?.value ?? "");
  return {
    ...(http ? { http: parseUpstreamUrl(http) } : {}),
    ...(https ? { https: parseUpstreamUrl(https) } : {}),
    noProxy: entries,
    ignored,
  };
}

/**
 * The upstream a request goes through, or undefined for a direct connection: plain HTTP uses the
 * `http` proxy, tunnels (CONNECT, SOCKS5) the `https` one; NO_PROXY sends a host direct.
 */
export function upstreamFor(upstream: ParsedUpstream | undefined, protocol: ProxyProtocol, host: string, port: number): UpstreamProxy | undefined {
  if (!upstream) return undefined;
  const proxy = protocol === "http" ? upstream.http : upstream.https;
  if (!proxy || bypassesUpstream(upstream.noProxy, host, port)) return undefined;
  return proxy;
}
