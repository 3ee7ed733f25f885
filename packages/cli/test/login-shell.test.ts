// Whether a script runs through the user's login shell: `allow_login_shell` in the config and
// `--login` / `--no-login` on exec, mcp and check. A real bash whose profile (in a temporary HOME)
// complains on every start, as a version manager that cannot write its shims does.
import { rmSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BIN, makeScratch, runBin, type Scratch } from "./helpers.js";

const NOISE = "profile-noise: cannot write the shims";
let s: Scratch;
let userConfig: string;
let projectConfig: string;

beforeAll(() => {
  s = makeScratch();
  // bash reads the first of these it finds as a login shell; sh reads .profile.
  for (const file of ["home/.bash_profile", "home/.profile"]) s.write(file, `echo "${NOISE}" >&2\n`);
  userConfig = path.join(s.root, "xdg", "shellgate", "config.toml");
  projectConfig = path.join(s.project, ".shellgate", "config.toml");
});
afterEach(() => {
  rmSync(userConfig, { force: true });
  rmSync(projectConfig, { force: true });
});
afterAll(() => s.cleanup());

// `echo` writes nothing, so it may run without a sandbox: these tests need none to be available.
const exec = (...args: string[]) => runBin(["exec", "--sandbox", "danger-full-access", ...args, "echo from-the-script"], { env: s.env, cwd: s.project });

describe("shellgate exec: login shell or not", () => {
  it("by default the script runs through a login shell, profile and its noise included (compatible)", async () => {
    const r = await exec();
    expect(r.stdout).toContain("from-the-script");
    expect(r.stderr).toContain(NOISE);
    expect(r.code).toBe(0);
  });

  it("--no-login runs it without the profile: no noise", async () => {
    const r = await exec("--no-login");
    expect(r.stdout).toContain("from-the-script");
    expect(`${r.stdout}${r.stderr}`).not.toContain(NOISE);
    expect(r.code).toBe(0);
  });

  it("allow_login_shell = false in the user config turns it off, and --login turns it back on", async () => {
    s.write(userConfig, "allow_login_shell = false\n");
    expect((await exec()).stderr).not.toContain(NOISE);
    expect((await exec("--login")).stderr).toContain(NOISE);
  });

  it("--login and --no-login together are a usage error", async () => {
    const r = await exec("--login", "--no-login");
    expect(r.code).toBe(125);
    expect(r.stderr).toContain("--login and --no-login: give one of them");
  });

  it("an untrusted project may turn the login shell off, never back on over the user's false", async () => {
    s.write(projectConfig, "allow_login_shell = false\n");
    const off = await exec();
    expect(off.code).toBe(0);
    expect(off.stderr).not.toContain(NOISE);

    s.write(userConfig, "allow_login_shell = false\n");
    s.write(projectConfig, "allow_login_shell = true\n");
    const refused = await exec();
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("allow_login_shell = true");
    expect(refused.stdout).not.toContain("from-the-script");
    // Control: the user's own flag decides, and the project's value is not judged.
    const flag = await exec("--login");
    expect(flag.code).toBe(0);
    expect(flag.stderr).toContain(NOISE);
  });
});

describe("shellgate check derives the same argv", () => {
  it("bash -lc by default, bash -c with --no-login", async () => {
    const login = await runBin(["check", "echo hi"], { env: s.env, cwd: s.project });
    expect(login.stdout).toContain("command:   /bin/bash -lc 'echo hi'");
    const plain = await runBin(["check", "--no-login", "echo hi"], { env: s.env, cwd: s.project });
    expect(plain.stdout).toContain("command:   /bin/bash -c 'echo hi'");
  });
});

describe("shellgate mcp", () => {
  async function call(args: string[], toolArgs: Record<string, unknown>): Promise<string> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--cwd", s.project, "--sandbox", "danger-full-access", ...args],
      env: s.env,
      cwd: s.project,
      stderr: "pipe",
    });
    const client = new Client({ name: "shellgate-login-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = (await client.callTool({ name: "shell_command", arguments: toolArgs })) as CallToolResult;
      return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    } finally {
      await client.close();
    }
  }

  it("the model sees the profile's noise by default, and not with --no-login, which refuses login: true", async () => {
    expect(await call([], { command: "echo from-the-script" })).toContain(NOISE);
    const plain = await call(["--no-login"], { command: "echo from-the-script" });
    expect(plain).toContain("from-the-script");
    expect(plain).not.toContain(NOISE);
    expect(await call(["--no-login"], { command: "echo from-the-script", login: true })).toMatch(/login shell is disabled by config/);
  });
});
