import { describe, expect, it } from "vitest";
import { renderTerminalText, TerminalRenderer } from "../src/index.js";

describe("terminal rendering", () => {
  it("collapses carriage-return progress and strips colours", async () => {
    expect(await renderTerminalText("\x1b[31mred\x1b[0m\rR")).toBe("Red");
    expect(await renderTerminalText("[#   ] 25%\r[##  ] 50%\r[####] 100%\r\ndone\r\n")).toBe("[####] 100%\ndone");
  });

  it("applies cursor movement and line erase", async () => {
    expect(await renderTerminalText("hello world\x1b[5D\x1b[Kthere")).toBe("hello there");
    expect(await renderTerminalText("a\r\nb\r\n\x1b[2A\x1b[2Kz")).toBe("z\nb");
  });

  it("joins wrapped lines and accepts bytes fed incrementally, including split UTF-8", async () => {
    const r = new TerminalRenderer({ cols: 5, rows: 3 });
    const bytes = new TextEncoder().encode("abcdefgh é!");
    for (const b of bytes) r.write(new Uint8Array([b]));
    expect(await r.text()).toBe("abcdefgh é!");
    r.dispose();
    expect(await r.text()).toBe("");
  });
});
