/** `network_rule` host normalisation (spec section 3.3). */
import { ValueError } from "../lang/values.js";

function fail(message: string): never {
  throw new ValueError("INVALID_NETWORK_RULE", message);
}

/** Normalise a `network_rule` host as the spec says; throws with the spec's messages. */
export function normalizeNetworkHost(raw: string): string {
  let h = raw.trim();
  if (h === "") fail("invalid rule: network_rule host cannot be empty");
  if (/:\/\/|[/?#]/.test(h)) fail(`invalid rule: network_rule host must be a hostname or IP literal (without scheme or path) (got ${h})`);
  if (h.startsWith("[")) {
    const close = h.indexOf("]");
    if (close < 0) fail(`invalid rule: network_rule host has an invalid bracketed IPv6 literal (got ${h})`);
    const suffix = h.slice(close + 1);
    if (suffix !== "" && !/^:\d+$/.test(suffix)) fail(`invalid rule: network_rule host contains an unsupported suffix (got ${h})`);
    h = h.slice(1, close);
  } else if (/^[^:]*:\d+$/.test(h)) {
    h = h.slice(0, h.indexOf(":"));
  }
  h = h.replace(/\.+$/, "").toLowerCase();
  if (h.includes("*")) fail("invalid rule: network_rule host must be a specific host; wildcards are not allowed");
  if (/\s/.test(h)) fail("invalid rule: network_rule host cannot contain whitespace");
  if (h === "") fail("invalid rule: network_rule host cannot be empty");
  return h;
}

