import type { Admission } from "../admission/assess.js";
import type { HostGrant } from "./grants.js";

/** What the rules that allowed (or asked about) a command grant it: its own sandbox and hosts. */
export interface CommandRuleGrant {
  sandbox: "read-only" | "workspace-write";
  hosts: HostGrant[];
  /** The rules that carried it, for explanations (`rule at f:3:1`). */
  origins: string[];
}

/**
 * The sandbox a command's own rules ask for (`prefix_rule(..., sandbox=..., network=[...])`, a
 * shellgate extension), or `undefined` when no rule that decided a segment carries one. Within one
 * segment, as execpolicy's `ruleSandboxGrant` reads an evaluation: the rules of the segment's
 * decision that carry a sandbox count, the strictest sandbox applies and only hosts every one of them
 * names are granted. Across a script's segments the strictest sandbox applies and the hosts add up:
 * the script runs in one sandbox, and each of its commands was allowed with its own hosts. Forbidden
 * rules carry none (the command never runs).
 */
export function commandRuleGrant(admission: Pick<Admission, "details">): CommandRuleGrant | undefined {
  let sandbox: CommandRuleGrant["sandbox"] | undefined;
  const hosts = new Map<string, HostGrant>();
  const origins: string[] = [];
  for (const detail of admission.details) {
    if (detail.source !== "rule" || detail.decision === "forbidden") continue;
    const carrying = detail.matchedRules.filter((m) => m.decision === detail.decision && m.sandbox !== undefined);
    if (carrying.length === 0) continue;
    if (sandbox !== "read-only") sandbox = carrying.some((m) => m.sandbox === "read-only") ? "read-only" : "workspace-write";
    const here = carrying.map((m) => `the rule at ${m.source.file}:${m.source.line}:${m.source.column}`);
    for (const o of here) if (!origins.includes(o)) origins.push(o);
    const shared = (carrying[0]!.network ?? []).filter((h) => carrying.every((m) => (m.network ?? []).includes(h)));
    for (const host of shared) if (!hosts.has(host)) hosts.set(host, { host, origin: here.join(" and ") });
  }
  return sandbox === undefined ? undefined : { sandbox, hosts: [...hosts.values()], origins };
}
