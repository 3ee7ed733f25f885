import { existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { COMPILER_MODULE } from "../src/policy/compile-loader.js";

const PKG_DIR = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  name: string;
  exports: Record<string, { types?: string; default?: string }>;
};

describe("the compile module's subpath export", () => {
  const subpath = `.${COMPILER_MODULE.slice(pkg.name.length)}`;

  it("is declared in package.json and points at the compile module", () => {
    expect(COMPILER_MODULE.startsWith(`${pkg.name}/`)).toBe(true);
    const entry = pkg.exports[subpath];
    expect(entry).toEqual({ types: "./dist/policy/compile.d.ts", default: "./dist/policy/compile.js" });
    // the built file is the compile of src/policy/compile.ts
    expect(existsSync(new URL("../src/policy/compile.ts", import.meta.url))).toBe(true);
  });

  // Node (not the test runner) loads the built package the way a consumer or the CLI bundle does:
  // synchronously, by name, from a module that knows nothing of relative paths.
  it.runIf(existsSync(new URL("../dist/policy/compile.js", import.meta.url)))("is required synchronously by the built loader (needs `tsc -b`)", () => {
    const script = `
      const { parsePolicy } = await import(${JSON.stringify(`${PKG_DIR}dist/index.js`)});
      const p = parsePolicy([{ path: "a.rules", source: 'prefix_rule(pattern=["ls"], decision="allow")\\n' }]);
      process.stdout.write(p.evaluate(["ls"]).decision);`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: PKG_DIR, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("allow");
  });
});
