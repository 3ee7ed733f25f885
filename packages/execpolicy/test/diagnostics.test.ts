import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluationToCodexJson, loadPolicy, PolicyDiagnosticError } from "../src/index.js";
import { grammarDefinitionErrors } from "../src/lang/parser.js";
import { closestName } from "../src/lang/suggest.js";

let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), "execpolicy-diag-")); });
afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

/** Write `source` to a real file, load it through the public API, and return the diagnostic. */
async function diagnose(name: string, source: string): Promise<PolicyDiagnosticError> {
  const file = join(dir, name);
  await writeFile(file, source);
  try {
    await loadPolicy([file]);
  } catch (e) {
    if (e instanceof PolicyDiagnosticError) return e;
    throw e;
  }
  throw new Error(`expected a diagnostic for ${name}`);
}

async function json(name: string, source: string, argv: string[]): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, source);
  return JSON.stringify(evaluationToCodexJson((await loadPolicy([file])).evaluate(argv)));
}

describe("grammar", () => {
  it("passes chevrotain's grammar validations (no ambiguities, no left recursion)", () => {
    expect(grammarDefinitionErrors()).toEqual([]);
  });
});

describe("syntax diagnostics say what was expected and where the construct started", () => {
  it.each([
    ["unclosed-call.rules", 'prefix_rule(pattern=["git"]\nprefix_rule(pattern=["ls"])\n', "SYNTAX_ERROR", 2, 1,
      "syntax error: expected `,` or `)`, found `prefix_rule` (the `(` at 1:12 is not closed)"],
    ["unclosed-eof.rules", 'prefix_rule(pattern=["a"], decision="allow"', "SYNTAX_ERROR", 1, 44,
      "syntax error: expected `,` or `)`, found end of line (the `(` at 1:12 is not closed)"],
    ["missing-comma.rules", 'prefix_rule(pattern=["git" "status"])\n', "SYNTAX_ERROR", 1, 28,
      "syntax error: expected `,` or `]`, found `\"status\"` (the `[` at 1:21 is not closed)"],
    ["double-comma.rules", "x = [1, 2,, 3]\n", "SYNTAX_ERROR", 1, 11, "syntax error: expected `]` or an expression, found `,` (the `[` at 1:5 is not closed)"],
    ["dict-colon.rules", 'x = {"a" 1}\n', "SYNTAX_ERROR", 1, 10, "syntax error: expected `:`, found `1`"],
    ["if-colon.rules", "if True\n    pass\n", "SYNTAX_ERROR", 1, 8, "syntax error: expected `:`, found end of line"],
    ["missing-value.rules", "x = \n", "SYNTAX_ERROR", 1, 5, "syntax error: expected an expression, found end of line"],
    ["def-params.rules", "def f(:\n  pass\n", "SYNTAX_ERROR", 1, 7, "syntax error: expected a name, `*`, `**` or `)`, found `:` (the `(` at 1:6 is not closed)"],
    ["indent.rules", "x = 1\n  y = 2\n", "SYNTAX_ERROR", 2, 3, "syntax error: unexpected indentation (this line is indented more than the statement before it)"],
    ["unknown-name.rules", 'prefx_rule(pattern=["a"])\n', "UNDEFINED_NAME", 1, 1, "name `prefx_rule` is not defined; did you mean `prefix_rule`?"],
    ["unknown-kwarg.rules", 'prefix_rule(pattern=["a"], decison="allow")\n', "ARGUMENT_ERROR", 1, 28,
      "prefix_rule() got an unexpected keyword argument `decison`; did you mean `decision`?"],
    ["unknown-kwarg-full.rules", 'x = ["a"]\nprefix_rule(pattern=x, decison="allow")\n', "ARGUMENT_ERROR", 2, 24,
      "prefix_rule() got an unexpected keyword argument `decison`; did you mean `decision`?"],
    ["far-kwarg.rules", 'prefix_rule(pattern=["a"], foo=1)\n', "ARGUMENT_ERROR", 1, 28, "prefix_rule() got an unexpected keyword argument `foo`"],
    ["host-kwarg.rules", 'host_executable(nme="git", paths=[])\n', "ARGUMENT_ERROR", 1, 17, "host_executable() got an unexpected keyword argument `nme`; did you mean `name`?"],
    ["method-typo.rules", 'x = "a".uper()\n', "VALUE_ERROR", 1, 9, "string has no attribute `uper`; did you mean `upper`?"],
    ["def-kwarg.rules", "def f(alpha):\n    pass\nf(alpah=1)\n", "ARGUMENT_ERROR", 3, 3, "f() got an unexpected keyword argument `alpah`; did you mean `alpha`?"],
    ["trailing-comma.rules", 'prefix_rule(pattern=["git"]),\n', "SYNTAX_ERROR", 1, 1,
      "unparenthesised tuple with a trailing comma (the `,` at 1:29); remove the comma, or write the tuple in parentheses"],
    ["trailing-comma-assign.rules", "x = 1,\n", "SYNTAX_ERROR", 1, 5, "unparenthesised tuple with a trailing comma (the `,` at 1:6); remove the comma, or write the tuple in parentheses"],
    ["trailing-comma-return.rules", "def f():\n    return 1,\n", "SYNTAX_ERROR", 2, 12, "unparenthesised tuple with a trailing comma (the `,` at 2:13); remove the comma, or write the tuple in parentheses"],
    ["bare-tuple.rules", 'prefix_rule(pattern=["a"]), prefix_rule(pattern=["b"])\n', "SYNTAX_ERROR", 1, 55,
      "expected `=` after the unparenthesised tuple starting at 1:1 (a bare tuple is not a statement)"],
    ["for-tuple.rules", "for x in 1, 2:\n    pass\n", "SYNTAX_ERROR", 1, 11, "syntax error: expected `:`, found `,`"],
    ["method-arity.rules", 'd = {"a": 1}\nd.keys(0)\n', "ARGUMENT_ERROR", 2, 1, "keys() takes no arguments, got 1"],
    ["method-arity-items.rules", 'd = {}\nd.items(1)\n', "ARGUMENT_ERROR", 2, 1, "items() takes no arguments, got 1"],
    ["method-arity-isdigit.rules", '"1".isdigit(1)\n', "ARGUMENT_ERROR", 1, 1, "isdigit() takes no arguments, got 1"],
    ["update-arity.rules", "d = {}\nd.update({}, {})\n", "ARGUMENT_ERROR", 2, 1, "update() accepts at most 1 positional argument, got 2"],
    ["fstring-spec.rules", 'x = 1\ny = f"{x:>5}"\n', "SYNTAX_ERROR", 2, 9, "f-string field: syntax error: expected `}`, found `:`"],
    ["fstring-brace.rules", 'y = f"{1}}"\n', "SYNTAX_ERROR", 1, 10, "f-string: single `}` is not allowed (write `}}` for a literal brace)"],
    ["fstring-conv.rules", 'y = f"{1!x}"\n', "SYNTAX_ERROR", 1, 9, "f-string: invalid conversion `!x` (expected `!s` or `!r`)"],
    ["fstring-empty.rules", 'y = f"{}"\n', "SYNTAX_ERROR", 1, 8, "f-string: empty `{}` (expected an expression)"],
    ["fstring-undefined.rules", 'y = f"a {nope}"\n', "UNDEFINED_NAME", 1, 10, "name `nope` is not defined"],
    ["rf-prefix.rules", 'y = rf"x"\n', "SYNTAX_ERROR", 1, 7, "syntax error: expected `,` or end of line, found `\"x\"`"],
  ])("%s", async (name, source, code, line, column, message) => {
    const e = await diagnose(name, source);
    expect([e.code, e.line, e.column, e.detail]).toEqual([code, line, column, message]);
    expect(e.message).toBe(`${join(dir, name)}:${line}:${column}: ${message}`);
  });

  it("suggests only close names", () => {
    expect(closestName("decison", ["decision", "pattern"])).toBe("decision");
    expect(closestName("foo", ["decision", "pattern", "match"])).toBeUndefined();
    expect(closestName("patern", ["pattern", "match", "not_match"])).toBe("pattern");
  });
});

describe("compatibility with codex execpolicy (expected JSON from codex 0.171.0)", () => {
  it("evaluates f-string fields holding any expression, as codex does", async () => {
    expect(await json("f1.rules", 'prefix_rule(pattern=["git"], justification=f"use {1+1}")\n', ["git", "status"]))
      .toBe('{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"allow","justification":"use 2"}}],"decision":"allow"}');
    const src = 'x = 3\ns = "hi"\nd = {"k": "v"}\nprefix_rule(pattern=["git"], justification=f"<{x*2}|{[1,2]}|{None}|{d["k"]}|{"}"}|{s!r}|{ {1:2} }|{f"{x}"}|{(1,\n2)}|{{x}}|{x == 3}|{s.upper()}>")\n';
    expect(await json("f2.rules", src, ["git"]))
      .toBe('{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"allow","justification":"<6|[1, 2]|None|v|}|\\"hi\\"|{1: 2}|3|(1, 2)|{x}|True|HI>"}}],"decision":"allow"}');
    expect(await json("f3.rules", 'prefix_rule(pattern=["git"], justification=fr"<{1+1}\\n>")\n', ["git"]))
      .toBe('{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"allow","justification":"<2\\\\n>"}}],"decision":"allow"}');
  });

  it("has the string, list and dict methods and builtins codex has, with codex's values", async () => {
    const cases: Array<[string, string]> = [
      ['list("ab".codepoints())', "[97, 98]"], ['"hello wORLD 3x x3".title()', "Hello World 3X X3"], ['"hELLO wORLD".capitalize()', "Hello world"],
      ['"a-b-c".rsplit("-", 1)', '[\\"a-b\\", \\"c\\"]'], ['"a b  c ".rsplit()', '[\\"a\\", \\"b\\", \\"c\\"]'],
      ['"a\\nb\\n".splitlines(True)', '[\\"a\\\\n\\", \\"b\\\\n\\"]'], ['"abcab".rfind("ab", 1)', "3"], ['"abcab".find("b", 1, 3)', "1"],
      ['"abc".partition("b")', '(\\"a\\", \\"b\\", \\"c\\")'], ['"abc".rpartition("x")', '(\\"\\", \\"\\", \\"abc\\")'],
      ['"Ab".istitle()', "True"], ['"A1".isupper()', "True"], ['"a_1".isalnum()', "False"], ['"".islower()', "False"],
      ["abs(-1.5)", "1.5"], ["chr(233)", "é"], ['ord("é")', "233"], ['int("0x10", 0)', "16"], ['int("-0b11", 0)', "-3"],
      ['"abc".count("", 1)', "3"], ['"abc".startswith("b", 1)', "True"], ['"abc".endswith("b", 0, 2)', "True"], ["[1, 2, 1].index(1, 1)", "2"],
      ['{"a": 1, "b": 2}.popitem()', '(\\"a\\", 1)'], ['"abab".index("b", 2)', "3"], ['hash("a")', "97"], ['"abc".removesuffix("c")', "ab"],
      ['"x".find("", 5)', "-1"], ["1 << 3", "8"], ["-9 >> 1", "-5"], ["1 | 2 << 3", "17"], ["1 + 2 << 1", "6"],
    ];
    for (const [expr, value] of cases) {
      expect(await json("m.rules", `prefix_rule(pattern=["git"], justification=str(${expr}))\n`, ["git"]), expr)
        .toBe(`{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"allow","justification":"${value}"}}],"decision":"allow"}`);
    }
  });

  it("refuses keyword arguments to positional-only builtins and methods, as codex does", async () => {
    for (const call of ["len(x=[])", "str(x=1)", '"a".split(sep="a")', "[1].append(x=1)", '{"a": 1}.get(key="a")', "min([1, 2], key=None)", "sorted([1], key=None)", "range(3, step=1)"]) {
      expect((await diagnose("kw.rules", `x = ${call}\n`)).code, call).toBe(call.includes("None") ? "TYPE_ERROR" : "ARGUMENT_ERROR");
    }
    expect((await diagnose("kw2.rules", "x = len(x=[])\n")).detail).toBe("len() got an unexpected keyword argument `x` (its parameters are positional-only)");
    expect(await json("kw3.rules", 'prefix_rule(pattern=[str(int("10", base=16)), sorted(["b", "a"], reverse=True)[0]])\n', ["16", "b"]))
      .toBe('{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["16","b"],"decision":"allow"}}],"decision":"allow"}');
  });

  it("refuses integer literals with leading zeros, as codex does", async () => {
    const e = await diagnose("octal.rules", "x = 010\n");
    expect([e.code, e.line, e.column, e.detail]).toEqual(["INVALID_NUMBER", 1, 5, "integer literal 010 has leading zeros, which are not allowed (write 0o10 for octal)"]);
  });

  it("accepts the tuple and parameter forms codex accepts", async () => {
    expect(await json("t1.rules", 'x = 1, 2\nprefix_rule(pattern=["git"], justification=str(x))\n', ["git"]))
      .toBe('{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"allow","justification":"(1, 2)"}}],"decision":"allow"}');
    expect(await json("t2.rules", 'f = lambda a,: a\n(1, 2)\nprefix_rule(pattern=[f("git")])\n', ["git"]))
      .toBe('{"matchedRules":[{"prefixRuleMatch":{"matchedPrefix":["git"],"decision":"allow"}}],"decision":"allow"}');
  });
});
