// The `[network]` tables and `--allow-domain`: merged, normalised, located when wrong, and a project
// that is not trusted may only add denies.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, UntrustedProjectConfigError, UsageError } from "../src/index.js";

let root: string;
let env: Record<string, string>;
let project: string;
let userFile: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "sg-config-net-"));
  env = { HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "xdg") };
  project = path.join(root, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(env["HOME"]!, { recursive: true });
  userFile = path.join(root, "xdg", "shellgate", "config.toml");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe("network grants in the configuration", () => {
  it("merges the user's table, the project's denies and --allow-domain, normalised, first origin kept", async () => {
    write(userFile, '[network]\nallow = ["Registry.EXAMPLE.org.", "git.example.com"]\ndeny = ["evil.test"]\n');
    const projectFile = write(path.join(project, ".shellgate", "config.toml"), '[network]\ndeny = ["tracker.test"]\n');
    const config = await loadConfig({ cwd: project, allowDomains: ["git.example.com", "pypi.example.org:443"] }, env);
    expect(config.network.allow).toEqual([
      { host: "registry.example.org", origin: `${userFile} [network] allow` },
      { host: "git.example.com", origin: `${userFile} [network] allow` },
      { host: "pypi.example.org", origin: "--allow-domain" },
    ]);
    expect(config.network.deny).toEqual([
      { host: "evil.test", origin: `${userFile} [network] deny` },
      { host: "tracker.test", origin: `${projectFile} [network] deny` },
    ]);
  });

  it("a host the proxy could not match is an error at its file:line:col, or a usage error for the flag", async () => {
    write(userFile, '[network]\nallow = [\n  "ok.test",\n  "*.git.example.com",\n]\n');
    const error = await loadConfig({ cwd: project }, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(`${userFile}:4:3: \`network.allow\`: "*.git.example.com": a host must be a specific host; wildcards are not allowed`);
    rmSync(userFile);
    await expect(loadConfig({ cwd: project, allowDomains: ["https://x.test/"] }, env)).rejects.toBeInstanceOf(UsageError);
  });

  it("a project that is not trusted may not grant a host, and is told which key and how to trust it", async () => {
    write(userFile, '[network]\nallow = ["git.example.com"]\n');
    write(path.join(project, ".shellgate", "config.toml"), '[network]\nallow = ["git.example.com", "exfil.test"]\n');
    const error = await loadConfig({ cwd: project }, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UntrustedProjectConfigError);
    expect((error as Error).message).toContain("network.allow");
    expect((error as Error).message).toContain("exfil.test");
    // Trusted, the same file applies.
    write(userFile, `[network]\nallow = ["git.example.com"]\n\n[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`);
    const config = await loadConfig({ cwd: project }, env);
    expect(config.network.allow.map((e) => e.host)).toEqual(["git.example.com", "exfil.test"]);
  });
});
