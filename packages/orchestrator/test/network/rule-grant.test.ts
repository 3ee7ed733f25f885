import { describe, expect, it } from "vitest";
import { commandRuleGrant, type PolicyRuleMatch, type SegmentDetail } from "../support/internals.js";

const match = (line: number, decision: PolicyRuleMatch["decision"], extra: Partial<PolicyRuleMatch> = {}): PolicyRuleMatch => ({
  kind: "prefix", matchedPrefix: ["npm"], decision, source: { file: "/r.rules", line, column: 1 }, ...extra,
});
const seg = (decision: PolicyRuleMatch["decision"], matchedRules: PolicyRuleMatch[]): SegmentDetail => ({ segment: ["npm", "ci"], source: "rule", decision, matchedRules });

describe("commandRuleGrant", () => {
  it("is undefined when no deciding rule carries a sandbox (Codex semantics stay)", () => {
    expect(commandRuleGrant({ details: [seg("allow", [match(1, "allow")])] })).toBeUndefined();
    expect(commandRuleGrant({ details: [{ segment: ["ls"], source: "heuristic", decision: "allow", matchedRules: [], verdict: "known-safe" }] })).toBeUndefined();
  });

  it("within a segment: rules of its decision count, the strictest sandbox wins, only shared hosts are granted", () => {
    const grant = commandRuleGrant({
      details: [
        seg("allow", [
          match(1, "allow", { sandbox: "workspace-write", network: ["a.test", "b.test"] }),
          match(2, "allow", { sandbox: "read-only", network: ["b.test"] }),
          match(3, "prompt", { sandbox: "workspace-write", network: ["c.test"] }),
        ]),
      ],
    });
    expect(grant).toEqual({ sandbox: "read-only", hosts: [{ host: "b.test", origin: "the rule at /r.rules:1:1 and the rule at /r.rules:2:1" }], origins: ["the rule at /r.rules:1:1", "the rule at /r.rules:2:1"] });
  });

  it("across a script's segments the hosts add up and a forbidden segment contributes nothing", () => {
    const grant = commandRuleGrant({
      details: [
        seg("allow", [match(1, "allow", { sandbox: "workspace-write", network: ["registry.example.org"] })]),
        seg("allow", [match(2, "allow", { sandbox: "workspace-write", network: ["pypi.example.org"] })]),
        seg("forbidden", [match(3, "forbidden")]),
      ],
    });
    expect(grant?.hosts.map((h) => h.host)).toEqual(["registry.example.org", "pypi.example.org"]);
    expect(grant?.sandbox).toBe("workspace-write");
  });
});
