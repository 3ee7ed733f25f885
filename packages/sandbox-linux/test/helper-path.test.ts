// Where the helper is said to be decides what every run holds read-only: it must be the directory
// the helper really is in, even when Node names this package through a workspace link.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { locateHelper } from "../src/index.js";

const built = locateHelper();
const packageDir = path.resolve(new URL("..", import.meta.url).pathname);
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-helper-path-")));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

describe.skipIf(built === undefined)(`locateHelper${built === undefined ? " (skipped: no helper built for this machine)" : ""}`, () => {
  it("names the helper in its real directory when the package is loaded through a node_modules link", () => {
    // A node_modules like the repository's, each entry a link to it, this package's included.
    const repoModules = path.resolve(packageDir, "..", "..", "node_modules");
    const modules = path.join(base, "node_modules");
    fs.mkdirSync(path.join(modules, "@shellgate"), { recursive: true });
    for (const name of fs.readdirSync(repoModules)) {
      if (name !== "@shellgate") fs.symlinkSync(path.join(repoModules, name), path.join(modules, name));
    }
    for (const name of fs.readdirSync(path.join(repoModules, "@shellgate"))) {
      fs.symlinkSync(fs.realpathSync(path.join(repoModules, "@shellgate", name)), path.join(modules, "@shellgate", name));
    }
    const link = path.join(modules, "@shellgate", "sandbox-linux");
    const entry = path.join(link, "dist", "index.js");
    const script = `const m = await import(${JSON.stringify(entry)});
      console.log(JSON.stringify({ loadedAs: import.meta.resolve(${JSON.stringify(entry)}), helper: m.locateHelper() }));`;
    // --preserve-symlinks makes Node keep the link in the module's own URL, as it sometimes does
    // without it (seen with the CLI's lazily imported backend in a checkout under /tmp).
    const r = spawnSync(process.execPath, ["--preserve-symlinks", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout) as { loadedAs: string; helper: string };
    // Control: the module really was loaded by the linked name.
    expect(out.loadedAs).toBe(`file://${entry}`);
    expect(out.helper).toBe(built);
    expect(path.dirname(out.helper)).toBe(fs.realpathSync(path.dirname(out.helper)));
    expect(out.helper.startsWith(link)).toBe(false);
  });
});
