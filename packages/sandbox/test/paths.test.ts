import fs from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
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
    ["/a/b/", "/a", true],
    ["/a/../b", "/a", false],
    ["/a/./b", "/a/", true],
    ["/a//b", "/a", true],
    ["/a/b/..", "/a/b", false],
  ])("%s within %s → %s", (child, parent, expected) => {
    expect(isPathWithin(child, parent)).toBe(expected);
  });

  // The prefix test for normalised paths must answer what the definition by `path.relative` does,
  // for every kind of path (normalised or not, nested, siblings sharing a prefix, `.`/`..`, `//`).
  it("agrees with the path.relative definition on arbitrary absolute paths", () => {
    const byRelative = (child: string, parent: string) => {
      if (child === parent) return true;
      const rel = path.relative(parent, child);
      return rel !== "" && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
    };
    const component = fc.constantFrom("a", "b", "ab", "a-b", "..b", ".", "..", "", "c.d");
    const absolute = fc.array(component, { maxLength: 5 }).map((parts) => `/${parts.join("/")}`);
    fc.assert(
      fc.property(absolute, absolute, (child, parent) => {
        expect(isPathWithin(child, parent)).toBe(byRelative(child, parent));
        expect(isPathWithin(`${parent}/${child.slice(1)}`, parent)).toBe(byRelative(`${parent}/${child.slice(1)}`, parent));
      }),
      { numRuns: 5000 },
    );
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
