import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatAllowPrefixRule, parsePolicy, PolicyDiagnosticError } from "../src/index.js";
import { literalCalls } from "../src/policy/fast-path.js";

type Outcome = { ok: true; rules: unknown; host: unknown; net: unknown } | { ok: false; code: string; line: number; column: number };

function outcome(source: string, fastPath: boolean): Outcome {
  try {
    const p = parsePolicy([{ path: "f.rules", source }], { fastPath });
    return { ok: true, rules: p.rules, host: [...p.hostExecutables], net: p.networkRules };
  } catch (e) {
    if (!(e instanceof PolicyDiagnosticError)) throw e;
    return { ok: false, code: e.code, line: e.line, column: e.column };
  }
}

describe("literal-calls fast path", () => {
  it("recognises amend-style files and rejects anything else", () => {
    expect(literalCalls('# header\n\nprefix_rule(pattern=["a", ["b", "c"]], decision="allow")  # note\r\nhost_executable("git", ["/usr/bin/git"])\n')).toHaveLength(2);
    for (const other of ['x = ["a"]', '  prefix_rule(pattern=["a"])', 'prefix_rule(pattern=["a"],\n)', 'prefix_rule(pattern=["a"]); x', "prefix_rule(pattern=[a])", 'prefix_rule(pattern="""a""")', 'print("x")', 'prefix_rule(pattern=["a"], decision="allow", decision="allow")', 'prefix_rule(pattern=["a"] + ["b"])']) {
      expect(literalCalls(other)).toBeNull();
    }
  });

  it("gives exactly what the full parser gives, including errors and their positions (property)", () => {
    const str = fc.oneof(fc.constantFrom("a", "git", "", " ", "allow", "prompt", "forbidden", "deny", "/usr/bin/git", "~/x/git", "https", "h.com", "read-only", "workspace-write", "H.com:443"), fc.string({ maxLength: 6 }));
    const val = fc.oneof(str, fc.array(str, { maxLength: 3 }), fc.array(fc.oneof(str, fc.array(str, { maxLength: 2 })), { maxLength: 3 }));
    const arg = fc.tuple(fc.constantFrom(null, "pattern", "decision", "justification", "match", "not_match", "name", "paths", "host", "protocol", "sandbox", "network", "bogus"), val);
    const call = fc.tuple(fc.constantFrom("prefix_rule", "host_executable", "network_rule"), fc.uniqueArray(arg, { maxLength: 4, selector: (a) => a[0] ?? Math.random() }));
    const render = (v: unknown): string => (Array.isArray(v) ? `[${v.map(render).join(", ")}]` : JSON.stringify(v));
    fc.assert(fc.property(fc.array(call, { minLength: 1, maxLength: 5 }), (calls) => {
      const source = calls.map(([name, args]) => {
        const sorted = [...args.filter((a) => a[0] === null), ...args.filter((a) => a[0] !== null)];
        return `${name}(${sorted.map(([k, v]) => (k === null ? render(v) : `${k}=${render(v)}`)).join(", ")})`;
      }).join("\n");
      expect(literalCalls(source)).not.toBeNull();
      expect(outcome(source, true)).toEqual(outcome(source, false));
    }), { numRuns: 300 });
  });

  it("amend lines always take the fast path", () => {
    fc.assert(fc.property(fc.array(fc.array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 4 }), { maxLength: 5 }), (prefixes) => {
      const source = prefixes.map((p) => formatAllowPrefixRule(p)).join("\n");
      expect(literalCalls(source)).not.toBeNull();
      expect(outcome(source, true)).toEqual(outcome(source, false));
    }), { numRuns: 200 });
  });
});
