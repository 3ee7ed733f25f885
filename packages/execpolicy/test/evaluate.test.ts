import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evaluationToCodexJson, parsePolicy, Policy, strictestDecision } from "../src/index.js";
import type { Decision } from "../src/index.js";
import { policy } from "./helpers.js";

describe("evaluate", () => {
  const p = policy([
    'prefix_rule(pattern=["git", ["status", "log"]])',
    'prefix_rule(pattern=["git"], decision="prompt", justification="vcs")',
    'prefix_rule(pattern=[["git", "hg"], "log"], decision="forbidden")',
    'prefix_rule(pattern=["git", "log"], decision="forbidden")',
  ].join("\n"));

  it("returns every match in definition order, the strictest decision, and each match's source", () => {
    const ev = p.evaluate(["git", "log", "-1"]);
    expect(ev.decision).toBe("forbidden");
    expect(ev.matchedRules.map((m) => [m.matchedPrefix, m.decision, m.source.line])).toEqual([
      [["git", "log"], "allow", 1], [["git"], "prompt", 2], [["git", "log"], "forbidden", 3], [["git", "log"], "forbidden", 4],
    ]);
    expect(ev.matchedRules[1]!.justification).toBe("vcs");
    expect(p.evaluate(["git", "status"]).decision).toBe("prompt");
  });

  it("has no decision when nothing matches; empty argv and longer patterns never match", () => {
    expect(p.evaluate(["ls"])).toEqual({ matchedRules: [] });
    expect(p.evaluate([])).toEqual({ matchedRules: [] });
    expect(policy('prefix_rule(pattern=["a", "b", "c"])').evaluate(["a", "b"])).toEqual({ matchedRules: [] });
    expect(() => p.evaluate(["a", 1 as unknown as string])).toThrow(/argv\[1\]/);
  });

  it("serialises to Codex's JSON shape and key order", () => {
    expect(JSON.stringify(evaluationToCodexJson(p.evaluate(["git", "status"])))).toBe(
      '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","status"],"decision":"allow"}},{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"prompt","justification":"vcs"}}],"decision":"prompt"}',
    );
    expect(JSON.stringify(evaluationToCodexJson(p.evaluate(["x"])))).toBe('{"matchedRules":[]}');
  });

  describe("host_executable fallback", () => {
    const h = policy([
      'host_executable(name="git", paths=["/usr/bin/git"])',
      'host_executable(name="rg", paths=[])',
      'prefix_rule(pattern=["git", "status"])',
      'prefix_rule(pattern=["rg"], decision="prompt")',
      'prefix_rule(pattern=["ls"], decision="prompt")',
      'prefix_rule(pattern=["/bin/ls", "-l"], decision="forbidden")',
    ].join("\n"));
    const r = { resolveHostExecutables: true };

    it("is off unless asked", () => {
      expect(h.evaluate(["/usr/bin/git", "status"]).matchedRules).toEqual([]);
    });

    it("maps listed absolute paths to the basename, reporting resolvedProgram", () => {
      const ev = h.evaluate(["/usr/lib/../bin/git", "status", "-s"], r);
      expect(JSON.stringify(evaluationToCodexJson(ev))).toBe(
        '{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git","status"],"decision":"allow","resolvedProgram":"/usr/bin/git"}}],"decision":"allow"}',
      );
    });

    it("refuses unlisted paths, empty lists and bare names; any path works without an entry", () => {
      expect(h.evaluate(["/opt/bin/git", "status"], r).matchedRules).toEqual([]);
      expect(h.evaluate(["/usr/bin/rg"], r).matchedRules).toEqual([]);
      expect(h.evaluate(["/anywhere/ls"], r).matchedRules[0]).toMatchObject({ matchedPrefix: ["ls"], resolvedProgram: "/anywhere/ls" });
      expect(h.evaluate(["./ls"], { ...r, cwd: "/work" }).matchedRules[0]).toMatchObject({ resolvedProgram: "/work/ls" });
    });

    it("prefers exact absolute-path rules, and falls back when they do not match", () => {
      expect(h.evaluate(["/bin/ls", "-l"], r).matchedRules).toEqual([expect.objectContaining({ matchedPrefix: ["/bin/ls", "-l"], decision: "forbidden" })]);
      expect(h.evaluate(["/bin/ls", "-a"], r).matchedRules).toEqual([expect.objectContaining({ matchedPrefix: ["ls"], resolvedProgram: "/bin/ls" })]);
    });
  });

  it("evaluateAll concatenates matches and takes the strictest decision; withPrefixRule adds a literal rule", () => {
    const ev = p.evaluateAll([["git", "status"], ["ls"], ["hg", "log"]]);
    expect(ev.decision).toBe("forbidden");
    expect(ev.matchedRules).toHaveLength(3);
    expect(strictestDecision([undefined, "allow", "prompt"])).toBe("prompt");
    const q = Policy.empty().withPrefixRule(["npm", "test"]);
    expect(q.evaluate(["npm", "test", "--", "x"]).decision).toBe("allow");
    expect(p.allowedPrefixes()).toEqual([["git", "[status|log]"]]);
  });

  it("handles alternatives too many to expand (deferred matching) identically", () => {
    const alts = Array.from({ length: 40 }, (_, i) => `"a${i}"`).join(", ");
    const q = policy(`prefix_rule(pattern=["x", [${alts}], [${alts}], "end"], decision="prompt")\nprefix_rule(pattern=["x", "a3"])`);
    expect(q.evaluate(["x", "a3", "a39", "end", "more"]).matchedRules.map((m) => m.matchedPrefix)).toEqual([["x", "a3", "a39", "end"], ["x", "a3"]]);
    expect(q.evaluate(["x", "a3", "a40", "end"]).decision).toBe("allow");
  });

  it("agrees with a naive linear matcher on random rules and commands (property)", () => {
    const tok = fc.constantFrom("a", "b", "c", "");
    const elem = fc.oneof(tok, fc.array(tok, { minLength: 1, maxLength: 3 }));
    const rule = fc.record({ pattern: fc.array(elem, { minLength: 1, maxLength: 4 }), decision: fc.constantFrom<Decision>("allow", "prompt", "forbidden") });
    fc.assert(fc.property(fc.array(rule, { maxLength: 12 }), fc.array(fc.array(tok, { maxLength: 5 }), { maxLength: 10 }), (rules, commands) => {
      const src = rules.map((r) => `prefix_rule(pattern=${JSON.stringify(r.pattern)}, decision="${r.decision}")`).join("\n");
      const pol = parsePolicy([{ path: "p.rules", source: src }]);
      const flat = rules.flatMap((r) => {
        const [first, ...rest] = r.pattern.map((e) => (Array.isArray(e) ? e : [e]));
        return first!.map((prog) => ({ alts: [[prog], ...rest], decision: r.decision }));
      });
      for (const cmd of commands) {
        const expected = flat.filter((f) => cmd.length >= f.alts.length && f.alts.every((a, i) => a.includes(cmd[i]!)));
        const ev = pol.evaluate(cmd);
        expect(ev.matchedRules.map((m) => [m.matchedPrefix, m.decision])).toEqual(expected.map((f) => [cmd.slice(0, f.alts.length), f.decision]));
        expect(ev.decision).toBe(strictestDecision(expected.map((f) => f.decision)));
      }
    }), { numRuns: 150 });
  });
});
