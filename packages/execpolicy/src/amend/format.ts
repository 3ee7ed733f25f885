/** The text amend writes (kept apart from the I/O so that importing it costs nothing). */
import { InvalidArgumentError } from "../errors.js";
import { normalizeNetworkHost } from "../policy/network-host.js";
import type { Decision, NetworkProtocol, RuleSandbox } from "../policy/types.js";

/** Largest rules file amend will read (it reads the whole file to de-duplicate). */
export const MAX_AMEND_FILE_BYTES = 64 * 1024 * 1024;

/** The sandbox an "allow, sandboxed" amendment writes (`sandbox=` / `network=` of `prefix_rule`, a shellgate extension). */
export interface AllowRuleSandbox {
  /** Written as `sandbox="…"`. */
  sandbox?: RuleSandbox;
  /** Written as `network=[…]` (normalised, de-duplicated); needs `sandbox`, as in a rules file. */
  network?: readonly string[];
}

/** A `network_rule` to append. */
export interface NetworkRuleToAppend {
  host: string;
  /** A protocol `network_rule` accepts; aliases (`https_connect`, `http-connect`) are written as `https`. */
  protocol: NetworkProtocol | "https_connect" | "http-connect";
  /** `forbidden` (or `deny`) is written as `deny`. */
  decision: Decision | "deny";
  justification?: string;
}

const PROTOCOLS: Readonly<Record<string, NetworkProtocol>> = {
  http: "http", https: "https", https_connect: "https", "http-connect": "https", socks5_tcp: "socks5_tcp", socks5_udp: "socks5_udp",
};

/** Validate an amendment's sandbox the way the `prefix_rule` builtin would, so that the line written always loads. */
function sandboxArgs(grant: AllowRuleSandbox | undefined): string {
  if (grant === undefined || (grant.sandbox === undefined && grant.network === undefined)) return "";
  const { sandbox, network } = grant;
  if (sandbox === undefined) throw new InvalidArgumentError("network", "network hosts need a sandbox (\"read-only\" or \"workspace-write\")");
  if (sandbox !== "read-only" && sandbox !== "workspace-write") throw new InvalidArgumentError("sandbox", `expected "read-only" or "workspace-write", got ${JSON.stringify(sandbox)}`);
  let out = `, sandbox=${JSON.stringify(sandbox)}`;
  if (network !== undefined) {
    if (!Array.isArray(network)) throw new InvalidArgumentError("network", "expected an array of host strings");
    network.forEach((h, i) => {
      if (typeof h !== "string") throw new InvalidArgumentError(`network[${i}]`, `expected a string, got ${typeof h}`);
    });
    const hosts = [...new Set(network.map((h) => normalizeNetworkHost(h, "prefix_rule network host")))];
    out += `, network=[${hosts.map((h) => JSON.stringify(h)).join(", ")}]`;
  }
  return out;
}

/**
 * The line amend writes for `prefix`: `prefix_rule(pattern=["a", "b"], decision="allow")`, with
 * `, sandbox="…"` and `, network=["…"]` appended when `grant` asks for them. Tokens and values are
 * JSON-encoded (a JSON string is a valid Starlark string, and our lexer decodes every JSON escape,
 * including `\uXXXX` for control characters and lone surrogates), so the file reads back to exactly
 * the same tokens. Throws `InvalidArgumentError` for a bad grant and `InvalidNetworkHostError` for
 * a host `network_rule` would refuse.
 */
export function formatAllowPrefixRule(prefix: readonly string[], grant?: AllowRuleSandbox): string {
  return `prefix_rule(pattern=[${prefix.map((t) => JSON.stringify(t)).join(", ")}], decision="allow"${sandboxArgs(grant)})`;
}

/**
 * The line `appendNetworkRule` writes:
 * `network_rule(host="<h>", protocol="<p>", decision="<allow|prompt|deny>"[, justification="<j>"])`
 * the host normalised, `forbidden` written as `deny`, values JSON-encoded. Throws
 * `InvalidNetworkHostError` for a bad host and `InvalidArgumentError` for the other fields.
 */
export function formatNetworkRule(rule: NetworkRuleToAppend): string {
  if (rule === null || typeof rule !== "object") throw new InvalidArgumentError("rule", "expected an object");
  const host = normalizeNetworkHost(rule.host);
  const protocol = typeof rule.protocol === "string" ? PROTOCOLS[rule.protocol] : undefined;
  if (protocol === undefined) throw new InvalidArgumentError("protocol", `expected one of http, https, socks5_tcp, socks5_udp, got ${JSON.stringify(rule.protocol)}`);
  const d = rule.decision;
  if (d !== "allow" && d !== "prompt" && d !== "forbidden" && d !== "deny") {
    throw new InvalidArgumentError("decision", `expected "allow", "prompt", "forbidden" or "deny", got ${JSON.stringify(d)}`);
  }
  let line = `network_rule(host=${JSON.stringify(host)}, protocol=${JSON.stringify(protocol)}, decision=${JSON.stringify(d === "forbidden" ? "deny" : d)}`;
  if (rule.justification !== undefined) {
    if (typeof rule.justification !== "string" || rule.justification.trim() === "") throw new InvalidArgumentError("justification", "justification cannot be empty");
    line += `, justification=${JSON.stringify(rule.justification)}`;
  }
  return `${line})`;
}
