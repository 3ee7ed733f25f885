import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ShellDetectError, splitShellCommand } from "../src/index.js";

const EDITIONS = ["pwsh", "powershell.exe"] as const;
const split = (shell: string, script: string) => splitShellCommand([shell, "-Command", script]);

const KEYWORDS = new Set(["if", "do", "in", "for", "end", "try", "var", "data", "else", "exit", "from", "trap", "enum", "break", "class", "catch", "param", "throw", "until", "using", "while", "begin", "clean", "define", "elseif", "filter", "hidden", "return", "static", "switch", "finally", "foreach", "process", "continue", "function", "parallel", "sequence", "workflow", "dynamicparam", "inlinescript", "configuration"]);

/**
 * Where a character that makes a script dynamic stands outside single quotes: an oracle written apart
 * from the splitter (it knows only that `'` quotes verbatim text and that `'` inside `"…"` is literal).
 */
function dynamicOutsideSingleQuotes(script: string, edition: string): boolean {
  let state: "plain" | "single" | "double" = "plain";
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (state === "single") {
      if (c === "'") state = "plain";
      continue;
    }
    if (c === "'" && state === "plain") state = "single";
    else if (c === '"') state = state === "double" ? "plain" : "double";
    else if (c === "$" || c === "{" || c === ">" || (c === "@" && script[i + 1] === "(")) return true;
    else if (c === "&" && state === "plain") {
      const chain = script[i + 1] === "&" || script[i - 1] === "&";
      if (!chain || edition === "powershell.exe") return true;
    }
  }
  return false;
}

const PIECES = [
  "Get-Item", "git", "status", "-Recurse", "x", " ", " ", "  ", "\n", ";", "|", "&&", "||", "&", "'", "'", '"', "''", "$", "$x", "$(",
  "@(", "@{", "@'", "{", "}", "(", ")", ">", "2>", "<", ",", "`", "#", ".", ":", "\\", "*", "[", "]", "=", "%", "--%", "iex",
  "\u2013", "\u2018", "\u00a0", "\r", "0x1", "12", "-", "~",
];
const script = fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }).map((ps) => ps.join(""));

describe("property: the PowerShell splitter on arbitrary text", () => {
  it("never throws anything but its own errors, and a script with $, {, &, @( or > outside single quotes is never plain", async () => {
    await fc.assert(
      fc.asyncProperty(script, fc.constantFrom(...EDITIONS), async (s, edition) => {
        let result;
        try {
          result = await split(edition, s);
        } catch (err) {
          expect(err).toBeInstanceOf(ShellDetectError);
          return;
        }
        expect(["plain", "not-plain"]).toContain(result.kind);
        if (result.kind !== "not-a-shell") expect(result.dialect).toBe("powershell");
        if (dynamicOutsideSingleQuotes(s, edition)) expect(result, s).toMatchObject({ kind: "not-plain" });
        if (result.kind === "plain") {
          expect(result.globbed).toHaveLength(result.commands.length);
          for (const words of result.commands) expect(words.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** A word as written and as PowerShell passes it. */
interface Piece {
  src: string;
  word: string;
}
const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const bare = (first: string, rest: string) =>
  fc
    .tuple(fc.constantFrom(...first), fc.array(fc.constantFrom(...rest), { maxLength: 6 }))
    .map(([a, r]) => a + r.join(""))
    .filter((w) => !KEYWORDS.has(w.toLowerCase()) && !/^(iex|invoke-expression)$/i.test(w))
    .map((w): Piece => ({ src: w, word: w }));
const name = bare(LETTERS, `${LETTERS}0123456789-_.`);
const generic = bare(LETTERS, `${LETTERS}0123456789-_./\\:=`);
// tree-sitter-powershell 0.26.4 reads a digit in a parameter name (`-a9`) as a syntax error: a false
// "not plain" (safe), so parameters here are letters only.
const parameter = bare(LETTERS, LETTERS).map((p): Piece => ({ src: `-${p.src}`, word: `-${p.word}` }));
const single = fc
  .array(fc.constantFrom(..."ab $`|&;<>(){}@#,'\n"), { minLength: 1, maxLength: 6 })
  .map((cs) => cs.join(""))
  .filter((w) => !w.endsWith("\\"))
  .map((w): Piece => ({ src: `'${w.replaceAll("'", "''")}'`, word: w }));
const double = fc
  .array(fc.constantFrom(..."ab '|&;<>(){}@#,\n"), { minLength: 1, maxLength: 6 })
  .map((cs): Piece => ({ src: `"${cs.join("")}"`, word: cs.join("") }));
const integer = fc.integer({ min: 0, max: 99999 }).map((n): Piece => ({ src: String(n), word: String(n) }));
const command = fc.tuple(name, fc.array(fc.oneof(generic, parameter, single, double, integer), { maxLength: 4 })).map(([n, args]) => [n, ...args]);
const SEPARATORS = ["; ", ";", " | ", "|", "\n", " ;\n", "|\n  "];

describe("property: plain PowerShell scripts round-trip", () => {
  it("splitting never drops, joins or invents a word", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 1, maxLength: 4 }),
        fc.array(fc.constantFrom(...SEPARATORS, " && ", "||"), { minLength: 3, maxLength: 3 }),
        fc.constantFrom(...EDITIONS),
        async (commands, seps, edition) => {
          const usable = edition === "pwsh" ? seps : seps.map((s) => (s.includes("&") || s.includes("||") ? "; " : s));
          const text = commands.map((c, i) => (i === 0 ? "" : usable[i - 1]) + c.map((p) => p.src).join(" ")).join("");
          expect(await split(edition, text), text).toMatchObject({ kind: "plain", commands: commands.map((c) => c.map((p) => p.word)) });
        },
      ),
      { numRuns: 300 },
    );
  });
});
