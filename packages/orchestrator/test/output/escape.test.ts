import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeForDisplay, hasHiddenCharacters, renderCommand } from "../support/internals.js";

/** Everything the display must never carry raw: C0, DEL, C1, bidi embeddings/overrides/isolates and marks, zero-widths, tags, separators. */
const FORBIDDEN_RAW = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/u;

describe("escapeForDisplay", () => {
  it("makes the approval-spoofing payload visible", () => {
    const payload = "rm -rf ~/important\r\u001b[1A\u001b[2Kls -la";
    expect(FORBIDDEN_RAW.test(payload)).toBe(true); // control: the raw text carries the spoof
    expect(escapeForDisplay(payload)).toBe("rm -rf ~/important\\r\\x1b[1A\\x1b[2Kls -la");
  });

  it("escapes C1 controls, DEL, bidi overrides and isolates, zero-width and tag characters", () => {
    expect(escapeForDisplay("a\u009bb\u007fc")).toBe("a\\x9bb\\x7fc");
    expect(escapeForDisplay("ls \u202eexe.txt\u202c")).toBe("ls \\u202eexe.txt\\u202c");
    expect(escapeForDisplay("\u2066x\u2069\u200b\u200d\ufeff")).toBe("\\u2066x\\u2069\\u200b\\u200d\\ufeff");
    expect(escapeForDisplay("hi\u{e0041}\u{e0042}")).toBe("hi\\u{e0041}\\u{e0042}");
    expect(escapeForDisplay("a\u00a0b\u2028c\tz\n")).toBe("a\\xa0b\\u2028c\\tz\\n");
    expect(escapeForDisplay("x\ud800y")).toBe("x\\ud800y");
  });

  it("escapes unassigned code points, such as U+2065 among the invisible operators (found by the elicitation property)", () => {
    expect(escapeForDisplay("a\u2065b")).toBe("a\\u2065b");
    expect(escapeForDisplay("\ufffe\u{10ffff}")).toBe("\\ufffe\\u{10ffff}");
  });

  it("leaves ordinary text, spaces, quotes, backslashes and non-Latin letters alone", () => {
    const plain = "git commit -m 'fix: ça marche' C:\\path \u65e5\u672c \u{1f600}";
    expect(escapeForDisplay(plain)).toBe(plain);
    expect(hasHiddenCharacters(plain)).toBe(false);
    expect(hasHiddenCharacters("a\rb")).toBe(true);
  });

  it("property: the output never holds a raw control, bidi or invisible format character", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const out = escapeForDisplay(s);
        expect(out).not.toMatch(FORBIDDEN_RAW);
        expect(hasHiddenCharacters(out)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("property: text without hidden characters comes back unchanged", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-ascii" }), (s) => {
        if (!hasHiddenCharacters(s)) expect(escapeForDisplay(s)).toBe(s);
      }),
    );
  });

  it("renderCommand (refusal and approval messages) escapes too", () => {
    expect(renderCommand(["echo", "a\rb"])).not.toMatch(FORBIDDEN_RAW);
    expect(renderCommand(["echo", "a\u001b[2Kb"])).toContain("\\x1b[2K");
  });
});
