import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalizeLoose, isPathWithin, outermostPaths } from "../src/paths.js";
import { layout, tempDir } from "./helpers.js";

describe("isPathWithin", () => {
  it.each<[string, string, boolean]>([
    ["/a", "/a", true],
    ["/a/b", "/a", true],
    ["/a/b/c", "/a", true],
    ["/ab", "/a", false],
    ["/a/..b", "/a", true],
    ["/", "/a", false],
    ["/b", "/a", false],
    ["/anything", "/", true],
  ])("%s within %s → %s", (child, parent, expected) => {
    expect(isPathWithin(child, parent)).toBe(expected);
  });
});

describe("outermostPaths", () => {
  it("sorts, de-duplicates and drops nested paths, without confusing prefixes of names", () => {
    expect(outermostPaths(["/a/b", "/a-b", "/a", "/a", "/ab/c", "/a/b/c"])).toEqual(["/a", "/a-b", "/ab/c"]);
  });
});

describe("canonicalizeLoose", () => {
  it("resolves the existing prefix through symlinks and keeps the missing tail", async () => {
    const base = await tempDir();
    await layout(base, { "real/": "" });
    await fs.symlink(path.join(base, "real"), path.join(base, "link"));
    expect(await canonicalizeLoose(path.join(base, "link"))).toBe(path.join(base, "real"));
    expect(await canonicalizeLoose(path.join(base, "link", "not", "yet"))).toBe(path.join(base, "real", "not", "yet"));
  });

  it("survives a symlink loop", async () => {
    const base = await tempDir();
    await fs.symlink(path.join(base, "loop"), path.join(base, "loop"));
    expect(await canonicalizeLoose(path.join(base, "loop"))).toBe(path.join(base, "loop"));
  });
});
