import { formatHostPort } from "./host.js";
import type { NetworkRequestCause } from "./types.js";

/** Why a request did not go through, in the words the client is shown. */
export interface Refusal {
  cause: NetworkRequestCause;
  host: string;
  port: number;
  reason: string;
  hint?: string;
}

/** Causes under which the policy (not the network) said no: these are refusals, the rest failures. */
const POLICY_CAUSES: ReadonlySet<NetworkRequestCause> = new Set(["rule", "default", "decide-failed", "private-address", "unsupported-command"]);

/**
 * The text a refused client reads (an HTTP body; also what a tool prints when it shows the
 * proxy's answer). It names the destination, so a user can tell which of many requests a build
 * made was stopped, and says how to grant it when the caller gave a hint. Sandboxed input is
 * escaped so a hostile host name cannot forge lines of its own.
 */
export function refusalText(refusal: Refusal): string {
  const what = POLICY_CAUSES.has(refusal.cause) ? "refused" : "failed";
  const lines = [`shellgate: network access to ${printable(formatHostPort(refusal.host, refusal.port))} ${what}: ${printable(refusal.reason)}`];
  if (refusal.hint !== undefined && refusal.hint !== "") lines.push(`To allow it: ${printable(refusal.hint)}`);
  return `${lines.join("\n")}\n`;
}

/** The HTTP status for a refusal: 403 when the policy said no, 400 for garbage, 502 when the network failed, 503 when stopping. */
export function httpStatusOf(cause: NetworkRequestCause): number {
  if (cause === "bad-request") return 400;
  if (cause === "resolve-failed" || cause === "upstream-failed") return 502;
  if (cause === "stopped") return 503;
  return 403;
}

/** SOCKS5 reply codes (RFC 1928 §6). */
export const SocksReply = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
} as const;

/** The SOCKS5 reply for a refusal: 0x02 when the policy said no, 0x04 when the name did not resolve, 0x05 when connecting failed. */
export function socksReplyOf(cause: NetworkRequestCause): number {
  if (cause === "resolve-failed") return SocksReply.hostUnreachable;
  if (cause === "upstream-failed") return SocksReply.connectionRefused;
  if (cause === "unsupported-command") return SocksReply.commandNotSupported;
  if (cause === "bad-request" || cause === "stopped") return SocksReply.generalFailure;
  return SocksReply.notAllowed;
}

// Control characters (a newline in a SOCKS host name, an escape sequence in a caller's reason)
// become visible escapes; everything else is kept so that names and paths read as written.
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
