import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicyCheckArgs, UsageError } from "../../../src/commands/policy-check/args.js";

const BIN = fileURLToPath(new URL("../../../bin/policy-check.js", import.meta.url));
const SHELLGATE = fileURLToPath(new URL("../../../bin/shellgate.js", import.meta.url));
const built = existsSync(BIN) && existsSync(fileURLToPath(new URL("../../../dist/commands/policy-check/index.js", import.meta.url)));
const notBuilt = built ? undefined : "the CLI is not built (npm run build -w @shellgate/cli)";

let dir: string;
let rules: string;
let extra: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "policy-check-host-"));
  rules = join(dir, "net.rules");
  await writeFile(rules, [
    'prefix_rule(pattern=["curl"], decision="prompt")',
    'network_rule(host="example.com", protocol="https", decision="allow")',
    'network_rule(host="tracker.example", protocol="http", decision="deny", justification="no tracking")',
    'network_rule(host="Tracker.Example:8080", protocol="https", decision="prompt")',
    'network_rule(host="[::1]", protocol="socks5_tcp", decision="forbidden")',
    "",
  ].join("\n"));
  extra = join(dir, "later.rules");
  await writeFile(extra, 'network_rule(host="example.com", protocol="socks5_udp", decision="forbidden")\n');
  env = { ...process.env, SHELLGATE_POLICY_CACHE_DIR: join(dir, "cache") };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function run(bin: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("parsePolicyCheckArgs --host", () => {
  it("takes --host HOST and --host=HOST in place of a command", () => {
    expect(parsePolicyCheckArgs(["-r", "a", "--host", "example.com", "--explain"])).toEqual({ mode: "host", rules: ["a"], pretty: false, explain: true, host: "example.com" });
    expect(parsePolicyCheckArgs(["--host=example.com", "--pretty", "-r", "a"])).toEqual({ mode: "host", rules: ["a"], pretty: true, explain: false, host: "example.com" });
    // After `--` (or the first command token) `--host` is part of the command, as any other word.
    expect(parsePolicyCheckArgs(["-r", "a", "--", "--host", "x"])).toMatchObject({ mode: "check", command: ["--host", "x"] });
  });

  it.each([
    [["-r", "a", "--host"]],
    [["-r", "a", "--host", "x", "curl"]],
    [["-r", "a", "--host", "x", "--stdin"]],
    [["-r", "a", "--host", "x", "--host", "y"]],
    [["-r", "a", "--host", "x", "--resolve-host-executables"]],
    [["--host", "x"]],
  ])("rejects %j as a usage error", (args) => {
    expect(() => parsePolicyCheckArgs(args)).toThrow(UsageError);
  });
});

skipUnless(notBuilt).describe("policy-check --host through the built bin", () => {
  it("prints the host, normalised, with the last network_rule naming it", async () => {
    const r = await run(BIN, ["--rules", rules, "--host", "Example.COM."]);
    expect(r).toEqual({ code: 0, stderr: "", stdout: `{"host":"example.com","decision":"allow","rule":{"file":${JSON.stringify(rules)},"line":2,"column":1,"protocol":"https"}}\n` });
    // The last rule decides whatever its protocol; its justification is carried when it has one.
    expect((await run(BIN, ["--rules", rules, "--host=tracker.example"])).stdout).toBe(
      `{"host":"tracker.example","decision":"prompt","rule":{"file":${JSON.stringify(rules)},"line":4,"column":1,"protocol":"https"}}\n`,
    );
    expect(JSON.parse((await run(BIN, ["--rules", rules, "--host", "[::1]:443"])).stdout)).toMatchObject({ host: "::1", decision: "forbidden", rule: { line: 5, protocol: "socks5_tcp" } });
    // Later files come later: the rule in the second file wins.
    expect(JSON.parse((await run(BIN, ["--rules", rules, "--rules", extra, "--host", "example.com"])).stdout)).toEqual({
      host: "example.com", decision: "forbidden", rule: { file: extra, line: 1, column: 1, protocol: "socks5_udp" },
    });
  });

  it("prints only the host when no network_rule names it (like an unmatched command), pretty when asked", async () => {
    expect(await run(BIN, ["--rules", rules, "--host", "other.org"])).toEqual({ code: 0, stderr: "", stdout: '{"host":"other.org"}\n' });
    expect((await run(BIN, ["--rules", rules, "--pretty", "--host", "example.com"])).stdout).toBe(
      `${JSON.stringify({ host: "example.com", decision: "allow", rule: { file: rules, line: 2, column: 1, protocol: "https" } }, null, 2)}\n`,
    );
  });

  it("--explain names the deciding rule's file:line:col and the ones it overrides", async () => {
    const r = await run(BIN, ["--rules", rules, "--explain", "--host", "TRACKER.example"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe([
      'host: tracker.example (normalised from "TRACKER.example")',
      "decision: prompt — the last of 2 network_rules naming this host (the last one decides, whatever its protocol)",
      `  1. ${rules}:3:1  forbidden  protocol: http`,
      "       justification: no tracking",
      `* 2. ${rules}:4:1  prompt  protocol: https`,
      "addresses: a run may reach once approved, any unicast address it resolves to but loopback and link-local; unspecified, multicast and broadcast never (`shellgate check --host tracker.example` resolves it and tells what a run would do)",
      "note: shellgate's network proxy enforces network rules for `shellgate exec` and `shellgate mcp` sessions; policy-check only reports them",
      "",
    ].join("\n"));
    const one = await run(BIN, ["--rules", rules, "--explain", "--host", "example.com"]);
    expect(one.stdout).toContain(`decision: allow — the only network_rule naming this host\n* 1. ${rules}:2:1  allow  protocol: https\n`);
    const none = await run(BIN, ["--rules", rules, "--explain", "--host", "other.org"]);
    expect(none.stdout).toContain('host: other.org\ndecision: none — no network_rule names this host (the JSON output omits "decision")\n');
  });

  it("--explain says which addresses of an allowed host a run may reach (a denied one: none)", async () => {
    const allow = await run(BIN, ["--rules", rules, "--explain", "--host", "example.com"]);
    expect(allow.stdout).toContain(
      "addresses: a run may reach any unicast address it resolves to, loopback and link-local included; unspecified, multicast and broadcast never (`shellgate check --host example.com` resolves it and tells what a run would do)\n",
    );
    const forbidden = await run(BIN, ["--rules", rules, "--explain", "--host", "::1"]);
    expect(forbidden.stdout).not.toContain("addresses");
  });

  it("a host network_rule would refuse is a usage error (exit 2) with network_rule's message; bad rules files still exit 1", async () => {
    const r = await run(BIN, ["--rules", rules, "--host", "*.example.com"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe('policy-check: error[INVALID_NETWORK_RULE]: --host "*.example.com": invalid rule: network_rule host must be a specific host; wildcards are not allowed\n');
    expect((await run(BIN, ["--rules", rules, "--host", "https://example.com/x"])).stderr).toContain("without scheme or path");
    const bad = join(dir, "bad.rules");
    await writeFile(bad, 'network_rule(host="a.com", protocol="ftp", decision="allow")\n');
    const invalid = await run(BIN, ["--rules", bad, "--host", "a.com"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain(` --> ${bad}:1:1`);
    expect((await run(BIN, ["--rules", rules, "--host", "x", "curl"])).code).toBe(2);
  });

  it("works under `shellgate policy check` too", async () => {
    const r = await run(SHELLGATE, ["policy", "check", "--rules", rules, "--host", "example.com"]);
    expect([r.code, JSON.parse(r.stdout).decision]).toEqual([0, "allow"]);
  });
});

skipUnless(notBuilt).describe("policy-check and prefix_rule(sandbox=, network=) (shellgate extension)", () => {
  it("adds sandbox and network to the match in the JSON and names the grant in --explain", async () => {
    const file = join(dir, "sandboxed.rules");
    await writeFile(file, 'prefix_rule(pattern=["npm", "ci"], sandbox="workspace-write", network=["Registry.example.org"])\nprefix_rule(pattern=["npm"])\n');
    const r = await run(BIN, ["--rules", file, "npm", "ci"]);
    expect(r).toEqual({
      code: 0, stderr: "",
      stdout: '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["npm","ci"],"decision":"allow","sandbox":"workspace-write","network":["registry.example.org"]}},{"prefixRuleMatch":{"matchedPrefix":["npm"],"decision":"allow"}}],"decision":"allow"}\n',
    });
    const explained = await run(BIN, ["--rules", file, "--explain", "npm", "ci"]);
    expect(explained.stdout).toContain("       sandbox: workspace-write; network: registry.example.org\n");
    expect(explained.stdout).toContain(`sandbox: workspace-write, network only to registry.example.org — from the rule(s) with that decision that carry sandbox= (${file}:1:1)`);
    expect((await run(BIN, ["--rules", file, "--explain", "npm", "i"])).stdout).not.toMatch(/^\s*sandbox:/m);
  });
});
