import type { HostGrant, NetworkGrants } from "./grants.js";

/** A `network_rule` as the host policy reads it (structurally execpolicy's `NetworkRule`). */
export interface HostRule {
  host: string;
  protocol: string;
  decision: "allow" | "prompt" | "forbidden";
  justification?: string;
  source: { file: string; line: number; column: number };
}

/** Where a host's treatment comes from. */
export type HostVerdictSource =
  | { kind: "rule"; rule: HostRule }
  | { kind: "grant"; origin: string }
  | { kind: "deny-list"; origin: string }
  | { kind: "command-rule"; origin: string }
  | { kind: "default" };

/**
 * How the session treats a host: `allow` (reachable), `prompt` (ask a person, once per host), `deny`.
 * `explicit` is true when the host itself is named by a rule or grant that allows it: only then may
 * it lead to a loopback, private or link-local address.
 */
export interface HostVerdict {
  host: string;
  decision: "allow" | "prompt" | "deny";
  source: HostVerdictSource;
  explicit: boolean;
}

/** The rules part the host policy needs: the last rule naming a host decides, as in the compiled lists. */
export interface HostRules {
  readonly networkRules?: readonly HostRule[];
}

/**
 * Decides how a host is treated, in the order the design fixes: anything that forbids it (a
 * `network_rule` whose last word on the host is `forbidden`/`deny`, a `deny` grant), then anything
 * that allows it (the last rule says `allow`, an `allow` grant, the command's own rule grant), then a
 * `prompt` rule, then deny. Rules files follow Codex: the last rule naming a host wins among them.
 */
export class NetworkHostPolicy {
  readonly #rules: () => readonly HostRule[];
  readonly grants: NetworkGrants;

  /** `rules` is read on every decision: an approval that amends the rules files takes effect at once. */
  constructor(rules: () => HostRules, grants: NetworkGrants) {
    this.#rules = () => rules().networkRules ?? [];
    this.grants = grants;
  }

  /** The last rule naming `host`, if any. */
  ruleFor(host: string): HostRule | undefined {
    const rules = this.#rules();
    for (let i = rules.length - 1; i >= 0; i--) if (rules[i]!.host === host) return rules[i];
    return undefined;
  }

  /**
   * Whether anything could let a host through: an allow grant, or a rule that allows or asks. Without
   * that, proxy routing would only refuse everything, so runs keep the plain network-off sandbox.
   */
  get active(): boolean {
    if (this.grants.allow.length > 0) return true;
    const last = new Map<string, HostRule>();
    for (const r of this.#rules()) last.set(r.host, r);
    return [...last.values()].some((r) => r.decision !== "forbidden");
  }

  /** The verdict for a normalised host; `commandGrants` are the hosts the running command's own rule grants. */
  decide(host: string, commandGrants: readonly HostGrant[] = []): HostVerdict {
    const rule = this.ruleFor(host);
    if (rule?.decision === "forbidden") return { host, decision: "deny", source: { kind: "rule", rule }, explicit: false };
    const denied = this.grants.deny.find((g) => g.host === host);
    if (denied) return { host, decision: "deny", source: { kind: "deny-list", origin: denied.origin }, explicit: false };
    if (rule?.decision === "allow") return { host, decision: "allow", source: { kind: "rule", rule }, explicit: true };
    const granted = this.grants.allow.find((g) => g.host === host);
    if (granted) return { host, decision: "allow", source: { kind: "grant", origin: granted.origin }, explicit: true };
    const byCommand = commandGrants.find((g) => g.host === host);
    if (byCommand) return { host, decision: "allow", source: { kind: "command-rule", origin: byCommand.origin }, explicit: true };
    if (rule?.decision === "prompt") return { host, decision: "prompt", source: { kind: "rule", rule }, explicit: false };
    return { host, decision: "deny", source: { kind: "default" }, explicit: false };
  }
}

/** One line naming where a verdict comes from (`network_rule at f:3:1`, `--allow-domain`, `no rule or grant`). */
export function describeVerdictSource(source: HostVerdictSource): string {
  switch (source.kind) {
    case "rule": {
      const r = source.rule;
      const word = r.decision === "forbidden" ? "forbidden" : r.decision === "allow" ? "allowed" : "needs approval";
      return `${word} by network_rule at ${r.source.file}:${r.source.line}:${r.source.column}${r.justification ? ` (${r.justification})` : ""}`;
    }
    case "grant":
      return `allowed by ${source.origin}`;
    case "deny-list":
      return `denied by ${source.origin}`;
    case "command-rule":
      return `allowed for this command by ${source.origin}`;
    case "default":
      return "no rule or grant allows this host";
  }
}
