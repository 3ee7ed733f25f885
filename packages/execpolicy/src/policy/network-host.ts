/** Host normalisation for `network_rule`, `prefix_rule(network=...)` and the API: one set of rules, one wording. */
import { InvalidNetworkHostError } from "../errors.js";
import { ValueError } from "../lang/values.js";

/**
 * The construct a host is written in; every message about a bad host names it, so a host refused in
 * a `prefix_rule`'s `network=[…]` is not reported as a `network_rule` one, in a file or through the API.
 */
export type HostSubject = "network_rule host" | "prefix_rule network host";

/** Normalise `raw`, or return the reason it is not a host, in the one wording every caller uses. */
function checkNetworkHost(raw: unknown, subject: HostSubject): { host: string } | { error: string } {
  const bad = (why: string) => ({ error: `invalid rule: ${subject} ${why}` });
  if (typeof raw !== "string") return bad(`must be a string (got ${typeof raw})`);
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
export function normalizeHostInFile(raw: string, subject: HostSubject = "network_rule host", keyword?: string): string {
  const r = checkNetworkHost(raw, subject);
  if ("error" in r) throw new ValueError("INVALID_NETWORK_RULE", r.error, keyword);
  return r.host;
}

/**
 * Normalise a network host exactly as `network_rule(host=...)` does (trim; strip `[…]` and a
 * `:port`; drop trailing dots; lower-case; refuse schemes, paths, wildcards, whitespace).
 * Throws `InvalidNetworkHostError` (code `INVALID_NETWORK_RULE`, no file location) for a host a
 * rules file could not name, worded as a rules file's error would be for `subject` (default
 * `network_rule host`).
 */
export function normalizeNetworkHost(raw: string, subject: HostSubject = "network_rule host"): string {
  const r = checkNetworkHost(raw, subject);
  if ("error" in r) throw new InvalidNetworkHostError(String(raw), r.error);
  return r.host;
}
