// The launcher's bundle format and V8 flags per command, checked in real processes: the built
// `runBundle` runs small bundles (one keeps ~10 MB alive and reports how large V8's young generation
// became).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLE_HEADER, v8FlagsFor } from "../../src/launch/run-bundle.js";
import { makeScratch } from "../helpers.js";

const scratch = makeScratch();
afterAll(() => scratch.cleanup());
const RUN_BUNDLE = fileURLToPath(new URL("../../dist/launch/run-bundle.js", import.meta.url));

/** Run `main.mjs`, which runs `bundle` through the built launcher as the `command` variant. */
function runThroughLauncher(bundle: string, command: string, env: Record<string, string> = { SHELLGATE_CODE_CACHE: "off" }) {
  const main = path.join(scratch.root, "main.mjs");
  fs.writeFileSync(main, `import { runBundle } from ${JSON.stringify(pathToFileURL(RUN_BUNDLE).href)};\nrunBundle(${JSON.stringify(bundle)}, (s) => import(s));\n`);
  return spawnSync(process.execPath, [main, command, "--", "/bin/true"], { env: { ...scratch.env, ...env }, encoding: "utf8" });
}

/** The young generation's size after a run of `command`'s variant that allocates much and keeps it. */
function youngGenerationAfterRun(command: string): number {
  const bundle = path.join(scratch.root, "bundle.cjs");
  fs.writeFileSync(
    bundle,
    [
      BUNDLE_HEADER,
      "const keep = []; for (let i = 0; i < 300000; i++) keep.push({ i, s: 'x' + i });",
      "const space = require('node:v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');",
      "process.stdout.write(String(space.space_size) + ' ' + keep.length);",
      "})",
    ].join("\n"),
  );
  const r = runThroughLauncher(bundle, command);
  expect(r.stderr).toBe("");
  const [size, kept] = r.stdout.split(" ");
  expect(kept).toBe("300000");
  return Number(size);
}

describe("the V8 flags of a CLI start", () => {
  it("keep the young generation at its first size for one-shot commands, not for the MCP server", () => {
    for (const variant of ["exec", "sandbox", "check", "doctor", "policy", "other"]) {
      expect(v8FlagsFor(variant)).toBe("--liftoff-only --semi-space-growth-factor=1");
    }
    expect(v8FlagsFor("mcp")).toBe("--liftoff-only");
  });

  it("take effect in the process that runs the bundle (the server's young generation grows as V8's default does)", () => {
    const oneShot = youngGenerationAfterRun("exec");
    const server = youngGenerationAfterRun("mcp");
    // V8 starts at 1 MB per semi-space (2 MB in all) and doubles up to 16 MB per semi-space.
    expect(oneShot).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(server).toBeGreaterThan(4 * 1024 * 1024);
  });
});

describe("the bundle the launcher runs", () => {
  it("is the built bundle, in the wrapper's form (no shebang, not executable on its own)", () => {
    const built = fileURLToPath(new URL("../../dist/bundle/shellgate.cjs", import.meta.url));
    const text = fs.readFileSync(built, "latin1");
    expect(text.startsWith(`${BUNDLE_HEADER}\n`)).toBe(true);
    expect(text.endsWith("\n})")).toBe(true);
    expect(fs.statSync(built).mode & 0o111).toBe(0);
  });

  it("refuses a file that does not start with the wrapper, naming it, and runs nothing of it", () => {
    const bundle = path.join(scratch.root, "old-style.cjs");
    fs.writeFileSync(bundle, "#!/usr/bin/env node\nprocess.stdout.write('ran');\n");
    const r = runThroughLauncher(bundle, "exec");
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`BundleFormatError: ${bundle} does not start with the launcher's wrapper; rebuild it`);
  });

  it("runs from a code cache read into the bundle's own buffer: the second start uses it, with the same output", () => {
    const bundle = path.join(scratch.root, "cached.cjs");
    // Big enough that its cache is smaller than the source, so the cache is read into the source's buffer.
    const filler = `/*${"x".repeat(64 * 1024)}*/`;
    fs.writeFileSync(bundle, `${BUNDLE_HEADER}\n${filler}\nfunction f(n) { return n * 2; }\nprocess.stdout.write(String(f(21)));\n})`);
    const env = { XDG_CACHE_HOME: path.join(scratch.root, "cache") };
    const outcome = (r: ReturnType<typeof runThroughLauncher>) => ({ status: r.status, stdout: r.stdout, stderr: r.stderr });
    expect(outcome(runThroughLauncher(bundle, "exec", env))).toEqual({ status: 0, stdout: "42", stderr: "" });
    const dir = path.join(scratch.root, "cache", "shellgate", "v8");
    const [cache] = fs.readdirSync(dir);
    expect(fs.statSync(path.join(dir, cache as string)).size).toBeLessThan(fs.statSync(bundle).size);
    const mtime = fs.statSync(path.join(dir, cache as string)).mtimeMs;
    expect(outcome(runThroughLauncher(bundle, "exec", env))).toEqual({ status: 0, stdout: "42", stderr: "" });
    // Used as it is: a refused or unreadable cache would have been written again at exit.
    expect(fs.statSync(path.join(dir, cache as string)).mtimeMs).toBe(mtime);
  });
});
