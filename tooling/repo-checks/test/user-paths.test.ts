// Protected per-user paths are a security invariant: the locations a sandbox holds read-only must be
// the ones the host side actually reads. Only @shellgate/user-paths may derive them from the
// environment; any other package that names one of these variables or the cache folder computes a
// second copy that can drift from the protected one.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const packagesDir = path.join(root, "packages");

/**
 * String literals (not comments or prose) that only a per-user path computation needs: the variables
 * that move shellgate's and Codex's directories, and a `.cache` joined with a shellgate folder.
 */
const PATH_INPUTS = /["'](XDG_CONFIG_HOME|XDG_CACHE_HOME|CODEX_HOME|SHELLGATE_CONFIG_DIR|SHELLGATE_POLICY_CACHE_DIR)["']|["']\.cache["'].*["']shellgate/;

function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mts|js|mjs)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

describe("per-user paths have one home", () => {
  it("no package but user-paths derives a per-user path from the environment", () => {
    const offenders: string[] = [];
    for (const pkg of fs.readdirSync(packagesDir)) {
      const src = path.join(packagesDir, pkg, "src");
      if (pkg === "user-paths" || !fs.existsSync(src)) continue;
      for (const file of sources(src)) {
        fs.readFileSync(file, "utf8").split("\n").forEach((line, i) => {
          if (PATH_INPUTS.test(line)) offenders.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(offenders).toEqual([]);
  });

  it("the check sees a computation written the usual way (control)", () => {
    expect(PATH_INPUTS.test(`const xdg = env["XDG_CACHE_HOME"];`)).toBe(true);
    expect(PATH_INPUTS.test(`path.join(home, ".cache", "shellgate")`)).toBe(true);
    expect(PATH_INPUTS.test(`// \`$XDG_CACHE_HOME/shellgate\``)).toBe(false);
    // a list of folder names under home that tools use is not a path computation
    expect(PATH_INPUTS.test(`const BASES = [".cache", ".config", ".local/share"];`)).toBe(false);
  });
});
