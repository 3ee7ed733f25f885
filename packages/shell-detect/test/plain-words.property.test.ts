import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitScript } from "../src/index.js";
import { splitPlainWords } from "../src/plain-words.js";
import { splitScriptByParser } from "../src/split.js";

const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
/** Every character a plain word may hold, `=` included. */
const INSIDE = `${LETTERS}0123456789_./,:@%+-=`;
/** Characters just outside that set: quoting, expansion, globs, operators, blanks, comments. */
const OUTSIDE = "'\"$\\*?[]{}~#!;&|<>()`\t\n\r^";
const RESERVED = ["if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done", "in", "function", "select", "time", "coproc"];
const DECLARATIONS = ["declare", "typeset", "export", "readonly", "local", "unset", "unsetenv"];

const chars = (alphabet: string, min: number, max: number) => fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((cs) => cs.join(""));

/** Mostly words from the whitelist alphabet, some with a character from just outside it. */
const word = fc.oneof(
  { weight: 6, arbitrary: chars(INSIDE, 1, 6) },
  { weight: 2, arbitrary: fc.tuple(chars(INSIDE, 0, 3), fc.constantFrom(...OUTSIDE), chars(INSIDE, 0, 3)).map(([a, c, b]) => a + c + b) },
  { weight: 2, arbitrary: fc.constantFrom(...RESERVED, ...DECLARATIONS, "If", "DONE", "timeout", "exports", "git", "ls", "true", ":", ".", "..") },
  { weight: 1, arbitrary: fc.constantFrom("-", "--", "-la", "--x=1", "=", "==", "===", "=a", "a=", "FOO=1", "a==b", "a%", "x@y", "a+:", "g++", "%1", "@a") },
  { weight: 1, arbitrary: fc.constantFrom("", "0", "12", "0x1F", "1.5", "-1", "08") },
);
/** Mostly the single space the shortcut takes, sometimes blanks it refuses. */
const gap = fc.oneof({ weight: 8, arbitrary: fc.constant(" ") }, { weight: 1, arbitrary: fc.constantFrom("  ", "\t", "\n", " \\\n") });
const edge = fc.oneof({ weight: 8, arbitrary: fc.constant("") }, { weight: 1, arbitrary: fc.constantFrom(" ", "\t", "\n", ";") });
const script = fc
  .tuple(edge, fc.array(word, { minLength: 1, maxLength: 6 }), fc.array(gap, { minLength: 5, maxLength: 5 }), edge)
  .map(([lead, words, gaps, trail]) => lead + words.map((w, i) => (i === 0 ? w : gaps[i - 1] + w)).join("") + trail);
/** Words only from the whitelist alphabet joined by single spaces: the shortcut's own ground. */
const plainLooking = fc.array(chars(INSIDE, 1, 8), { minLength: 1, maxLength: 6 }).map((ws) => ws.join(" "));

describe("property: the plain-words shortcut splits as the parser does", () => {
  it("splitScript equals the parser-only split, shortcut taken or not", async () => {
    let shortcut = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(script, plainLooking, fc.constant("")), async (s) => {
        if (splitPlainWords(s)) shortcut++;
        expect(await splitScript(s), JSON.stringify(s)).toEqual(await splitScriptByParser(s));
      }),
      { numRuns: 1500 },
    );
    // The property says nothing unless the shortcut was taken often.
    expect(shortcut).toBeGreaterThan(200);
  }, 60_000);

  it("whatever the shortcut accepts, the parser reads as the same plain command", async () => {
    await fc.assert(
      fc.asyncProperty(plainLooking, async (s) => {
        const fast = splitPlainWords(s);
        if (fast) expect(fast, JSON.stringify(s)).toEqual(await splitScriptByParser(s));
      }),
      { numRuns: 1500 },
    );
  }, 60_000);
});
