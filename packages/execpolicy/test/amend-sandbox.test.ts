import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appendAllowPrefixRule, appendNetworkRule, formatAllowPrefixRule, formatNetworkRule, InvalidArgumentError, InvalidNetworkHostError, loadPolicy, parsePolicy, ruleSandboxGrant,
} from "../src/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "execpolicy-amend-sandbox-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("appendAllowPrefixRule with a sandbox (allow, sandboxed)", () => {
  it("writes sandbox= and network= after Codex's arguments, JSON-escaped, hosts normalised", async () => {
    const file = join(dir, "sandboxed.rules");
    expect(await appendAllowPrefixRule(file, ["npm", "ci"], { sandbox: "workspace-write", network: ["Registry.example.org.", "registry.example.org:443", "[::1]"] })).toEqual({ added: true });
    expect(await appendAllowPrefixRule(file, ["ls"], { sandbox: "read-only" })).toEqual({ added: true });
    expect(await appendAllowPrefixRule(file, ["cat"], { sandbox: "read-only", network: [] })).toEqual({ added: true });
    // The same prefix and grant again is the identical line: not written twice.
    expect(await appendAllowPrefixRule(file, ["npm", "ci"], { sandbox: "workspace-write", network: ["registry.example.org", "::1"] })).toEqual({ added: false });
    // Without a grant the line is exactly what it always was (a different line from the sandboxed one).
    expect(await appendAllowPrefixRule(file, ["ls"], { timeoutMs: 5000 })).toEqual({ added: true });
    expect(await readFile(file, "utf8")).toBe([
      'prefix_rule(pattern=["npm", "ci"], decision="allow", sandbox="workspace-write", network=["registry.example.org", "::1"])',
      'prefix_rule(pattern=["ls"], decision="allow", sandbox="read-only")',
      'prefix_rule(pattern=["cat"], decision="allow", sandbox="read-only", network=[])',
      'prefix_rule(pattern=["ls"], decision="allow")',
      "",
    ].join("\n"));
    const p = await loadPolicy([file]);
    expect(ruleSandboxGrant(p.evaluate(["npm", "ci"]))).toMatchObject({ sandbox: "workspace-write", network: ["registry.example.org", "::1"] });
    // ls: an unsandboxed allow rule next to the sandboxed one does not lift the sandbox.
    expect(ruleSandboxGrant(p.evaluate(["ls"]))).toMatchObject({ sandbox: "read-only", network: [] });
  });

  it("escapes every token and reads back", () => {
    const line = formatAllowPrefixRule(["a\"b", "c\\d\n"], { sandbox: "read-only", network: ["h.com"] });
    expect(line).toBe('prefix_rule(pattern=["a\\"b", "c\\\\d\\n"], decision="allow", sandbox="read-only", network=["h.com"])');
    const r = parsePolicy([{ path: "a.rules", source: line }]).rules[0]!;
    expect([r.program, r.rest, r.sandbox, r.network]).toEqual(["a\"b", [["c\\d\n"]], "read-only", ["h.com"]]);
    expect(formatAllowPrefixRule(["x"], {})).toBe('prefix_rule(pattern=["x"], decision="allow")');
  });

  it("refuses a grant a rules file could not hold, before touching the file", async () => {
    const file = join(dir, "refused.rules");
    await expect(appendAllowPrefixRule(file, ["a"], { network: ["h.com"] })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(appendAllowPrefixRule(file, ["a"], { sandbox: "danger-full-access" as "read-only" })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", field: "sandbox" });
    await expect(appendAllowPrefixRule(file, ["a"], { sandbox: "read-only", network: [1 as unknown as string] })).rejects.toMatchObject({ field: "network[0]" });
    await expect(appendAllowPrefixRule(file, ["a"], { sandbox: "read-only", network: ["*.h.com"] })).rejects.toBeInstanceOf(InvalidNetworkHostError);
    await expect(readFile(file)).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("appendNetworkRule", () => {
  it("writes the spec's exact lines, forbidden as deny, without de-duplicating", async () => {
    const file = join(dir, "net.rules");
    await writeFile(file, "# net");
    expect(await appendNetworkRule(file, { host: " Example.COM:443 ", protocol: "https", decision: "allow" })).toEqual({ added: true });
    expect(await appendNetworkRule(file, { host: "example.com", protocol: "http-connect", decision: "forbidden", justification: "no \"tracking\"" })).toEqual({ added: true });
    expect(await appendNetworkRule(file, { host: "example.com", protocol: "https", decision: "allow" })).toEqual({ added: true });
    expect(await appendNetworkRule(file, { host: "[::1]", protocol: "socks5_udp", decision: "prompt" })).toEqual({ added: true });
    expect(await appendNetworkRule(file, { host: "x.org", protocol: "socks5_tcp", decision: "deny" })).toEqual({ added: true });
    expect(await readFile(file, "utf8")).toBe([
      "# net",
      'network_rule(host="example.com", protocol="https", decision="allow")',
      'network_rule(host="example.com", protocol="https", decision="deny", justification="no \\"tracking\\"")',
      'network_rule(host="example.com", protocol="https", decision="allow")',
      'network_rule(host="::1", protocol="socks5_udp", decision="prompt")',
      'network_rule(host="x.org", protocol="socks5_tcp", decision="deny")',
      "",
    ].join("\n"));
    const p = await loadPolicy([file]);
    expect(p.evaluateHost("example.com")).toMatchObject({ decision: "allow", rule: { source: { line: 4 } } });
    expect(p.evaluateHost("x.org").decision).toBe("forbidden");
    expect(p.networkRules[1]!.justification).toBe('no "tracking"');
  });

  it("refuses bad hosts, protocols, decisions and blank justifications", async () => {
    expect(() => formatNetworkRule({ host: "https://a.com", protocol: "https", decision: "allow" })).toThrow(InvalidNetworkHostError);
    expect(() => formatNetworkRule({ host: "a.com", protocol: "ftp" as "http", decision: "allow" })).toThrow(/protocol/);
    expect(() => formatNetworkRule({ host: "a.com", protocol: "http", decision: "ask" as "allow" })).toThrow(InvalidArgumentError);
    expect(() => formatNetworkRule({ host: "a.com", protocol: "http", decision: "allow", justification: "  " })).toThrow(/justification cannot be empty/);
    await expect(appendNetworkRule("", { host: "a.com", protocol: "http", decision: "allow" })).rejects.toMatchObject({ field: "file" });
  });
});
