import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HeadTailBuffer } from "../src/index.js";

const bytes = (s: string) => new TextEncoder().encode(s);
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("HeadTailBuffer", () => {
  it("keeps everything under the cap", () => {
    const b = new HeadTailBuffer(16);
    b.push(bytes("hello "));
    b.push(bytes("world"));
    expect(text(b.toBytes())).toBe("hello world");
    expect(b.truncated).toBe(false);
    expect(b.droppedBytes).toBe(0);
  });

  it("keeps head and tail and counts the dropped middle", () => {
    const b = new HeadTailBuffer(10);
    for (const c of "abcdefghijklmnopqrstuvwxyz") b.push(bytes(c));
    expect(text(b.headBytesCopy())).toBe("abcde");
    expect(text(b.tailBytesCopy())).toBe("vwxyz");
    expect(b.droppedBytes).toBe(16);
    expect(b.totalBytes).toBe(26);
    expect(b.retainedBytes).toBe(10);
    expect(b.toText({ marker: true })).toBe("abcde\n... 16 bytes omitted ...\nvwxyz");
  });

  it("a chunk larger than the tail keeps only its last bytes", () => {
    const b = new HeadTailBuffer(8);
    b.push(bytes("ab"));
    b.push(bytes("cdefghijklmnop"));
    expect(text(b.toBytes())).toBe("abcdmnop");
    expect(b.droppedBytes).toBe(8);
  });

  it("keeps chunk tags in arrival order and filters by tag", () => {
    const b = new HeadTailBuffer<"o" | "e">(100);
    b.push(bytes("1"), "o");
    b.push(bytes("2"), "e");
    b.push(bytes("3"), "o");
    expect(b.chunks().map((c) => c.tag)).toEqual(["o", "e", "o"]);
    expect(text(b.toBytes("o"))).toBe("13");
  });

  it("drain returns the content and resets", () => {
    const b = new HeadTailBuffer(4);
    b.push(bytes("abcdef"));
    expect(text(new Uint8Array(Buffer.concat(b.drain().map((c) => c.data))))).toBe("abef");
    expect(b.retainedBytes).toBe(0);
    expect(b.droppedBytes).toBe(0);
  });

  it("decodes invalid UTF-8 lossily", () => {
    const b = new HeadTailBuffer(64);
    b.push(new Uint8Array([0x61, 0xff, 0xfe, 0x62, 0xc3]));
    expect(b.toText()).toBe("a\uFFFD\uFFFDb\uFFFD");
  });

  it("copies what it keeps, so callers may reuse their buffers", () => {
    const b = new HeadTailBuffer(8);
    const scratch = Buffer.from("abcdefghijkl");
    b.push(scratch);
    scratch.fill(0x2e);
    expect(text(b.toBytes())).toBe("abcdijkl");
  });

  it("clone is independent of the original", () => {
    const a = new HeadTailBuffer(8);
    a.push(bytes("abcdefghij"), "x");
    const b = a.clone();
    a.push(bytes("KL"));
    b.push(bytes("mn"));
    expect(text(a.toBytes())).toBe("abcdijKL");
    expect(text(b.toBytes())).toBe("abcdijmn");
    expect(b.droppedBytes).toBe(4);
    expect(b.chunks().map((c) => c.tag)).toEqual(["x", "x", undefined]);
  });

  it("rejects a cap below 2", () => {
    expect(() => new HeadTailBuffer(1)).toThrow(RangeError);
  });

  it("property: never exceeds the cap; head is the stream's start, tail its end", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 64 }), fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 30 }), (cap, chunks) => {
        const b = new HeadTailBuffer(cap);
        const all: number[] = [];
        for (const c of chunks) {
          b.push(c);
          all.push(...c);
          expect(b.retainedBytes).toBeLessThanOrEqual(cap);
        }
        const head = [...b.headBytesCopy()];
        const tail = [...b.tailBytesCopy()];
        expect(head).toEqual(all.slice(0, head.length));
        expect(tail).toEqual(all.slice(all.length - tail.length));
        expect(b.droppedBytes).toBe(all.length - head.length - tail.length);
        if (all.length <= cap) expect([...b.toBytes()]).toEqual(all);
        else expect(b.retainedBytes).toBe(cap);
      }),
    );
  });

  it("property: tags follow their bytes through growth, wrap-around and eviction", () => {
    const tagged = fc.array(fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 3000 }), fc.constantFrom("o", "e")), { maxLength: 40 });
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 20_000 }), tagged, (cap, chunks) => {
        const b = new HeadTailBuffer<"o" | "e">(cap);
        const all: Array<[number, string]> = [];
        for (const [c, tag] of chunks) {
          b.push(c, tag);
          for (const x of c) all.push([x, tag]);
        }
        const kept: Array<[number, string]> = [];
        for (const c of b.chunks()) for (const x of c.data) kept.push([x, c.tag as string]);
        const headLen = Math.min(all.length, b.headBudget);
        const tailLen = kept.length - headLen;
        expect(kept.length).toBe(Math.min(all.length, cap));
        expect(kept.slice(0, headLen)).toEqual(all.slice(0, headLen));
        expect(kept.slice(headLen)).toEqual(all.slice(all.length - tailLen));
        expect(b.droppedBytes).toBe(all.length - kept.length);
      }),
      { numRuns: 60 },
    );
  });
});
