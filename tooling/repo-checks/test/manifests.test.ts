import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const packagesDir = path.join(root, "packages");
const names = fs.readdirSync(packagesDir).filter((n) => fs.existsSync(path.join(packagesDir, n, "package.json")));

describe("package manifests", () => {
  it("has exactly the packages ARCHITECTURE.md's table lists (the map stays true)", () => {
    const map = fs.readFileSync(path.join(packagesDir, "..", "ARCHITECTURE.md"), "utf8");
    const listed = [...map.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]!);
    expect(listed.length).toBeGreaterThanOrEqual(10);
    expect(names.sort()).toEqual(listed.sort());
  });

  for (const name of names) {
    it(`@shellgate/${name} publishes one entry with types, files, engines and a README`, () => {
      const pj = JSON.parse(fs.readFileSync(path.join(packagesDir, name, "package.json"), "utf8"));
      expect(pj.name).toBe(`@shellgate/${name}`);
      expect(pj.type).toBe("module");
      expect(pj.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js" });
      expect(pj.files).toContain("dist");
      expect(pj.engines.node).toMatch(/>=\s*20/);
      expect(fs.existsSync(path.join(packagesDir, name, "README.md"))).toBe(true);
      expect(fs.existsSync(path.join(packagesDir, name, "src", "index.ts"))).toBe(true);
    });
  }
});
