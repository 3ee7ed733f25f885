import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prewarmOverride } from "../../../src/commands/mcp/options.js";
import { loadConfig, UsageError } from "../../../src/index.js";

let root: string;
let env: Record<string, string>;
let project: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "sg-prewarm-"));
  env = { HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "xdg") };
  project = path.join(root, "project");
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("prewarm_sandboxes and --prewarm / --no-prewarm", () => {
  it("is on by default, off with prewarm_sandboxes = false, and the flag wins over the file", async () => {
    expect((await loadConfig({ cwd: project }, env)).prewarmSandboxes).toBe(true);
    const file = path.join(root, "xdg", "shellgate", "config.toml");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "prewarm_sandboxes = false\n");
    expect((await loadConfig({ cwd: project }, env)).prewarmSandboxes).toBe(false);
    expect((await loadConfig({ cwd: project, ...prewarmOverride({ prewarm: true }) }, env)).prewarmSandboxes).toBe(true);
    writeFileSync(file, "prewarm_sandboxes = true\n");
    expect((await loadConfig({ cwd: project, ...prewarmOverride({ "no-prewarm": true }) }, env)).prewarmSandboxes).toBe(false);
  });

  it("takes one of the two flags, not both", () => {
    expect(prewarmOverride({})).toEqual({});
    expect(() => prewarmOverride({ prewarm: true, "no-prewarm": true })).toThrow(UsageError);
  });
});
