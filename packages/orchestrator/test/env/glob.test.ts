import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileNameGlob, matchesAny } from "../support/internals.js";

// What the compiled glob must match: the plain translation under V8's own case-insensitive,
// dot-all matching (the implementation before it compiled ASCII patterns without the `i` flag).
function reference(pattern: string): RegExp {
  let source = "";
  for (const ch of pattern) {
    if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else source += ch.replace(/[\\^$.|+()[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "is");
}

// Letters whose case mappings cross into ASCII or change length (Kelvin sign, long s, dotted and
// dotless i, sharp s, ligatures), regex syntax, and surrogate pairs.
const TRICKY = ["a", "K", "k", "s", "S", "i", "I", "\u212a", "\u017f", "\u0130", "\u0131", "\u00df", "\ufb00", "\u00e9", "\u00c9", "_", "-", ".", "*", "?", "[", "]", "\\", "^", "$", "(", ")", "|", "+", "{", "}", "\n", "\u{1f600}", "0"];
const word = (chars: string[]) => fc.array(fc.constantFrom(...chars), { maxLength: 8 }).map((a) => a.join(""));

describe("compileNameGlob", () => {
  it("matches case-insensitively with * and ?", () => {
    const re = compileNameGlob("*KEY*");
    expect(re.test("API_KEY")).toBe(true);
    expect(re.test("api_key_file")).toBe(true);
    expect(re.test("KEYS")).toBe(true);
    expect(re.test("APIKY")).toBe(false);
    expect(compileNameGlob("A?C").test("abc")).toBe(true);
    expect(compileNameGlob("A?C").test("ac")).toBe(false);
    expect(compileNameGlob("A.C").test("abc")).toBe(false);
    expect(matchesAny("HOME", [compileNameGlob("PATH"), compileNameGlob("h*")])).toBe(true);
    expect(compileNameGlob("*t\u00e9*").test("XT\u00c9")).toBe(true);
  });

  it("compiles an ASCII pattern without the i flag, which makes V8 build Unicode case closures", () => {
    expect(compileNameGlob("*TOKEN*").flags).toBe("");
    expect(compileNameGlob("*T\u00d6KEN*").flags).toBe("i");
  });

  it("keeps a non-ASCII character whose upper case is ASCII apart from that letter", () => {
    expect(compileNameGlob("*KEY*").test("API_\u212aEY")).toBe(false);
    expect(compileNameGlob("S*").test("\u017fOME")).toBe(false);
  });

  it("matches exactly what the case-insensitive, dot-all translation matches", () => {
    fc.assert(
      fc.property(word(TRICKY), word(TRICKY), (pattern, name) => {
        expect(compileNameGlob(pattern).test(name)).toBe(reference(pattern).test(name));
      }),
      { numRuns: 5000 },
    );
  });

  it("matches a name that differs from the pattern only in case as the translation does", () => {
    const cased = fc.array(fc.tuple(fc.constantFrom(...TRICKY), fc.constantFrom("upper", "lower", "same")), { maxLength: 8 });
    fc.assert(
      fc.property(cased, (chars) => {
        const pattern = chars.map(([c]) => c).join("");
        const name = chars.map(([c, how]) => (how === "upper" ? c.toUpperCase() : how === "lower" ? c.toLowerCase() : c)).join("");
        expect(compileNameGlob(pattern).test(name)).toBe(reference(pattern).test(name));
      }),
      { numRuns: 5000 },
    );
  });

  it("matches the default secret globs as the translation does, for any name", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 24 }), (name) => {
        for (const pattern of ["*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*CREDENTIAL*"]) {
          expect(compileNameGlob(pattern).test(name)).toBe(reference(pattern).test(name));
        }
      }),
      { numRuns: 2000 },
    );
  });
});
