import { describe, expect, it } from "vitest";
import { describeVerdictSource, NetworkHostPolicy, normalizeGrants, NetworkGrantsSchema, type HostRule } from "../support/internals.js";

const at = (line: number) => ({ file: "/rules/net.rules", line, column: 1 });
const rule = (host: string, decision: HostRule["decision"], line: number): HostRule => ({ host, protocol: "https", decision, source: at(line) });
const grants = (allow: string[] = [], deny: string[] = []) => normalizeGrants(NetworkGrantsSchema.parse({ allow, deny }), "--allow-domain");

describe("NetworkHostPolicy.decide", () => {
  it("forbidden rules beat every grant, deny lists beat allow rules, and the default is deny", () => {
    const rules = [rule("evil.test", "forbidden", 1), rule("both.test", "allow", 2), rule("ask.test", "prompt", 3)];
    const policy = new NetworkHostPolicy(() => ({ networkRules: rules }), grants(["evil.test", "granted.test"], ["both.test"]));
    expect(policy.decide("evil.test")).toMatchObject({ decision: "deny", source: { kind: "rule" } });
    expect(policy.decide("both.test")).toMatchObject({ decision: "deny", source: { kind: "deny-list", origin: "--allow-domain" } });
    expect(policy.decide("granted.test")).toMatchObject({ decision: "allow", source: { kind: "grant" }, explicit: true });
    expect(policy.decide("ask.test")).toMatchObject({ decision: "prompt", explicit: false });
    expect(policy.decide("other.test")).toEqual({ host: "other.test", decision: "deny", source: { kind: "default" }, explicit: false });
  });

  it("the last network_rule naming a host decides among the rules (Codex's compiled lists), whatever its protocol", () => {
    const rules = [rule("flip.test", "forbidden", 1), { ...rule("flip.test", "allow", 2), protocol: "socks5_tcp" }, rule("flop.test", "allow", 3), rule("flop.test", "forbidden", 4)];
    const policy = new NetworkHostPolicy(() => ({ networkRules: rules }), grants());
    expect(policy.decide("flip.test")).toMatchObject({ decision: "allow", source: { kind: "rule", rule: { source: at(2) } } });
    expect(policy.decide("flop.test")).toMatchObject({ decision: "deny", source: { kind: "rule", rule: { source: at(4) } } });
  });

  it("a command's own rule hosts allow only for that command, and never over a forbidden rule", () => {
    const policy = new NetworkHostPolicy(() => ({ networkRules: [rule("evil.test", "forbidden", 1)] }), grants());
    const mine = [{ host: "registry.test", origin: "the rule at f:1:1" }, { host: "evil.test", origin: "the rule at f:1:1" }];
    expect(policy.decide("registry.test", mine)).toMatchObject({ decision: "allow", source: { kind: "command-rule" }, explicit: true });
    expect(policy.decide("registry.test")).toMatchObject({ decision: "deny" });
    expect(policy.decide("evil.test", mine)).toMatchObject({ decision: "deny", source: { kind: "rule" } });
  });

  it("reads the rules on every decision, so an amended rules file counts at once", () => {
    let rules: HostRule[] = [];
    const policy = new NetworkHostPolicy(() => ({ networkRules: rules }), grants());
    expect(policy.decide("late.test").decision).toBe("deny");
    rules = [rule("late.test", "allow", 9)];
    expect(policy.decide("late.test").decision).toBe("allow");
  });

  it("is active only when something could let a host through", () => {
    expect(new NetworkHostPolicy(() => ({}), grants()).active).toBe(false);
    expect(new NetworkHostPolicy(() => ({ networkRules: [rule("a.test", "forbidden", 1)] }), grants()).active).toBe(false);
    // A host allowed and then forbidden again lets nothing through.
    expect(new NetworkHostPolicy(() => ({ networkRules: [rule("a.test", "allow", 1), rule("a.test", "forbidden", 2)] }), grants()).active).toBe(false);
    expect(new NetworkHostPolicy(() => ({ networkRules: [rule("a.test", "prompt", 1)] }), grants()).active).toBe(true);
    expect(new NetworkHostPolicy(() => ({}), grants(["a.test"])).active).toBe(true);
  });

  it("says where a verdict comes from in words", () => {
    expect(describeVerdictSource({ kind: "rule", rule: { ...rule("a.test", "forbidden", 3), justification: "exfil" } })).toBe("forbidden by network_rule at /rules/net.rules:3:1 (exfil)");
    expect(describeVerdictSource({ kind: "default" })).toBe("no rule or grant allows this host");
    expect(describeVerdictSource({ kind: "grant", origin: "--allow-domain" })).toBe("allowed by --allow-domain");
  });
});

describe("normalizeGrants", () => {
  it("normalises hosts as network_rule does and keeps their origin", () => {
    const g = normalizeGrants(NetworkGrantsSchema.parse({ allow: [" Registry.EXAMPLE.org. ", { host: "[::1]:8080", origin: "config" }] }), "flag");
    expect(g.allow).toEqual([{ host: "registry.example.org", origin: "flag" }, { host: "::1", origin: "config" }]);
  });

  it("names the entry of a host it cannot take", () => {
    for (const bad of ["*.git.example.com", "https://example.com", "exa mple.com"]) {
      let thrown: unknown;
      try {
        normalizeGrants(NetworkGrantsSchema.parse({ deny: ["ok.test", bad] }), "flag");
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ field: "deny.1" });
      expect((thrown as Error).message).not.toMatch(/^invalid rule/);
    }
  });
});
