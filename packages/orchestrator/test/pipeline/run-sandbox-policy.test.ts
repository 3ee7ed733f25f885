import { describe, expect, it } from "vitest";
import { firstAttemptPolicy, ruleGrantSandboxPolicy, UNSANDBOXED_POLICY } from "../support/internals.js";

describe("ruleGrantSandboxPolicy", () => {
  const grant = { sandbox: "workspace-write" as const, hosts: [], origins: [] };
  it("keeps the session's roots and denied reads, and never the network flag", () => {
    const session = { mode: "workspace-write" as const, writableRoots: ["/extra"], networkAccess: true, excludeTmpdirEnvVar: true, excludeSlashTmp: false, deniedReadPaths: ["/secret"] };
    expect(ruleGrantSandboxPolicy(grant, session)).toEqual({ ...session, networkAccess: false });
    expect(ruleGrantSandboxPolicy({ ...grant, sandbox: "read-only" }, session)).toEqual({ mode: "read-only", deniedReadPaths: ["/secret"] });
  });
  it("is not applied where the session confines nothing", () => {
    expect(ruleGrantSandboxPolicy(grant, { mode: "danger-full-access" })).toBeUndefined();
    expect(ruleGrantSandboxPolicy(grant, { mode: "external-sandbox", networkAccess: false })).toBeUndefined();
  });
});

describe("firstAttemptPolicy", () => {
  const session = { mode: "workspace-write" as const, writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false, deniedReadPaths: [] };
  const rule = { mode: "read-only" as const, deniedReadPaths: [] };
  it("is the session's without an override, the rule's under rule_sandbox, and none when a rule or an approval lifts the sandbox", () => {
    expect(firstAttemptPolicy("none", session, rule)).toBe(session);
    expect(firstAttemptPolicy("rule_sandbox", session, rule)).toBe(rule);
    expect(firstAttemptPolicy("bypass_by_rule", session, rule)).toEqual({ mode: "danger-full-access" });
    expect(firstAttemptPolicy("escalation_approved", session, undefined)).toBe(UNSANDBOXED_POLICY);
  });
});
