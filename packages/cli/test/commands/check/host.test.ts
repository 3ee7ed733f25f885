// `shellgate check --host` end to end through the built bin: how the proxy would treat a host, with the
// rule, grant or default that decides it, and what a run would do with the addresses the host
// resolves to. Every run is in a network namespace of its own with its own /etc/hosts: no lookup
// leaves the machine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScratch, netnsSkip, runBinInNetns, type Scratch } from "../../helpers.js";

const skip = netnsSkip();
let s: Scratch;
let rules: string;
beforeAll(() => {
  s = makeScratch();
  rules = s.write(
    "rules/net.rules",
    [
      'network_rule(host="evil.test", protocol="https", decision="deny")',
      'network_rule(host="ask.test", protocol="https", decision="prompt", justification="a mirror")',
      'prefix_rule(pattern=["npm", "ci"], decision="allow", sandbox="workspace-write", network=["registry.test"])',
      "",
    ].join("\n"),
  );
});
afterAll(() => s.cleanup());

const hosts = {
  "registry.test": "203.0.113.80",
  "fake-ip.test": "198.18.0.9",
  "lan.test": "10.20.30.40",
  "local.test": "127.0.0.1",
  "bcast.test": "255.255.255.255",
  "ask.test": "127.0.0.1",
  "evil.test": "203.0.113.81",
};
const check = (args: string[], env: Record<string, string> = {}) =>
  runBinInNetns(["check", "--no-default-rules", "--rules", rules, ...args], { env: { ...s.env, ...env }, cwd: s.project, hosts });
const lines = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);

describe.skipIf(skip !== undefined)(`shellgate check --host (built bin${skip ? `; skipped: ${skip}` : ""})`, () => {
  it("names the rule, the grant or the default that decides, one JSON object per host", async () => {
    const r = await check(["--json", "--allow-domain", "Registry.test", "--allow-domain", "evil.test", "--host", "registry.test", "--host", "evil.test", "--host", "ask.test", "--host", "other.test"]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      {
        host: "registry.test",
        decision: "allow",
        source: { kind: "grant", origin: "--allow-domain" },
        explicit: true,
        effective: true,
        reason: "allowed by --allow-domain",
        upstream: null,
        addresses: [{ address: "203.0.113.80", class: "reserved" }],
        run: "reach",
      },
      { host: "evil.test", decision: "deny", source: { kind: "rule", file: rules, line: 1, column: 1, protocol: "https" }, explicit: false, effective: true, reason: `forbidden by network_rule at ${rules}:1:1`, run: "refuse", refusedBy: "policy" },
      {
        host: "ask.test",
        decision: "prompt",
        source: { kind: "rule", file: rules, line: 2, column: 1, protocol: "https" },
        explicit: false,
        effective: true,
        reason: `needs approval by network_rule at ${rules}:2:1 (a mirror)`,
        upstream: null,
        addresses: [{ address: "127.0.0.1", class: "loopback", refusedBy: "needs-explicit-grant", reason: "ask.test resolves to 127.0.0.1, a loopback address, reachable only for a host granted by name in the configuration" }],
        run: "refuse",
        refusedBy: "needs-explicit-grant",
      },
      { host: "other.test", decision: "deny", source: { kind: "default" }, explicit: false, effective: true, reason: "no rule or grant allows this host", run: "refuse", refusedBy: "policy" },
    ]);
  });

  it("a host allowed by name reaches documentation, fake-IP, private and (granted) loopback addresses; broadcast never; a name that does not resolve is refused by the lookup", async () => {
    const names = ["registry.test", "fake-ip.test", "lan.test", "local.test", "bcast.test", "missing.test"];
    const r = await check(["--json", ...names.flatMap((h) => ["--allow-domain", h, "--host", h])]);
    expect(lines(r.stdout).map((l) => [l["host"], l["run"], l["refusedBy"], (l["addresses"] as Array<{ class: string }> | undefined)?.map((a) => a.class)])).toEqual([
      ["registry.test", "reach", undefined, ["reserved"]],
      ["fake-ip.test", "reach", undefined, ["reserved"]],
      ["lan.test", "reach", undefined, ["private"]],
      ["local.test", "reach", undefined, ["loopback"]],
      ["bcast.test", "refuse", "never-reachable", ["broadcast"]],
      ["missing.test", "refuse", "resolve-failed", undefined],
    ]);
  });

  it("the text says the addresses, what refuses one, the upstream, and what a run does", async () => {
    const r = await check(["--allow-domain", "registry.test", "--allow-domain", "bcast.test", "--host", "registry.test", "--host", "bcast.test", "--host", "evil.test"]);
    expect(r.stdout).toBe(
      [
        "host:      registry.test → allow — allowed by --allow-domain",
        "address:   203.0.113.80 (reserved)",
        "upstream:  none, a direct connection",
        "run:       connects",
        "host:      bcast.test → allow — allowed by --allow-domain",
        "address:   255.255.255.255 (broadcast) — refused: bcast.test resolves to 255.255.255.255, a broadcast address, never reachable through the proxy",
        "upstream:  none, a direct connection",
        "run:       refused (by its address)",
        `host:      evil.test → deny — forbidden by network_rule at ${rules}:1:1`,
        "run:       refused (by the policy)",
        "",
      ].join("\n"),
    );
  });

  it("names the upstream proxy a run would use (password hidden), and honours NO_PROXY", async () => {
    const env = { HTTPS_PROXY: "http://me:s3cret@proxy.example.com:3128", NO_PROXY: ".internal.test,lan.test" };
    const r = await check(["--json", "--allow-domain", "registry.test", "--allow-domain", "lan.test", "--allow-domain", "missing.test", "--host", "registry.test", "--host", "lan.test", "--host", "missing.test"], env);
    const [registry, lan, missing] = lines(r.stdout);
    expect(registry).toMatchObject({ upstream: { url: "http://me:***@proxy.example.com:3128", variable: "HTTPS_PROXY" }, run: "reach" });
    expect(lan).toMatchObject({ upstream: null, run: "reach" });
    // Behind the upstream a name this machine cannot resolve is left to it, as the proxy does.
    expect(missing).toMatchObject({ run: "reach", resolveError: expect.any(String) });
    expect(r.stdout).not.toContain("s3cret");
    const text = await check(["--allow-domain", "registry.test", "--host", "registry.test"], { https_proxy: "socks4://proxy.example.com" });
    expect(text.stdout).toContain("upstream:  unusable: https_proxy=socks4://proxy.example.com: the scheme socks4:// is not supported");
  });

  it("with a command, its own rule's hosts count, and the explanation says it runs in the rule's sandbox", async () => {
    const r = await check(["--host", "registry.test", "--", "npm", "ci"]);
    expect(r.stdout).toContain(`host:      registry.test → allow — allowed for this command by the rule at ${rules}:3:1\n`);
    expect(r.stdout).toContain("run:       connects");
    const plain = await check(["--", "npm", "ci"]);
    expect(plain.stdout).toContain(`requirement: skip — runs without asking, INSIDE its rule's workspace-write sandbox, reaching registry.test through the proxy (the rule at ${rules}:3:1)`);
    expect(plain.stdout).toContain("network:   by domain through shellgate's proxy");
  });

  it("says when the verdict would not be applied (the network is on), and refuses a host it cannot match", async () => {
    const on = await check(["--network", "on", "--host", "other.test"]);
    expect(on.stdout).toContain("commands are not routed through the proxy");
    const bad = await check(["--host", "https://example.com/x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--host "https://example.com/x": a host must be a hostname or IP literal');
  });
});
