import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePolicy, PolicyError } from "../src/index.js";

/** Parse `source`; the only acceptable failure is a typed PolicyError. */
function parseOrTypedError(source: string): void {
  try {
    parsePolicy([{ path: "fuzz.rules", source }], { maxSteps: 20_000 });
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    expect(typeof e.code).toBe("string");
  }
}

const VALID = [
  'prefix_rule(pattern=["git", ["status", "log"]], decision="prompt", justification="j", match=["git status"], not_match=[["git", "diff"]])',
  'host_executable(name="git", paths=["/usr/bin/git", "~/bin/git"])',
  'network_rule(host="example.com:443", protocol="https", decision="deny")',
  "def f(x, *a, **k):\n    for i in range(3):\n        if i: x += [str(i)]\n    return x\nprefix_rule(pattern=f([\"a\"]))",
  "x = {\"a\": [1, (2, 3)], 'b': r'''raw\\d'''}\ny = [k for k in x if k != 'b']",
].join("\n");

describe("bad input never crashes or hangs", () => {
  it("arbitrary strings and bytes give only typed errors", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), parseOrTypedError), { numRuns: 300 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => parseOrTypedError(Buffer.from(bytes).toString("utf8"))), { numRuns: 200 });
  });

  it("token soup from the language's own alphabet gives only typed errors", () => {
    const piece = fc.constantFrom(
      "prefix_rule", "(", ")", "[", "]", "{", "}", ",", ":", "=", "+", "*", "-", "not", "in", "for", "if", "else", "def", "return",
      "lambda", "\n", "    ", '"a"', "'''", '"', "x", "1", "None", "True", "range", "(10**9)", "load", "while", "#", "\\", "f'{x}'", ".", "pattern=", ";",
    );
    fc.assert(fc.property(fc.array(piece, { maxLength: 60 }), (parts) => parseOrTypedError(parts.join(" "))), { numRuns: 400 });
  });

  it("every truncation of a valid file gives a policy or a typed error", () => {
    for (let i = 0; i <= VALID.length; i += 3) parseOrTypedError(VALID.slice(0, i));
  });

  it("deep nesting and huge inputs give typed errors, not stack overflows", () => {
    for (const open of ["[", "(", "{", "f(", "-", "not ", "lambda: ", "[x for x in "]) {
      parseOrTypedError(`x = ${open.repeat(20_000)}`);
    }
    parseOrTypedError(`x = ${"1 + ".repeat(50_000)}1`);
    parseOrTypedError(`x = "${"a".repeat(2_000_000)}"`);
    parseOrTypedError(`prefix_rule(pattern=[${'"a", '.repeat(50_000)}"b"])`);
    parseOrTypedError("def f():\n    return f()\nf()");
    parseOrTypedError('s = "ab"\nfor i in range(64):\n    s = s + s');
    parseOrTypedError("x = [1]\nfor i in range(64):\n    x = x * 2");
  });
});
