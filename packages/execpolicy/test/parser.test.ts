import { describe, expect, it } from "vitest";
import { PolicyDiagnosticError } from "../src/index.js";
import { parseModule } from "../src/lang/parser.js";
import { SourceText } from "../src/lang/source.js";
import { diag } from "./helpers.js";

const parse = (text: string) => parseModule(new SourceText("p.rules", text));

describe("parser", () => {
  it("builds a typed AST with positions", () => {
    const m = parse(`# comment\nx = ["a", 'b']\nprefix_rule(pattern=x, decision="allow",)\n`);
    expect(m.body).toHaveLength(2);
    const [assign, call] = m.body;
    expect(assign).toMatchObject({ kind: "assign", target: { kind: "name", name: "x" }, pos: { line: 2, column: 1 } });
    expect(call).toMatchObject({
      kind: "expr",
      expr: { kind: "call", callee: { kind: "name", name: "prefix_rule" }, pos: { line: 3, column: 1 } },
    });
    const args = (call as { expr: { args: Array<{ kind: string; name?: string }> } }).expr.args;
    expect(args.map((a) => [a.kind, a.name])).toEqual([["keyword", "pattern"], ["keyword", "decision"]]);
  });

  it("accepts blocks, comprehensions, lambdas, slices, dicts, tuples and semicolons", () => {
    const m = parse([
      "def f(a, b=1, *args, **kw):",
      "    if a:",
      "        return a",
      "    elif b:",
      "        pass",
      "    else:",
      "        return [i for i in range(3) if i]",
      "for i, j in zip([1], [2]):",
      "    y = {i: j for i in [1]}",
      "z = lambda q: q + 1; w = (1,)",
      "s = 'abc'[1:2], 'abc'[::-1]",
      "t = 1 if True else 2",
      "n = not - 1 in [1] or 2 >= 1 and 3 != 4",
    ].join("\n"));
    expect(m.body.map((s) => s.kind)).toEqual(["def", "for", "assign", "assign", "assign", "assign", "assign"]);
  });

  it("decodes string forms and escapes", () => {
    const m = parse(`x = ["a\\tb", r"\\d", """tri\nple""", '''x''', "\\x41\\u00e9\\U0001F600\\101", 'it\\'s']`);
    const items = (m.body[0] as { value: { items: Array<{ value: string }> } }).value.items.map((i) => i.value);
    expect(items).toEqual(["a\tb", "\\d", "tri\nple", "x", "A\u00e9\u{1F600}A", "it's"]);
  });

  it.each([
    ["x = (", "SYNTAX_ERROR", 1, 6],
    ["x = 'abc", "UNTERMINATED_STRING", 1, 5],
    ['x = """abc', "UNTERMINATED_STRING", 1, 5],
    ["while x:\n  pass", "UNSUPPORTED_CONSTRUCT", 1, 1],
    ["import os", "UNSUPPORTED_CONSTRUCT", 1, 1],
    ["x = 1\n  y = 2", "SYNTAX_ERROR", 2, 3],
    ["if x:\n    a = 1\n  b = 2", "INDENTATION_ERROR", 3, 3],
    ["if x:\n\ta = 1", "SYNTAX_ERROR", 2, 1],
    ['x = "\\x4"', "INVALID_ESCAPE", 1, 5],
    ["x = 99999999999999999999", "INVALID_NUMBER", 1, 5],
    ["x = $", "SYNTAX_ERROR", 1, 5],
    ["def f():\nreturn 1", "SYNTAX_ERROR", 2, 1],
  ])("rejects %j with %s at %i:%i", (text, code, line, column) => {
    const e = diag(text);
    expect(e).toBeInstanceOf(PolicyDiagnosticError);
    expect([e.code, e.line, e.column, e.file]).toEqual([code, line, column, "t.rules"]);
  });

  it("bounds bracket, expression and block nesting with a typed error", () => {
    expect(diag("x = " + "[".repeat(5000)).code).toBe("NESTING_TOO_DEEP");
    expect(diag("x = " + "-".repeat(100000) + "1").code).toBe("NESTING_TOO_DEEP");
    expect(diag("x = " + "not ".repeat(5000) + "1").code).toBe("NESTING_TOO_DEEP");
    expect(diag("x = " + "1 if 1 else ".repeat(3000) + "1").code).toBe("NESTING_TOO_DEEP");
    expect(diag("x = " + "lambda: ".repeat(3000) + "1").code).toBe("NESTING_TOO_DEEP");
    const blocks = Array.from({ length: 40 }, (_, i) => `${" ".repeat(i)}if True:`).join("\n") + `\n${" ".repeat(40)}pass`;
    expect(diag(blocks).code).toBe("NESTING_TOO_DEEP");
  });

  it("renders diagnostics with the source line and a caret under the column", () => {
    const e = diag(`x = 1\nprefix_rule(pattern=["a"], decision="maybe")\n`);
    expect(e.code).toBe("INVALID_DECISION");
    expect(e.render()).toBe([
      'error[INVALID_DECISION]: invalid decision: maybe (expected "allow", "prompt" or "forbidden")',
      " --> t.rules:2:1",
      "  |",
      '2 | prefix_rule(pattern=["a"], decision="maybe")',
      "  | ^^^^^^^^^^^",
    ].join("\n"));
    const s = diag("x = ['a', 'b',\n     $]");
    expect(s.render().split("\n").slice(-2)).toEqual(["2 |      $]", "  |      ^"]);
  });
});

describe("diagnostic rendering of long lines", () => {
  it("shows a window around the column instead of the whole line", () => {
    const e = diag(`x = [${'"a", '.repeat(500)}$]`);
    const [, , , code, caret] = e.render().split("\n");
    expect(code!.length).toBeLessThan(130);
    expect(code).toContain("$]");
    expect(caret!.indexOf("^") - 4).toBe(code!.indexOf("$") - 4);
  });
});
