import { afterAll, describe, expect, it } from "vitest";
import { makeScratch, runBin } from "../../helpers.js";

const s = makeScratch();
afterAll(() => s.cleanup());
const run = (...args: string[]) => runBin(args, { env: s.env, cwd: s.project });
const rules = s.write("rules/team.rules", 'prefix_rule(pattern=["cat"], decision="allow")\n');
const withNetwork = s.write(
  "rules/net.rules",
  'prefix_rule(pattern=["cat"], decision="allow")\nnetwork_rule(host="example.com", protocol="https", decision="allow")\n',
);

describe("shellgate check names how an unmatched segment is judged (built bin)", () => {
  it("no rule: runs in the sandbox; known-safe and dangerous by name", async () => {
    const r = await run("check", "--rules", rules, "cat README && cargo build && ls && rm -rf /");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`  1. cat README\n     rule ${rules}:1: prefix cat → allow\n`);
    expect(r.stdout).toContain("  2. cargo build\n     no rule; runs in the sandbox\n");
    expect(r.stdout).toContain("  3. ls\n     no rule; known-safe command (heuristic) → runs in the sandbox\n");
    expect(r.stdout).toContain("  4. rm -rf /\n     no rule; dangerous command (heuristic) → asks first\n");
    expect(r.stdout).not.toContain("heuristic: unknown");
  });

  it("a command that runs without asking says \"always allow\" applies only if a person is asked later", async () => {
    const r = await run("check", "--rules", rules, "cargo build");
    expect(r.stdout).toContain("requirement: skip");
    expect(r.stdout).toContain('  if a person is asked later (a retry or an escalation), "always allow" would add: prefix_rule(pattern=["cargo", "build"]');
  });

  it("says when an unmatched command runs without a sandbox, or asks under untrusted", async () => {
    const full = await run("check", "--sandbox", "danger-full-access", "cargo", "build");
    expect(full.stdout).toContain("  1. cargo build\n     no rule; runs WITHOUT a sandbox (sandbox mode danger-full-access)\n");
    const untrusted = await run("check", "--approval-policy", "untrusted", "cargo", "build");
    expect(untrusted.stdout).toContain("  1. cargo build\n     no rule; not known to be safe → asks first (approval policy untrusted)\n");
  });
});

describe("network rules: check and doctor say whether the proxy enforces them", () => {
  it("check, text and JSON", async () => {
    const text = await run("check", "--rules", withNetwork, "cargo", "build");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`network:   by domain through shellgate's proxy (1 network_rule at ${withNetwork}:2); \`shellgate check --host HOST\` tells how a host is treated\n`);
    const json = await run("check", "--rules", withNetwork, "--json", "cargo", "build");
    expect(JSON.parse(json.stdout).networkRules).toEqual({
      effective: true,
      rules: [{ host: "example.com", protocol: "https", decision: "allow", file: withNetwork, line: 2 }],
    });
    // With the whole network on, the proxy is not in the way, and the report says so.
    const on = await run("check", "--rules", withNetwork, "--network", "on", "--json", "cargo", "build");
    expect(JSON.parse(on.stdout).networkRules.effective).toBe(false);
    expect((await run("check", "--rules", withNetwork, "--network", "on", "cargo", "build")).stdout).toContain("is not applied");
    const none = await run("check", "--rules", rules, "--json", "cargo", "build");
    expect(JSON.parse(none.stdout)).not.toHaveProperty("networkRules");
    expect((await run("check", "--rules", rules, "cargo", "build")).stdout).not.toContain("network");
  });

  it("doctor, text and JSON", async () => {
    const text = await run("doctor", "--rules", withNetwork, "--allow-domain", "registry.example.org");
    expect(text.stdout).toContain("network by domain\n  enforced by shellgate's proxy for sandboxed commands (nothing else is reachable)\n");
    expect(text.stdout).toContain("  allow registry.example.org  (--allow-domain)\n");
    expect(text.stdout).toContain(`  allow example.com  (network_rule https at ${withNetwork}:2)\n`);
    const json = await run("doctor", "--json", "--rules", withNetwork);
    const report = JSON.parse(json.stdout);
    expect(report.networkRules).toEqual({
      effective: true,
      rules: [{ host: "example.com", protocol: "https", decision: "allow", file: withNetwork, line: 2 }],
    });
    expect(report.domains).toEqual({ allow: [], deny: [] });
    expect((await run("doctor", "--rules", rules)).stdout).toContain("(no network_rule, --allow-domain or [network] entry");
  });
});

