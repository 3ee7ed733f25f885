import { isIP, type Socket } from "node:net";
import { connectTo, errorCode, untilStopped } from "./connect.js";
import { checkDestination } from "./destination.js";
import { upstreamFor, type ParsedUpstream, type UpstreamProxy } from "./upstream.js";
import { connectThrough, proxyAuthorization } from "./upstream-connect.js";
import { InvalidHostError } from "./errors.js";
import { formatHostPort, isValidPort, normalizeRequestHost } from "./host.js";
import type { Refusal } from "./refusal.js";
import type { NetworkRequestEvent, ProxyDecide, ProxyProtocol, ProxyResolver, ProxyVerdict } from "./types.js";

/** What admitting a request needs from the running proxy. */
export interface DestinationContext {
  decide: ProxyDecide;
  resolver: ProxyResolver;
  connectTimeoutMs: number;
  /** Aborted by stop(): a request still being admitted then ends as `stopped`. */
  signal: AbortSignal;
  /** Registers a destination socket so that stop() can close it. */
  track(socket: Socket): void;
  /** Destinations are read in bulk (`connectBulk`): set when no splicer takes bulk transfers over. */
  bulkReads?: boolean;
  /** The upstream proxy allowed connections go through (NO_PROXY hosts excepted). */
  upstream?: ParsedUpstream;
}

/** A request's outcome: a connected, checked destination socket, or the refusal to show. Either way the event to report. */
export type OpenedDestination =
  | {
      ok: true;
      socket: Socket;
      event: NetworkRequestEvent;
      /** Set when `socket` is a connection to an HTTP upstream proxy: plain HTTP goes to it in absolute form, with these credentials. */
      forward?: { authorization?: string };
    }
  | { ok: false; refusal: Refusal; event: NetworkRequestEvent };

/**
 * Decides, resolves, checks and connects, in that order: `decide` sees the name before any DNS
 * query (a denied name is never resolved, so a lookup cannot leak it), every address is checked,
 * and the socket handed back is connected to a checked address, so no library resolves the name
 * again behind the check (DNS rebinding).
 */
export async function openDestination(protocol: ProxyProtocol, rawHost: string, port: number, ctx: DestinationContext): Promise<OpenedDestination> {
  let host: string;
  try {
    host = normalizeRequestHost(rawHost);
  } catch (error) {
    const shown = error instanceof InvalidHostError ? error.host : String(rawHost).slice(0, 256);
    return refuse({ protocol, host: shown, port }, "bad-request", error instanceof Error ? error.message : "invalid host");
  }
  const base = { protocol, host, port };
  if (!isValidPort(port)) return refuse(base, "bad-request", `port ${port} cannot be connected to`);

  let verdict: ProxyVerdict;
  try {
    // No time limit: a decide may be waiting for a person (an approval prompt). stop() ends the wait.
    verdict = await untilStopped(Promise.resolve().then(() => ctx.decide({ protocol, host, port })), ctx.signal);
    if (typeof verdict !== "object" || verdict === null) throw new TypeError("decide returned no verdict");
  } catch (error) {
    if (ctx.signal.aborted) return refuse(base, "stopped", "the proxy is stopping");
    return refuse(base, "decide-failed", `the network policy failed (${error instanceof Error ? error.message : String(error)}), so nothing is allowed`);
  }
  const cause = verdict.rule ? "rule" : "default";
  const extra = { ...(verdict.hint !== undefined ? { hint: String(verdict.hint) } : {}), ...(verdict.rule ? { rule: verdict.rule } : {}) };
  // Only the exact string allows: a verdict that is malformed in any way denies.
  if (verdict.decision !== "allow") return refuse(base, cause, String(verdict.reason ?? "no rule or grant allows this host"), extra);
  if (ctx.signal.aborted) return refuse(base, "stopped", "the proxy is stopping");

  // Only an allowed host gets this far: a refused one never reaches the upstream, nor the resolver.
  const via = upstreamFor(ctx.upstream, protocol, host, port);
  let addresses: string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    let failure: string | undefined;
    try {
      const answer = await untilStopped(Promise.resolve().then(() => ctx.resolver(host)), ctx.signal, ctx.connectTimeoutMs);
      addresses = Array.from(answer ?? [], (a) => a?.address).filter((a): a is string => typeof a === "string" && isIP(a) !== 0);
      if (addresses.length === 0) failure = "no address";
    } catch (error) {
      if (ctx.signal.aborted) return refuse(base, "stopped", "the proxy is stopping");
      addresses = [];
      failure = errorCode(error);
    }
    // Behind an upstream proxy the host's resolver often knows no outside name: the upstream then
    // resolves it (what it answers is checked where the host's resolver does answer).
    if (failure !== undefined && (via === undefined || via.protocol === "socks5")) return refuse(base, "resolve-failed", `cannot resolve ${host} (${failure})`, extra);
  }

  // Every address is checked, not just the first: the connect loop below may reach any of them.
  const { refused } = checkDestination(host, addresses, { allowNamed: verdict.allowNamed === true, allowPrivate: verdict.allowPrivate === true });
  if (refused?.reason !== undefined) return refuse(base, "private-address", refused.reason, { ...extra, address: refused.address, ...(refused.refusedBy ? { refusedBy: refused.refusedBy } : {}) });
  if (ctx.signal.aborted) return refuse(base, "stopped", "the proxy is stopping");

  if (via !== undefined) return throughUpstream(base, verdict, via, addresses, ctx, extra);

  const deadline = Date.now() + ctx.connectTimeoutMs;
  let lastError: unknown;
  for (const address of addresses) {
    try {
      const socket = await connectTo(address, port, deadline - Date.now(), ctx.signal, ctx.track, ctx.bulkReads === true);
      return { ok: true, socket, event: { ...base, decision: "allow", cause, ...(verdict.rule ? { rule: verdict.rule } : {}), ...(verdict.reason !== undefined ? { reason: String(verdict.reason) } : {}), address } };
    } catch (error) {
      lastError = error;
      if (ctx.signal.aborted) return refuse(base, "stopped", "the proxy is stopping", { address });
      if (Date.now() >= deadline) break;
    }
  }
  const shownAddress = addresses.length === 1 ? addresses[0] : undefined;
  return refuse(base, "upstream-failed", `cannot connect to ${host === addresses[0] ? host : `${host} (${addresses.join(", ")})`} port ${port} (${errorCode(lastError)})`, {
    ...extra,
    ...(shownAddress !== undefined ? { address: shownAddress } : {}),
  });
}

async function throughUpstream(
  base: { protocol: ProxyProtocol; host: string; port: number },
  verdict: ProxyVerdict,
  via: UpstreamProxy,
  addresses: readonly string[],
  ctx: DestinationContext,
  extra: { hint?: string; rule?: NetworkRequestEvent["rule"] },
): Promise<OpenedDestination> {
  const cause = verdict.rule ? "rule" : "default";
  const mode = base.protocol === "http" && via.protocol === "http" ? "forward" : "tunnel";
  const address = addresses[0];
  try {
    const socket = await connectThrough(via, { host: base.host, port: base.port, ...(address !== undefined ? { address } : {}) }, mode, ctx.connectTimeoutMs, ctx);
    const event: NetworkRequestEvent = {
      ...base,
      decision: "allow",
      cause,
      ...(verdict.rule ? { rule: verdict.rule } : {}),
      ...(verdict.reason !== undefined ? { reason: String(verdict.reason) } : {}),
      ...(address !== undefined ? { address } : {}),
      upstream: via.shown,
    };
    const authorization = proxyAuthorization(via);
    return { ok: true, socket, event, ...(mode === "forward" ? { forward: { ...(authorization ? { authorization } : {}) } } : {}) };
  } catch (error) {
    if (ctx.signal.aborted) return refuse(base, "stopped", "the proxy is stopping");
    const refused = refuse(base, "upstream-failed", `cannot connect to ${formatHostPort(base.host, base.port)} through the upstream proxy ${via.shown} from ${via.variable} (${error instanceof Error && !("code" in error && typeof error.code === "string" && /^E[A-Z]+$/u.test(error.code)) ? error.message : errorCode(error)})`, extra);
    refused.event.upstream = via.shown;
    return refused;
  }
}

function refuse(
  base: { protocol: ProxyProtocol; host: string; port: number },
  cause: Refusal["cause"],
  reason: string,
  extra: { hint?: string; rule?: NetworkRequestEvent["rule"]; address?: string; refusedBy?: NetworkRequestEvent["refusedBy"] } = {},
): OpenedDestination {
  const { hint, ...rest } = extra;
  return {
    ok: false,
    refusal: { cause, host: base.host, port: base.port, reason, ...(hint !== undefined ? { hint } : {}) },
    event: { ...base, decision: "deny", cause, reason, ...rest },
  };
}
