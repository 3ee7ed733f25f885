/** `network_rule` host normalisation (spec section 3.3), shared by `network_rule`, `prefix_rule(network=...)` and the API. */
import { InvalidNetworkHostError } from "../errors.js";
import { ValueError } from "../lang/values.js";

/**
 * Normalise `raw`, or return the reason it is not a host. `subject` names the thing being
 * validated in the message (`network_rule host`, `prefix_rule network host`), so every caller
 * gets the spec's wording for its own construct from one set of rules.
 */
function checkNetworkHost(raw: string, subject = "network_rule host"): { host: string } | { error: string } {
  const bad = (why: string) => ({ error: `invalid rule: ${subject} ${why}` });
  let h = raw.trim();
  if (h === "") return bad("cannot be empty");
  if (/:\/\/|[/?#]/.test(h)) return bad(`must be a hostname or IP literal (without scheme or path) (got ${h})`);
  if (h.startsWith("[")) {
    const close = h.indexOf("]");
    if (close < 0) return bad(`has an invalid bracketed IPv6 literal (got ${h})`);
    const suffix = h.slice(close + 1);
    if (suffix !== "" && !/^:\d+$/.test(suffix)) return bad(`contains an unsupported suffix (got ${h})`);
    h = h.slice(1, close);
  } else if (/^[^:]*:\d+$/.test(h)) {
    h = h.slice(0, h.indexOf(":"));
  }
  h = h.replace(/\.+$/, "").toLowerCase();
  if (h.includes("*")) return bad("must be a specific host; wildcards are not allowed");
  if (/\s/.test(h)) return bad("cannot contain whitespace");
  if (h === "") return bad("cannot be empty");
  return { host: h };
}

/**
 * Inside a builtin: normalise or throw the evaluation error that the interpreter turns into a
 * `PolicyDiagnosticError` at file:line:col (`keyword` points it at that argument).
 */
export function normalizeHostInFile(raw: string, subject?: string, keyword?: string): string {
  const r = checkNetworkHost(raw, subject);
  if ("error" in r) throw new ValueError("INVALID_NETWORK_RULE", r.error, keyword);
  return r.host;
}

/**
 * Normalise a network host exactly as `network_rule(host=...)` does (trim; strip `[…]` and a
 * `:port`; drop trailing dots; lower-case; refuse schemes, paths, wildcards, whitespace).
 * Throws `InvalidNetworkHostError` (code `INVALID_NETWORK_RULE`, no file location) for a host a
 * rules file could not name.
 */
export function normalizeNetworkHost(raw: string): string {
  if (typeof raw !== "string") throw new InvalidNetworkHostError(String(raw), `invalid rule: network_rule host must be a string (got ${typeof raw})`);
  const r = checkNetworkHost(raw);
  if ("error" in r) throw new InvalidNetworkHostError(raw, r.error);
  return r.host;
}
