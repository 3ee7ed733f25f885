import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isPathWithin, outermostPaths, traceSymlinks } from "../src/paths.js";
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

describe("traceSymlinks", () => {
  it("resolves through symlinks, keeps a missing tail as written and reports each link met", async () => {
    const base = await tempDir();
    await layout(base, { "real/sub/": "" });
    await fs.symlink(path.join(base, "real"), path.join(base, "link"));
    await fs.symlink("real/sub", path.join(base, "rel-link"));
    expect(await traceSymlinks(path.join(base, "link", "not", "yet"))).toEqual({
      real: path.join(base, "real", "not", "yet"),
      links: [path.join(base, "link")],
    });
    expect(await traceSymlinks(path.join(base, "rel-link"))).toEqual({ real: path.join(base, "real", "sub"), links: [path.join(base, "rel-link")] });
    expect(await traceSymlinks(path.join(base, "real"))).toEqual({ real: path.join(base, "real"), links: [] });
  });

  it("takes `..` after a symlink physically, as the kernel does", async () => {
    const base = await tempDir();
    await layout(base, { "a/b/": "", "c/": "" });
    await fs.symlink(path.join(base, "a", "b"), path.join(base, "c", "to-b"));
    expect((await traceSymlinks(`${base}/c/to-b/../x`)).real).toBe(path.join(base, "a", "x"));
  });

  it("survives a symlink loop", async () => {
    const base = await tempDir();
    await fs.symlink(path.join(base, "loop"), path.join(base, "loop"));
    const traced = await traceSymlinks(path.join(base, "loop"));
    expect(traced.real).toBe(path.join(base, "loop"));
    expect(traced.links[0]).toBe(path.join(base, "loop"));
  });
});
