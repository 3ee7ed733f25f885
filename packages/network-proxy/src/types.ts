import type { AddressRefusedBy } from "./destination.js";
import type { UpstreamSettings } from "./upstream.js";

/** How a request reached the proxy: plain HTTP forwarding, an HTTP `CONNECT` tunnel (`https`, whatever the port), or a SOCKS5 `CONNECT`. */
export type ProxyProtocol = "http" | "https" | "socks5_tcp";

/** What `decide` is asked about. `host` is normalised (`normalizeRequestHost`): the same string the proxy goes on to resolve or connect to. */
export interface ProxyRequest {
  protocol: ProxyProtocol;
  host: string;
  port: number;
}

/** Where a policy rule was written, so a refusal can point at it. */
export interface ProxyRuleRef {
  file: string;
  line: number;
  column: number;
}

/** The caller's answer for one request. */
export interface ProxyVerdict {
  decision: "allow" | "deny";
  /** shown in the refusal ("no rule or grant allows this host", "forbidden by network_rule at f:3:1") */
  reason?: string;
  /** how to grant it, shown in the refusal, e.g. "re-run with --allow-domain example.com" */
  hint?: string;
  rule?: ProxyRuleRef;
  /**
   * The host was allowed by name (a grant, an allow rule, a person's approval): any unicast address
   * it resolves to may be reached, private and reserved ranges included (a VPN's or proxy's resolver
   * answers with fake-IP or documentation addresses), but not loopback or link-local.
   */
  allowNamed?: boolean;
  /** The host was granted by name in the configuration: loopback and link-local too (implies `allowNamed`). */
  allowPrivate?: boolean;
}

/** The per-request policy. It runs before any DNS resolution; throwing or rejecting counts as deny (`decide-failed`). */
export type ProxyDecide = (request: ProxyRequest) => ProxyVerdict | Promise<ProxyVerdict>;

/** Name resolution, replaceable so tests (and callers with their own DNS) decide what a name means. Called at most once per request. */
export type ProxyResolver = (host: string) => Promise<ReadonlyArray<{ address: string; family: 4 | 6 }>>;

/**
 * Why a request ended the way it did (closed set):
 * - `rule`: `decide`'s verdict named a rule (`rule` is set), allow or deny;
 * - `default`: `decide`'s verdict named no rule (a grant, or its default answer);
 * - `decide-failed`: `decide` threw, rejected or returned something that is not a verdict: denied;
 * - `private-address`: allowed, but an address it resolves to (or the literal) is one the verdict does not open (see `checkDestination`);
 * - `resolve-failed`: the name did not resolve, or the resolver failed;
 * - `upstream-failed`: no checked address accepted a connection within `connectTimeoutMs`;
 * - `bad-request`: the host or port cannot be acted on (garbage host, port 0);
 * - `unsupported-command`: SOCKS5 `BIND` or `UDP ASSOCIATE`;
 * - `stopped`: the proxy stopped while the request was being admitted.
 */
export type NetworkRequestCause =
  | "rule"
  | "default"
  | "decide-failed"
  | "private-address"
  | "resolve-failed"
  | "upstream-failed"
  | "bad-request"
  | "unsupported-command"
  | "stopped";

/** One request's outcome, reported exactly once. */
export interface NetworkRequestEvent {
  protocol: ProxyProtocol;
  /** Normalised; for `bad-request` the raw input, cut to 256 characters (it is hostile text: escape it before display). */
  host: string;
  port: number;
  /** `allow` only when a connection to the destination was made and handed to the client; everything else is `deny`. */
  decision: "allow" | "deny";
  cause: NetworkRequestCause;
  reason?: string;
  rule?: ProxyRuleRef;
  /** the address actually connected to (or refused), when resolution happened */
  address?: string;
  /** For `private-address`: what refused the address (see `checkDestination`). */
  refusedBy?: AddressRefusedBy;
  /** The upstream proxy the connection went through (or failed at), its password shown as `***`. */
  upstream?: string;
}

/** Where the proxy listens: two unix sockets in a private directory, or two loopback TCP ports. */
export type ProxyListen = { transport: "unix-socket"; directory: string } | { transport: "loopback-tcp" };

/** What `startNetworkProxy` needs. */
export interface NetworkProxyOptions {
  decide: ProxyDecide;
  listen: ProxyListen;
  /** default: node:dns lookup with all: true */
  resolver?: ProxyResolver;
  /** Observes every request's outcome; its errors are swallowed so it cannot break the proxy. */
  onRequest?: (event: NetworkRequestEvent) => void;
  /** Budget for resolving a name, and again for connecting to its checked addresses (all together); default 10_000. */
  connectTimeoutMs?: number;
  /**
   * Client connections held open at once, both listeners together (1 to 65 536; default 512,
   * `DEFAULT_MAX_CONNECTIONS`). Past it a new HTTP connection is answered `503` with a readable body
   * naming the limit, and a SOCKS5 one is closed unread: a sandboxed command must not be able to open
   * connections until the host process runs out of descriptors.
   */
  maxConnections?: number;
  /**
   * Absolute path of an executable implementing the `--splice` and `--splice-body` contracts: run
   * as `<path> --splice` with a tunnel's client on fd 0 and its destination on fd 1, it joins the two
   * both ways until both have ended (half-closes passed on), and dies with this process; run as
   * `<path> --splice-body N`, it moves exactly N bytes from fd 1 to fd 0 and exits 0 leaving both
   * open. CONNECT and SOCKS5 tunnels that carry more than 1 MiB one way, and plain-HTTP bodies of a
   * known length over 1 MiB, are handed to it; without it, or when it cannot start, they stay in JS.
   * It runs on the host with this process's rights: pass only a trusted file. Checked at start
   * (exists, executable).
   */
  tunnelSplicer?: string;
  /**
   * An upstream proxy for allowed connections (`upstreamSettingsFromEnv(process.env)` reads the
   * host's `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY`). Requests are judged first: a
   * refused host never reaches it. Plain HTTP goes to an HTTP upstream in absolute form, tunnels
   * through CONNECT; a SOCKS5 upstream carries both. A scheme it cannot use fails the start with
   * `UnsupportedUpstreamError` (`NETPROXY_UNSUPPORTED_UPSTREAM`).
   */
  upstream?: UpstreamSettings;
}

/** Where clients reach the proxy: for each listener exactly one of the two is set, per transport. */
export interface ProxyEndpoints {
  http: { socketPath?: string; port?: number };
  socks: { socketPath?: string; port?: number };
}

/** A running proxy. */
export interface NetworkProxy {
  readonly endpoints: ProxyEndpoints;
  /** true until stop() or an unexpected failure */
  readonly alive: boolean;
  /** settles when the proxy has stopped for any reason; `error` set when it was not stop() */
  readonly closed: Promise<{ error?: Error }>;
  /** Idempotent; closes listeners and all open tunnels; removes socket files. */
  stop(): Promise<void>;
}
