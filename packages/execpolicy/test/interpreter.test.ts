import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_STEPS, parsePolicy } from "../src/index.js";
import { diag, policy } from "./helpers.js";

/** The patterns registered by a source, as flat token lists (alternatives joined by |). */
function patterns(source: string): string[][] {
  return policy(source).rules.map((r) => [r.program, ...r.rest.map((a) => a.join("|"))]);
}

describe("interpreter", () => {
  it("runs variables, concatenation, loops, conditionals and functions", () => {
    expect(patterns([
      'base = ["git"]',
      'prefix_rule(pattern=base + ["sta" + "tus"])',
      'for c in ["ls", "cat"]:',
      "    prefix_rule(pattern=[c])",
      "X = 2",
      "if X == 1:",
      '    prefix_rule(pattern=["one"])',
      "elif X == 2:",
      '    prefix_rule(pattern=["two"])',
      "def allow(*cmds, decision='allow'):",
      "    for c in cmds:",
      '        prefix_rule(pattern=c.split(" "), decision=decision)',
      "    return len(cmds)",
      'n = allow("go build", "go test")',
      "prefix_rule(pattern=[str(n)])",
    ].join("\n"))).toEqual([["git", "status"], ["ls"], ["cat"], ["two"], ["go", "build"], ["go", "test"], ["2"]]);
  });

  it("implements the common builtins and methods", () => {
    expect(patterns([
      'L = sorted(["b", "a", "c"], reverse=True)',
      "prefix_rule(pattern=L + [str(len(L)), str(min(3, 1, 2)), str(max([4, 9])), str(abs(-5))])",
      'prefix_rule(pattern=[v + str(i) for i, v in enumerate(["p", "q"], 1)])',
      'prefix_rule(pattern=[a + b for a, b in zip(["m", "n"], ["o", "p"])])',
      "prefix_rule(pattern=[str(x) for x in range(1, 10, 4)] + [str(x) for x in reversed(range(2))])",
      'd = dict(k="v"); d["z"] = "w"; d.update({"y": "x"})',
      'prefix_rule(pattern=list(d.keys()) + d.values() + [d.get("nope", "dflt")])',
      'prefix_rule(pattern=["-".join(["a", "b"]), "A,B".lower().split(",")[1], "  s ".strip(), "x".upper() * 2, "{}={k}".format(1, k=2), "%s/%d" % ("a", 3)])',
      'prefix_rule(pattern=[str(any([0, 1])), str(all([])), str(int("42") + 1), str(type([])), str(bool("")), repr("q"), str(tuple([1])), str(1 // 2), str(-7 % 3)])',
      'prefix_rule(pattern=["abcdef"[1:4], "abc"[-1], str([1, 2, 3][::-1]), str("b" in "abc"), str(3 not in [1])])',
      'prefix_rule(pattern=[str(1.5 + 1), str(7 / 2), str(float("2")), str(int(2.9))])',
    ].join("\n"))).toEqual([
      ["c", "b", "a", "3", "1", "9", "5"],
      ["p1", "q2"],
      ["mo", "np"],
      ["1", "5", "9", "1", "0"],
      ["k", "z", "y", "v", "w", "x", "dflt"],
      ["a-b", "b", "s", "XX", "1=2", "a/3"],
      ["True", "True", "43", "list", "False", '"q"', "(1,)", "0", "2"],
      ["bcd", "c", "[3, 2, 1]", "True", "True"],
      ["2.5", "3.5", "2.0", "2"],
    ]);
  });

  it("supports lambdas, f-strings, augmented assignment and keyword/positional builtin calls", () => {
    expect(patterns([
      "f = lambda x, y='z': [x, y]",
      'prefix_rule(f("a"), "prompt")',
      'sub = "st"',
      'x = ["git"]',
      'x += [f"{sub}atus"]',
      "prefix_rule(x, justification='why')",
    ].join("\n"))).toEqual([["a", "z"], ["git", "status"]]);
  });

  it.each([
    ["prefix_rule(pattern=[nope])", "UNDEFINED_NAME", 1, 22],
    ['load("x.star", "y")', "LOAD_UNSUPPORTED", 1, 1],
    ["def f(n):\n    return f(n)\nf(1)", "RECURSION", 2, 12],
    ['x = "a" + 1', "TYPE_ERROR", 1, 9],
    ["x = [1][5]", "INDEX_ERROR", 1, 8],
    ['x = {"a": 1}["b"]', "KEY_ERROR", 1, 13],
    ["x = 1 // 0", "ZERO_DIVISION", 1, 7],
    ['fail("stop here")', "FAIL", 1, 1],
    ["x = [1]\nfor y in x:\n    x.append(2)", "FROZEN_VALUE", 3, 5],
    ['for c in "abc":\n    pass', "TYPE_ERROR", 1, 1],
    ['print("x")', "UNDEFINED_NAME", 1, 1],
    ["return 1", "SYNTAX_ERROR", 1, 1],
    ["x = 2 ** 3", "SYNTAX_ERROR", 1, 7],
    ['x = "a" * 100000000', "SIZE_LIMIT_EXCEEDED", 1, 9],
    ["x = 9007199254740991 + 1", "INT_OVERFLOW", 1, 22],
  ])("%j fails with %s at %i:%i", (source, code, line, column) => {
    const e = diag(source);
    expect([e.code, e.line, e.column]).toEqual([code, line, column]);
  });

  it("stops runaway loops with a step budget instead of hanging", () => {
    const e = diag("for i in range(1000000000000):\n    pass");
    expect(e.code).toBe("STEP_BUDGET_EXCEEDED");
    expect(e.message).toContain(String(DEFAULT_MAX_STEPS));
    const small = () => parsePolicy([{ path: "s.rules", source: "for i in range(1000):\n    x = i" }], { maxSteps: 100 });
    expect(small).toThrow(/budget of 100 steps/);
    expect(diag("x = [i for i in range(100000000)]").code).toMatch(/STEP_BUDGET_EXCEEDED|SIZE_LIMIT_EXCEEDED/);
  });
});
