import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codexRulesDir, ConfigError, findProjectConfig, loadConfig, parseConfigText, userConfigDir, UsageError } from "../src/index.js";

let root: string;
let env: Record<string, string>;
let project: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "sg-config-"));
  env = { HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "xdg") };
  project = path.join(root, "project");
  mkdirSync(path.join(project, "src"), { recursive: true });
  mkdirSync(env["HOME"]!, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe("config paths", () => {
  it("uses XDG_CONFIG_HOME, then ~/.config; SHELLGATE_CONFIG_DIR wins", () => {
    expect(userConfigDir({ HOME: "/h", XDG_CONFIG_HOME: "/x" }, "linux")).toBe("/x/shellgate");
    expect(userConfigDir({ HOME: "/h" }, "linux")).toBe("/h/.config/shellgate");
    expect(userConfigDir({ HOME: "/h", XDG_CONFIG_HOME: "relative" }, "linux")).toBe("/h/.config/shellgate");
    expect(userConfigDir({ HOME: "/h", SHELLGATE_CONFIG_DIR: "/s" }, "linux")).toBe("/s");
  });
  it("reads Codex rules from CODEX_HOME or ~/.codex", () => {
    expect(codexRulesDir({ HOME: "/h" })).toBe("/h/.codex/rules");
    expect(codexRulesDir({ HOME: "/h", CODEX_HOME: "/c" })).toBe("/c/rules");
  });
});

describe("loadConfig", () => {
  it("applies the documented defaults when no file exists", async () => {
    const config = await loadConfig({ cwd: project }, env);
    expect(config.approvalPolicy).toBe("on-request");
    expect(config.sandboxPolicy).toMatchObject({ mode: "workspace-write", networkAccess: false, writableRoots: [] });
    expect(config.rules).toEqual([]);
    expect(config.configFiles).toEqual([]);
    // `shellgate exec` gets a 10-minute timeout unless told otherwise.
    expect(config.timeoutMs).toBe(600_000);
    expect(config.userRulesFile).toBe(path.join(root, "xdg", "shellgate", "rules", "default.rules"));
    expect(config.protectedPaths).toContain(path.join(project, ".shellgate"));
    // A command that could rewrite policy-check's compiled-policy cache would change what it reports.
    expect(config.protectedPaths).toContain(path.join(root, "home", ".cache", "shellgate", "execpolicy"));
  });

  it("takes the timeout as a duration (`timeout = \"10m\"`) or a number of milliseconds, under either name; a later file's wins", async () => {
    const userFile = path.join(root, "xdg", "shellgate", "config.toml");
    for (const [text, ms] of [['timeout = "90s"', 90_000], ["timeout = 250", 250], ['timeout_ms = "1m30s"', 90_000], ["timeout_ms = 500", 500], ['timeout = "0s"', 0]] as const) {
      write(userFile, `${text}\n`);
      expect((await loadConfig({ cwd: project }, env)).timeoutMs, text).toBe(ms);
    }
    // a flag's value (already parsed by parseDuration) wins over the file's
    expect((await loadConfig({ cwd: project, timeoutMs: 7 }, env)).timeoutMs).toBe(7);
    write(userFile, "");
  });

  it("layers flags over the (trusted) project file over the user file", async () => {
    const userFile = write(
      path.join(root, "xdg", "shellgate", "config.toml"),
      `approval_policy = "untrusted"\nsandbox_mode = "read-only"\ntimeout_ms = 500\n[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`,
    );
    const projectFile = write(path.join(project, ".shellgate", "config.toml"), 'sandbox_mode = "workspace-write"\n[sandbox_workspace_write]\nwritable_roots = ["cache"]\nnetwork_access = true\n');
    const fromFiles = await loadConfig({ cwd: project }, env);
    expect(fromFiles.configFiles).toEqual([userFile, projectFile]);
    expect(fromFiles.approvalPolicy).toBe("untrusted");
    expect(fromFiles.timeoutMs).toBe(500);
    // Relative paths in a project file resolve against the project root, not the cwd.
    expect(fromFiles.sandboxPolicy).toMatchObject({ mode: "workspace-write", networkAccess: true, writableRoots: [path.join(project, "cache")] });

    const flagged = await loadConfig({ cwd: project, approvalPolicy: "never", network: false, writableRoots: ["out"] }, env);
    expect(flagged.approvalPolicy).toBe("never");
    expect(flagged.sandboxPolicy).toMatchObject({ networkAccess: false, writableRoots: [path.join(project, "cache"), path.join(project, "out")] });
  });

  it("collects rules: user dir, Codex dir, config files, then flags", async () => {
    const b = write(path.join(root, "xdg", "shellgate", "rules", "b.rules"), "");
    const a = write(path.join(root, "xdg", "shellgate", "rules", "a.rules"), "");
    write(path.join(root, "xdg", "shellgate", "rules", "notes.txt"), "");
    const codex = write(path.join(env["HOME"]!, ".codex", "rules", "default.rules"), "");
    write(path.join(project, ".shellgate", "config.toml"), 'rules = ["policy/team.rules"]\n');
    // A project's rules files are read only when the user trusts the project (config-trust.test.ts).
    write(path.join(root, "xdg", "shellgate", "config.toml"), `[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`);
    const config = await loadConfig({ cwd: project, rules: ["extra.rules"] }, env);
    expect(config.rules).toEqual([
      { file: a, origin: "user" },
      { file: b, origin: "user" },
      { file: codex, origin: "codex" },
      { file: path.join(project, "policy", "team.rules"), origin: "config" },
      { file: path.join(project, "extra.rules"), origin: "flag" },
    ]);
    const only = await loadConfig({ cwd: project, rules: ["extra.rules"], noDefaultRules: true }, env);
    expect(only.rules).toEqual([{ file: path.join(project, "extra.rules"), origin: "flag" }]);
  });

  it("expands ~/ in paths to the user's home", async () => {
    write(path.join(root, "xdg", "shellgate", "config.toml"), 'rules = ["~/team.rules"]\n[sandbox_workspace_write]\nwritable_roots = ["~/cache"]\n');
    const config = await loadConfig({ cwd: project }, env);
    expect(config.rules).toEqual([{ file: path.join(env["HOME"]!, "team.rules"), origin: "config" }]);
    expect(config.sandboxPolicy).toMatchObject({ writableRoots: [path.join(env["HOME"]!, "cache")] });
  });

  it("skips the Codex rules when codex_rules = false", async () => {
    write(path.join(env["HOME"]!, ".codex", "rules", "default.rules"), "");
    write(path.join(root, "xdg", "shellgate", "config.toml"), "codex_rules = false\n");
    expect((await loadConfig({ cwd: project }, env)).rules).toEqual([]);
  });

  it("maps the environment table to the orchestrator's names", async () => {
    write(path.join(root, "xdg", "shellgate", "config.toml"), '[shell_environment_policy]\ninherit = "core"\ninclude_only = ["PATH"]\nset = { A = "1" }\n');
    const config = await loadConfig({ cwd: project }, env);
    expect(config.shellEnvironmentPolicy).toEqual({ inherit: "core", includeOnly: ["PATH"], set: { A: "1" } });
  });

  it("rejects contradictory flags with a usage error naming the flag", async () => {
    await expect(loadConfig({ cwd: project, sandboxMode: "read-only", network: true }, env)).rejects.toThrow(UsageError);
    await expect(loadConfig({ cwd: project, sandboxMode: "read-only", network: true }, env)).rejects.toThrow(/--network/);
    await expect(loadConfig({ cwd: project, sandboxMode: "danger-full-access", writableRoots: ["x"] }, env)).rejects.toThrow(/--writable-root/);
    await expect(loadConfig({ cwd: path.join(root, "missing") }, env)).rejects.toThrow(/--cwd/);
  });

  it("names the file and line of a TOML syntax error, and the field of a bad value", async () => {
    const bad = write(path.join(root, "xdg", "shellgate", "config.toml"), 'approval_policy = "on-request"\nsandbox_mode = = 1\n');
    await expect(loadConfig({ cwd: project }, env)).rejects.toThrow(ConfigError);
    await expect(loadConfig({ cwd: project }, env)).rejects.toThrow(`${bad}:2:`);
    expect(() => parseConfigText("c.toml", 'approval_policy = "sometimes"\n')).toThrow(/^c\.toml:1:19: `approval_policy`/);
    expect(() => parseConfigText("c.toml", "aproval_policy = 1\n")).toThrow(/c\.toml/);
    expect(() => parseConfigText("c.toml", "[sandbox_workspace_write]\nnetwork = true\n")).toThrow(/sandbox_workspace_write/);
  });

  it("reads the project file in the workspace only, never above it", () => {
    expect(findProjectConfig(project)).toBeNull();
    const file = write(path.join(project, ".shellgate", "config.toml"), "");
    expect(findProjectConfig(project)).toBe(file);
    // An ancestor's `.shellgate` (a shared temp directory, an enclosing project) does not configure a subdirectory.
    expect(findProjectConfig(path.join(project, "src"))).toBeNull();
  });
});
