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

describe("TerminalOutputFilter with promptSafe (a prompt may follow the output)", () => {
  const safe = (s: string) => dec(filterTerminalOutput(enc(s), { promptSafe: true }));

  it("drops cursor movement, erasure, scrolling, scroll regions, save/restore and index; keeps SGR and CR", () => {
    // The redraw attack: up three lines, erase them, draw a fake prompt where the real one was.
    const attack = "progress\u001b[3A\u001b[J\u001b[2K\u001b[1;1H\u001b[5;10f\u001b[3d\u001b[7G\u001b[2S\u001b[1T\u001b[1;5r\u001b[s\u001b[u\u001b7\u001b8\u001bM\u001bD\u001bE\u001b[4B\u001b[2C\u001b[1D\u001b[2E\u001b[2F\u001b[3X\u001b[2e\u001b[2a\u001b[4`fake";
    expect(safe(attack)).toBe("progressfake");
    // CONTROL: without promptSafe, cursor movement, erasure and save/restore reach the terminal.
    expect(filter(attack)).toBe("progress\u001b[3A\u001b[J\u001b[2K\u001b[1;1H\u001b[5;10f\u001b[3d\u001b[7G\u001b7\u001b8\u001bM\u001bD\u001bE\u001b[4B\u001b[2C\u001b[1D\u001b[2E\u001b[2F\u001b[3X\u001b[2e\u001b[2a\u001b[4`fake");
    const kept = "\u001b[31mred\u001b[0m \u001b[1;38;2;10;20;30mrgb\u001b[m 50%\r 60%\r\n\tx\by";
    expect(safe(kept)).toBe(kept);
  });

  it("drops SGR 8 (conceal), alone or among other parameters, but keeps colour values that are 8", () => {
    expect(safe("a\u001b[8mhidden")).toBe("ahidden");
    expect(safe("\u001b[1;8;31mx")).toBe("\u001b[1;31mx");
    expect(safe("\u001b[08mx")).toBe("x");
    expect(safe("\u001b[38;5;8mgrey\u001b[48;2;8;8;8mbg\u001b[38:5:8mz")).toBe("\u001b[38;5;8mgrey\u001b[48;2;8;8;8mbg\u001b[38:5:8mz");
    expect(safe("\u001b[38;5;8;8mx")).toBe("\u001b[38;5;8mx");
    // CONTROL: the plain filter passes conceal.
    expect(filter("a\u001b[8mhidden")).toBe("a\u001b[8mhidden");
  });

  it("property: the output holds no escape but SGR without conceal, and the cursor never moves up", () => {
    const atoms = fc.oneof(
      fc.constantFrom("\u001b[", "\u001b", "8", ";", "m", "A", "H", "J", "K", "7", "M", "r", "s", "5", "38", "2", "\r", "\n", "\b", "x"),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(atoms, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 6 }), (parts, cuts) => {
        const s = parts.join("");
        const out = safe(s);
        const f = new TerminalOutputFilter({ promptSafe: true });
        const bytes = enc(s);
        const pieces: Uint8Array[] = [];
        let at = 0;
        for (const cut of [...new Set(cuts.map((c) => c % (bytes.byteLength + 1)))].sort((a, b) => a - b)) {
          pieces.push(f.push(bytes.subarray(at, cut)));
          at = cut;
        }
        pieces.push(f.push(bytes.subarray(at)), f.end());
        expect(dec(Buffer.concat(pieces))).toBe(out);
        for (const m of out.matchAll(/\u001b(\[[0-9;:]*)?(.?)/g)) {
          expect(m[1], JSON.stringify(out)).toBeDefined();
          expect(m[2]).toBe("m");
          const params = m[1]!.slice(1).split(";");
          for (let i = 0; i < params.length; i++) {
            const n = Number(params[i]!.split(":")[0] || "0");
            if ((n === 38 || n === 48 || n === 58) && !params[i]!.includes(":")) i += params[i + 1] === "5" ? 2 : params[i + 1] === "2" ? 4 : 0;
            else expect(n).not.toBe(8);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
