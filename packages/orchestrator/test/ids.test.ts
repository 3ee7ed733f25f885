import { describe, expect, it } from "vitest";
import { randomHex, randomIntBetween, randomUuid } from "../src/ids.js";

describe("randomHex", () => {
  it("gives two lowercase hex digits per byte", () => {
    for (const bytes of [0, 1, 3, 16]) expect(randomHex(bytes)).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
  });

  it("does not repeat itself", () => {
    const seen = new Set(Array.from({ length: 1000 }, () => randomHex(8)));
    expect(seen.size).toBe(1000);
  });
});

describe("randomUuid", () => {
  it("is a version 4, variant 1 UUID", () => {
    for (let i = 0; i < 200; i++) expect(randomUuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe("randomIntBetween", () => {
  it("stays in [min, max) and reaches both ends of a small range", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const n = randomIntBetween(3, 7);
      expect(Number.isInteger(n) && n >= 3 && n < 7).toBe(true);
      seen.add(n);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });
});
