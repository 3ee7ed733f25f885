/** Stable machine-readable codes for every error this package throws. */
export type NetworkProxyErrorCode =
  | "NETPROXY_INVALID_OPTIONS"
  | "NETPROXY_INVALID_HOST"
  | "NETPROXY_INVALID_ADDRESS"
  | "NETPROXY_START_FAILED"
  | "NETPROXY_LISTENER_FAILED"
  | "NETPROXY_UNSUPPORTED_UPSTREAM";

/** Base class of every error thrown by @shellgate/network-proxy; switch on `code`, not on the class name. */
export class NetworkProxyError extends Error {
  readonly code: NetworkProxyErrorCode;
  constructor(code: NetworkProxyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** `NetworkProxyOptions` did not validate; `field` is the dotted path of the offending value (e.g. `listen.directory`). */
export class InvalidProxyOptionsError extends NetworkProxyError {
  readonly field: string;
  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super("NETPROXY_INVALID_OPTIONS", `${field}: ${message}`, options);
    this.field = field;
  }
}

/** A destination host is not a DNS name or IP literal the proxy can act on (empty, a port or path glued on, bad characters). */
export class InvalidHostError extends NetworkProxyError {
  /** The input, cut to 256 characters: it comes from a sandboxed command and may be anything. */
  readonly host: string;
  constructor(host: string, message: string, options?: { cause?: unknown }) {
    const shown = host.length > 256 ? `${host.slice(0, 256)}…` : host;
    super("NETPROXY_INVALID_HOST", `invalid host ${JSON.stringify(shown)}: ${message}`, options);
    this.host = shown;
  }
}

/** `classifyAddress` was given something that is not an IPv4 or IPv6 address. */
export class InvalidAddressError extends NetworkProxyError {
  readonly address: string;
  constructor(address: string) {
    const shown = address.length > 64 ? `${address.slice(0, 64)}…` : address;
    super("NETPROXY_INVALID_ADDRESS", `not an IP address: ${JSON.stringify(shown)}`);
    this.address = shown;
  }
}

/** A listener could not be created (socket path taken or too long, port unavailable, permissions). */
export class ProxyStartError extends NetworkProxyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("NETPROXY_START_FAILED", message, options);
  }
}

/** A running listener failed or closed without `stop()`; the proxy is then down (`alive` false) and callers fail closed. */
export class ProxyListenerError extends NetworkProxyError {
  /** Which listener: the HTTP one (plain and CONNECT) or the SOCKS5 one. */
  readonly listener: "http" | "socks";
  constructor(listener: "http" | "socks", message: string, options?: { cause?: unknown }) {
    super("NETPROXY_LISTENER_FAILED", `${listener} listener: ${message}`, options);
    this.listener = listener;
  }
}

/** An upstream proxy setting (`HTTPS_PROXY`…) this proxy cannot connect through: an unsupported scheme, or not a URL. */
export class UnsupportedUpstreamError extends NetworkProxyError {
  /** The environment variable the setting came from. */
  readonly variable: string;
  /** The URL with any password replaced by `***`. */
  readonly url: string;
  constructor(variable: string, url: string, problem: string) {
    super("NETPROXY_UNSUPPORTED_UPSTREAM", `${variable}=${url}: ${problem}`);
    this.variable = variable;
    this.url = url;
  }
}
