import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  evaluationToCodexJson, formatAllowPrefixRule, InvalidArgumentError, InvalidNetworkHostError, loadPolicy, parsePolicy, Policy, PolicyDiagnosticError, PolicyError, ruleSandboxGrant,
} from "../src/index.js";
import type { Evaluation } from "../src/index.js";
import { diag, policy } from "./helpers.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "execpolicy-sandbox-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("prefix_rule sandbox= and network= (shellgate extension)", () => {
  it("records the sandbox and the normalised, de-duplicated hosts on every rule of the call", () => {
    const p = policy('prefix_rule(pattern=[["npm", "pnpm"], "ci"], sandbox="workspace-write", network=["Registry.example.org.", "registry.example.org:443", "[::1]"])\nprefix_rule(pattern=["ls"], sandbox="read-only")');
    expect(p.rules.map((r) => [r.program, r.sandbox, r.network])).toEqual([
      ["npm", "workspace-write", ["registry.example.org", "::1"]],
      ["pnpm", "workspace-write", ["registry.example.org", "::1"]],
      ["ls", "read-only", undefined],
    ]);
    // Absent keys stay absent (not `undefined`-valued), so plain rules are exactly what they were.
    expect(Object.keys(policy('prefix_rule(pattern=["a"], justification="j")').rules[0]!).sort()).toEqual(["decision", "index", "justification", "program", "rest", "source"]);
    expect(policy('prefix_rule(pattern=["a"], decision="prompt", sandbox="read-only", network=[])').rules[0]).toMatchObject({ decision: "prompt", sandbox: "read-only", network: [] });
  });

  it.each([
    ['prefix_rule(pattern=["a"], sandbox="x")', "INVALID_RULE", 'invalid rule: prefix_rule sandbox must be "read-only" or "workspace-write" (got "x")', 28],
    ['prefix_rule(pattern=["a"], sandbox=1)', "INVALID_RULE", 'prefix_rule sandbox must be "read-only" or "workspace-write" (got 1)', 28],
    ['prefix_rule(pattern=["a"], sandbox=None)', "INVALID_RULE", "(got None)", 28],
    ['prefix_rule(pattern=["a"], network=["h.com"])', "INVALID_RULE", 'invalid rule: prefix_rule network requires sandbox= ("read-only" or "workspace-write")', 28],
    ['prefix_rule(pattern=["a"], sandbox="read-only", network="h.com")', "INVALID_RULE", "invalid rule: prefix_rule network must be a list of host strings (got string)", 49],
    ['prefix_rule(pattern=["a"], sandbox="read-only", network=[1])', "INVALID_RULE", "invalid rule: prefix_rule network hosts must be strings (got int)", 49],
    ['prefix_rule(pattern=["a"], sandbox="read-only", network=["*.h.com"])', "INVALID_NETWORK_RULE", "invalid rule: prefix_rule network host must be a specific host; wildcards are not allowed", 49],
    ['prefix_rule(pattern=["a"], sandbox="read-only", network=["https://h.com"])', "INVALID_NETWORK_RULE", "prefix_rule network host must be a hostname or IP literal (without scheme or path) (got https://h.com)", 49],
    ['prefix_rule(pattern=["a"], sandbox="read-only", network=[" "])', "INVALID_NETWORK_RULE", "invalid rule: prefix_rule network host cannot be empty", 49],
    ['prefix_rule(pattern=["a"], decision="forbidden", sandbox="read-only")', "INVALID_RULE", 'invalid rule: prefix_rule sandbox cannot be used with decision "forbidden" (a forbidden command never runs)', 50],
    ['prefix_rule(pattern=["a"], decision="forbidden", network=["h.com"])', "INVALID_RULE", 'invalid rule: prefix_rule network cannot be used with decision "forbidden"', 50],
    ['prefix_rule(["a"], "allow", [], [], "j", "read-only")', "ARGUMENT_ERROR", "prefix_rule() accepts at most 5 positional argument(s), got 6", 1],
    ['prefix_rule(pattern=["a"], sandbx="read-only")', "ARGUMENT_ERROR", "did you mean `sandbox`?", 28],
  ])("%s → %s at its argument", (source, code, text, column) => {
    for (const fastPath of [true, false]) {
      let e: unknown;
      try {
        parsePolicy([{ path: "t.rules", source }], { fastPath });
      } catch (err) {
        e = err;
      }
      expect(e).toBeInstanceOf(PolicyDiagnosticError);
      const d = e as PolicyDiagnosticError;
      expect([d.code, d.file, d.line, d.column]).toEqual([code, "t.rules", 1, column]);
      expect(d.detail).toContain(text);
    }
  });

  it("reports Codex's own errors first (a bad decision beats a bad sandbox)", () => {
    expect(diag('prefix_rule(pattern=["a"], decision="maybe", sandbox="x")').code).toBe("INVALID_DECISION");
    expect(diag('prefix_rule(pattern=[], sandbox="x")').code).toBe("INVALID_PATTERN");
  });

  it("carries sandbox and network through the compiled cache", async () => {
    const cacheDir = join(dir, "cache");
    const f = join(dir, "s.rules");
    await writeFile(f, 'prefix_rule(pattern=["npm", "ci"], sandbox="workspace-write", network=["registry.example.org"])\nprefix_rule(pattern=["ls"], sandbox="read-only")\nprefix_rule(pattern=["git"])\n');
    const first = await loadPolicy([f], { cacheDir });
    const [entry] = await readdir(cacheDir);
    expect(JSON.parse(await readFile(join(cacheDir, entry!), "utf8")).contents.rules[0]).toMatchObject({ sandbox: "workspace-write", network: ["registry.example.org"] });
    const second = await loadPolicy([f], { cacheDir });
    expect(second.rules).toEqual(first.rules);
    expect(second.rules.map((r) => Object.keys(r).sort().join())).toEqual(first.rules.map((r) => Object.keys(r).sort().join()));
    // An entry with a sandbox value we never write is not trusted.
    const raw = JSON.parse(await readFile(join(cacheDir, entry!), "utf8"));
    raw.contents.rules[0].sandbox = "danger-full-access";
    await writeFile(join(cacheDir, entry!), JSON.stringify(raw));
    expect((await loadPolicy([f], { cacheDir })).rules[0]!.sandbox).toBe("workspace-write");
  });

  it("puts sandbox and network on matches and, after Codex's keys, in the JSON", () => {
    const p = policy('prefix_rule(pattern=["npm"], justification="j", sandbox="workspace-write", network=["registry.example.org"])\nprefix_rule(pattern=["npm", "ci"], decision="prompt")');
    const ev = p.evaluate(["npm", "ci"]);
    expect(ev.matchedRules[0]).toMatchObject({ sandbox: "workspace-write", network: ["registry.example.org"] });
    expect(ev.matchedRules[1]).not.toHaveProperty("sandbox");
    expect(JSON.stringify(evaluationToCodexJson(ev))).toBe(
      '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["npm"],"decision":"allow","justification":"j","sandbox":"workspace-write","network":["registry.example.org"]}},{"prefixRuleMatch":{"matchedPrefix":["npm","ci"],"decision":"prompt"}}],"decision":"prompt"}',
    );
    expect(JSON.stringify(evaluationToCodexJson(policy('prefix_rule(pattern=["ls"], sandbox="read-only")').evaluate(["ls"])))).toBe(
      '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["ls"],"decision":"allow","sandbox":"read-only"}}],"decision":"allow"}',
    );
  });

  it("withPrefixRule can add a sandboxed rule in memory", () => {
    const p = Policy.empty().withPrefixRule(["npm", "ci"], "allow", undefined, { sandbox: "workspace-write", network: ["Registry.example.org", "registry.example.org"] });
    expect(ruleSandboxGrant(p.evaluate(["npm", "ci"]))).toMatchObject({ sandbox: "workspace-write", network: ["registry.example.org"] });
    expect(Policy.empty().withPrefixRule(["a"]).rules[0]).not.toHaveProperty("sandbox");
    expect(() => Policy.empty().withPrefixRule(["a"], "forbidden", undefined, { sandbox: "read-only" })).toThrow(InvalidArgumentError);
    expect(() => Policy.empty().withPrefixRule(["a"], "allow", undefined, { sandbox: "read-only", network: ["*.x"] })).toThrow(InvalidNetworkHostError);
  });

  it("a prefix rule's bad network host is worded as in a rules file: prefix_rule network host, not network_rule host", () => {
    const inFile = (() => {
      try {
        parsePolicy([{ path: "p.rules", source: 'prefix_rule(pattern=["a"], sandbox="read-only", network=["*.x"])' }]);
      } catch (e) {
        return e as Error;
      }
    })();
    const inMemory = (() => {
      try {
        Policy.empty().withPrefixRule(["a"], "allow", undefined, { sandbox: "read-only", network: ["*.x"] });
      } catch (e) {
        return e as Error;
      }
    })();
    const formatted = (() => {
      try {
        formatAllowPrefixRule(["a"], { sandbox: "read-only", network: ["*.x"] });
      } catch (e) {
        return e as Error;
      }
    })();
    const why = "invalid rule: prefix_rule network host must be a specific host; wildcards are not allowed";
    expect(inFile?.message).toContain(why);
    expect(inMemory?.message).toBe(why);
    expect(formatted?.message).toBe(why);
  });
});

describe("ruleSandboxGrant", () => {
  const grantOf = (source: string, argv: string[]) => ruleSandboxGrant(policy(source).evaluate(argv));

  it("is undefined without a match, for forbidden, and when no rule of the effective decision has a sandbox", () => {
    expect(grantOf('prefix_rule(pattern=["a"], sandbox="read-only")', ["b"])).toBeUndefined();
    expect(grantOf('prefix_rule(pattern=["a"], sandbox="read-only")\nprefix_rule(pattern=["a"], decision="forbidden")', ["a"])).toBeUndefined();
    expect(grantOf('prefix_rule(pattern=["a"])', ["a"])).toBeUndefined();
    // The sandboxed rule was overridden by a stricter, unsandboxed prompt rule: its grant does not apply.
    expect(grantOf('prefix_rule(pattern=["a"], sandbox="read-only")\nprefix_rule(pattern=["a", "x"], decision="prompt")', ["a", "x"])).toBeUndefined();
  });

  it("applies when any rule of the effective decision has a sandbox: strictest mode, intersected hosts", () => {
    expect(grantOf('prefix_rule(pattern=["npm"], sandbox="workspace-write", network=["a.com", "b.com"])', ["npm", "ci"])).toEqual({
      sandbox: "workspace-write", network: ["a.com", "b.com"], source: { file: "t.rules", line: 1, column: 1 }, sources: [{ file: "t.rules", line: 1, column: 1 }],
    });
    // An unsandboxed allow rule next to a sandboxed one does not lift the sandbox.
    expect(grantOf('prefix_rule(pattern=["npm"])\nprefix_rule(pattern=["npm", "ci"], sandbox="workspace-write", network=["a.com"])', ["npm", "ci"])).toMatchObject({
      sandbox: "workspace-write", network: ["a.com"], source: { line: 2 }, sources: [{ line: 2 }],
    });
    const g = grantOf([
      'prefix_rule(pattern=["npm"], sandbox="workspace-write", network=["b.com", "a.com", "c.com"])',
      'prefix_rule(pattern=["npm", "ci"], sandbox="read-only", network=["a.com", "b.com"])',
      'prefix_rule(pattern=["npm", "ci", "-q"])',
    ].join("\n"), ["npm", "ci", "-q"]);
    expect(g).toMatchObject({ sandbox: "read-only", network: ["b.com", "a.com"], source: { line: 1 } });
    expect(g!.sources.map((s) => s.line)).toEqual([1, 2]);
    // A sandboxed rule without network= grants no host, which empties the intersection.
    expect(grantOf('prefix_rule(pattern=["a"], sandbox="workspace-write", network=["x.com"])\nprefix_rule(pattern=["a"], sandbox="workspace-write")', ["a"])).toMatchObject({ network: [] });
  });

  it("applies to prompt decisions and spans the segments of evaluateAll", () => {
    const p = policy('prefix_rule(pattern=["curl"], decision="prompt", sandbox="read-only", network=["x.com"])\nprefix_rule(pattern=["ls"], sandbox="workspace-write")');
    expect(ruleSandboxGrant(p.evaluate(["curl", "x.com"]))).toMatchObject({ sandbox: "read-only", network: ["x.com"] });
    expect(ruleSandboxGrant(p.evaluateAll([["ls"], ["ls", "-l"]]))).toMatchObject({ sandbox: "workspace-write", network: [], sources: [{ line: 2 }, { line: 2 }] });
    // curl (prompt) is the effective decision, so only its rule contributes.
    expect(ruleSandboxGrant(p.evaluateAll([["ls"], ["curl"]]))).toMatchObject({ sandbox: "read-only", network: ["x.com"], sources: [{ line: 1 }] });
    const ev: Evaluation = { matchedRules: [] };
    expect(ruleSandboxGrant(ev)).toBeUndefined();
  });
});

describe("Policy#evaluateHost", () => {
  const p = policy([
    'network_rule(host="a.com", protocol="https", decision="allow")',
    'network_rule(host="A.com:8080", protocol="http", decision="deny", justification="no")',
    'network_rule(host="b.com", protocol="socks5_tcp", decision="forbidden")',
    'network_rule(host="b.com", protocol="https", decision="allow")',
    'network_rule(host="c.com", protocol="https", decision="allow")',
    'network_rule(host="c.com", protocol="https", decision="prompt")',
  ].join("\n"));

  it("normalises the host and lets the last rule naming it decide, whatever its protocol", () => {
    expect(p.evaluateHost(" A.COM. ")).toEqual({ host: "a.com", decision: "forbidden", rule: p.networkRules[1] });
    expect(p.evaluateHost("b.com:443")).toMatchObject({ host: "b.com", decision: "allow", rule: { protocol: "https", source: { line: 4 } } });
    expect(p.evaluateHost("c.com")).toMatchObject({ decision: "prompt", rule: { source: { line: 6 } } });
    expect(p.evaluateHost("d.com")).toEqual({ host: "d.com" });
    expect(Policy.empty().evaluateHost("[::1]:80")).toEqual({ host: "::1" });
  });

  it("agrees with the compiled domain lists for allow/forbidden", () => {
    const { allowed, denied } = p.networkDomains();
    for (const h of allowed) expect(p.evaluateHost(h).decision).toBe(h === "c.com" ? "prompt" : "allow");
    for (const h of denied) expect(p.evaluateHost(h).decision).toBe("forbidden");
  });

  it("refuses an invalid host with network_rule's code and message, without a file location", () => {
    for (const [host, text] of [["*.a.com", "wildcards are not allowed"], ["https://a.com", "without scheme or path"], ["", "cannot be empty"], ["a b", "cannot contain whitespace"]] as const) {
      let e: unknown;
      try {
        p.evaluateHost(host);
      } catch (err) {
        e = err;
      }
      expect(e).toBeInstanceOf(InvalidNetworkHostError);
      expect(e).toBeInstanceOf(PolicyError);
      expect(e).not.toBeInstanceOf(PolicyDiagnosticError);
      expect(e).toMatchObject({ code: "INVALID_NETWORK_RULE", host });
      expect((e as Error).message).toMatch(new RegExp(`^invalid rule: network_rule host .*${text.replace(/[()]/g, "\\$&")}`));
    }
    expect(() => p.evaluateHost(1 as unknown as string)).toThrow("invalid rule: network_rule host must be a string (got number)");
  });
});

/** Codex's JSON as this package wrote it before the extension: the reference for byte-identity. */
function codexReference(ev: Evaluation): string {
  return JSON.stringify({
    matchedRules: ev.matchedRules.map((m) => ({
      prefixRuleMatch: {
        matchedPrefix: m.matchedPrefix, decision: m.decision,
        ...(m.resolvedProgram !== undefined ? { resolvedProgram: m.resolvedProgram } : {}),
        ...(m.justification !== undefined ? { justification: m.justification } : {}),
      },
    })),
    ...(ev.decision !== undefined ? { decision: ev.decision } : {}),
  });
}

describe("the differential corpus (Codex rules files) through both load paths", () => {
  it("gives Codex's exact JSON, unchanged by the extension, parsed directly and from the compiled cache", async () => {
    const corpusUrl = new URL("../scripts/differential-corpus.mjs", import.meta.url).href;
    const { cases } = (await import(corpusUrl)) as { cases: Array<{ name: string; rules: string[]; commands: string[][]; resolve?: boolean; intentional?: string }> };
    const cacheDir = join(dir, "corpus-cache");
    let checked = 0;
    for (const [i, c] of cases.entries()) {
      if (c.intentional) continue;
      const files = await Promise.all(c.rules.map(async (text, j) => {
        const f = join(dir, `corpus-${i}-${j}.rules`);
        await writeFile(f, text);
        return f;
      }));
      const outcome = async (load: () => Promise<Policy> | Policy) => {
        try {
          const pol = await load();
          return c.commands.map((cmd) => {
            const ev = pol.evaluate(cmd, { resolveHostExecutables: !!c.resolve, cwd: "/" });
            const json = JSON.stringify(evaluationToCodexJson(ev));
            expect(json, c.name).toBe(codexReference(ev));
            expect(json, c.name).not.toMatch(/"(sandbox|network)"/);
            return json;
          });
        } catch (e) {
          if (e instanceof PolicyError) return `${e.code}: ${e.message}`;
          throw e;
        }
      };
      const direct = await outcome(() => loadPolicy(files));
      const miss = await outcome(() => loadPolicy(files, { cacheDir }));
      const hit = await outcome(() => loadPolicy(files, { cacheDir }));
      expect(miss, c.name).toEqual(direct);
      expect(hit, c.name).toEqual(direct);
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  }, 60_000);
});

