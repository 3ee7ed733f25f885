import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { filterTerminalOutput, MAX_CSI_BYTES, MAX_STRING_BYTES, TerminalOutputFilter } from "../support/internals.js";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const filter = (s: string) => dec(filterTerminalOutput(enc(s)));

/** The same stream cut into the given pieces. */
function inPieces(s: string, cuts: number[]): string {
  const bytes = enc(s);
  const f = new TerminalOutputFilter();
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.byteLength + 1)))].sort((a, b) => a - b)) {
    parts.push(f.push(bytes.subarray(at, cut)));
    at = cut;
  }
  parts.push(f.push(bytes.subarray(at)), f.end());
  return dec(Buffer.concat(parts));
}

describe("TerminalOutputFilter", () => {
  it("removes OSC 52 (clipboard), OSC 8 (hyperlinks) and title changes, with BEL or ST", () => {
    expect(filter("a\u001b]52;c;cm0gLXJmIH4=\u0007b")).toBe("ab");
    expect(filter("\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\")).toBe("click");
    expect(filter("x\u001b]0;pwned title\u0007y\u001b]2;t\u001b\\z")).toBe("xyz");
    expect(filter("x\u009d0;c1 title\u009cy")).toBe("xy"); // C1 OSC and ST sent as UTF-8
  });

  it("removes DCS, SOS, PM and APC strings", () => {
    expect(filter("a\u001bPq#0;2;0;0;0\u001b\\b\u001bXsos\u001b\\c\u001b^pm\u001b\\d\u001b_apc\u001b\\e")).toBe("abcde");
  });

  it("keeps SGR colours, cursor movement and erasing; drops mode changes and terminal queries", () => {
    const kept = "\u001b[31mred\u001b[0m \u001b[1;38;2;10;20;30mrgb\u001b[m\r\u001b[2K\u001b[1A\u001b[10;5H\u001b[K\u001b7\u001b8";
    expect(filter(kept)).toBe(kept);
    expect(filter("a\u001b[?1049hb\u001b[?25lc\u001b[6nd\u001b[>0ce\u001b[21tf\u001b[cg")).toBe("abcdefg");
    expect(filter("a\u001bcb\u001b(0c\u001b#8d\u001bZe")).toBe("abcde"); // reset, charset, DECALN, DECID
  });

  it("drops C0 controls that act on the terminal, keeps text controls and UTF-8", () => {
    expect(filter("a\u0005b\u000ec\u000fd\u0000e")).toBe("abcde"); // ENQ (answerback), SO/SI (charsets), NUL
    expect(filter("tab\there\r\nbell\u0007 back\b é 日本 😀")).toBe("tab\there\r\nbell\u0007 back\b é 日本 😀");
    expect(filter("\u00a0\u00e9")).toBe("\u00a0\u00e9"); // 0xC2 / 0xC3 lead bytes of ordinary letters
  });

  it("bounds what it holds: an overlong CSI is swallowed whole, an unterminated string gives up", () => {
    expect(filter(`a\u001b[${"1;".repeat(MAX_CSI_BYTES)}mb`)).toBe("ab");
    const tail = "visible";
    const out = filter(`a\u001b]52;c;${"A".repeat(MAX_STRING_BYTES)}${tail}`);
    expect(out.startsWith("a")).toBe(true);
    expect(out.endsWith(tail)).toBe(true);
    expect(out.length).toBeLessThan(tail.length + 10);
  });

  it("property: any cutting of the stream into chunks gives the same result", () => {
    const atoms = fc.constantFrom(
      "text ",
      "\u001b]52;c;Zm9v\u0007",
      "\u001b]8;;http://x\u001b\\",
      "\u001b[31m",
      "\u001b[?25l",
      "\u001bP1$r\u001b\\",
      "\u009d0;t\u009c",
      "\u009b1m",
      "é",
      "\r\n",
      "\u001b",
      "\u001b[",
      "\u00c2",
      "\u0007",
    );
    fc.assert(
      fc.property(fc.array(atoms, { maxLength: 30 }), fc.array(fc.nat(), { maxLength: 8 }), (parts, cuts) => {
        const s = parts.join("");
        expect(inPieces(s, cuts)).toBe(filter(s));
      }),
      { numRuns: 2000 },
    );
  });

  it("a stray 0xC2 is dropped, so that removing what follows it cannot join it to a C1 byte (found by the property below)", () => {
    const text = (bytes: number[]) => Buffer.from(filterTerminalOutput(Uint8Array.from(bytes))).toString("latin1");
    // 0xC2 NUL 0x9D: with the NUL removed and the 0xC2 kept, the output was 0xC2 0x9D, an OSC.
    expect(text([0xc2, 0x00, 0x9d])).not.toMatch(/\u00c2\u009d/);
    expect(text([0xc2, 0x1b, 0x5b, 0x3f, 0x31, 0x68, 0x9d, 0x35, 0x32, 0x07])).not.toMatch(/\u00c2[\u0080-\u009f]/);
    // control: a real U+00A0–U+00BF character and plain text around a stray byte pass unchanged
    expect(text([0x61, 0xc2, 0xa0, 0x62])).toBe("a\u00c2\u00a0b");
    expect(text([0x61, 0xc2, 0x41])).toBe("aA");
  });

  it("property: the output never holds an OSC, DCS, APC, PM or SOS introducer", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const out = Buffer.from(filterTerminalOutput(bytes)).toString("latin1");
        expect(out).not.toMatch(/\u001b[\]P_^X]/);
        expect(out).not.toMatch(/\u00c2[\u0090\u0098\u009d\u009e\u009f]/);
      }),
      { numRuns: 3000 },
    );
  });
});
