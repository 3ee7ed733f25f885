// `shellgate check --host` end to end through the built bin: how the proxy would treat a host, with the
// rule, grant or default that decides it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScratch, runBin, type Sandbox } from "../../helpers.js";

let s: Sandbox;
let rules: string;
beforeAll(() => {
  s = makeScratch();
  rules = s.write(
    "rules/net.rules",
    [
      'network_rule(host="evil.test", protocol="https", decision="deny")',
      'network_rule(host="ask.test", protocol="https", decision="prompt", justification="a mirror")',
      'prefix_rule(pattern=["npm", "ci"], decision="allow", sandbox="workspace-write", network=["registry.npmjs.org"])',
      "",
    ].join("\n"),
  );
});
afterAll(() => s.cleanup());

const check = (...args: string[]) => runBin(["check", "--no-default-rules", "--rules", rules, ...args], { env: s.env, cwd: s.project });

describe("shellgate check --host (built bin)", () => {
  it("names the rule, the grant or the default that decides, one JSON object per host", async () => {
    const r = await check("--json", "--allow-domain", "GitHub.com", "--allow-domain", "evil.test", "--host", "github.com", "--host", "evil.test", "--host", "ask.test", "--host", "other.test");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      { host: "github.com", decision: "allow", source: { kind: "grant", origin: "--allow-domain" }, explicit: true, effective: true, reason: "allowed by --allow-domain" },
      { host: "evil.test", decision: "deny", source: { kind: "rule", file: rules, line: 1, column: 1, protocol: "https" }, explicit: false, effective: true, reason: `forbidden by network_rule at ${rules}:1:1` },
      { host: "ask.test", decision: "prompt", source: { kind: "rule", file: rules, line: 2, column: 1, protocol: "https" }, explicit: false, effective: true, reason: `needs approval by network_rule at ${rules}:2:1 (a mirror)` },
      { host: "other.test", decision: "deny", source: { kind: "default" }, explicit: false, effective: true, reason: "no rule or grant allows this host" },
    ]);
  });

  it("with a command, its own rule's hosts count, and the explanation says it runs in the rule's sandbox", async () => {
    const r = await check("--host", "registry.npmjs.org", "--", "npm", "ci");
    expect(r.stdout).toBe(`host:      registry.npmjs.org → allow — allowed for this command by the rule at ${rules}:3:1\n`);
    const plain = await check("--", "npm", "ci");
    expect(plain.stdout).toContain(`requirement: skip — runs without asking, INSIDE its rule's workspace-write sandbox, reaching registry.npmjs.org through the proxy (the rule at ${rules}:3:1)`);
    expect(plain.stdout).toContain("network:   by domain through shellgate's proxy");
  });

  it("says when the verdict would not be applied (the network is on), and refuses a host it cannot match", async () => {
    const on = await check("--network", "on", "--host", "other.test");
    expect(on.stdout).toContain("commands are not routed through the proxy");
    const bad = await check("--host", "https://example.com/x");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--host "https://example.com/x": a host must be a hostname or IP literal');
  });
});
