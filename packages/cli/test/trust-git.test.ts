// git through the committed bin: what git runs or reads for the workspace's repository is held
// read-only for a sandboxed `shellgate exec`, and a repository the command creates is reported to
// the person at the end of the run. Each control makes the same move without the sandbox and shows
// the planted code really runs on the host's next git command.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, isolatedGitEnv, realSandboxSkip, runBin, scratchDirs, type RunResult } from "./helpers.js";

const sandboxSkip = await realSandboxSkip();
const gitSkip = spawnSync("git", ["--version"]).status === 0 ? undefined : "git is not installed";
const skip = sandboxSkip ?? gitSkip;

const dirs = scratchDirs("sg-trustgit");
const scratch = dirs.make;
const envFor = isolatedGitEnv;

const exec = (args: string[], cwd: string, env: Record<string, string>): Promise<RunResult> =>
  runBin(["exec", "--approval-policy", "never", ...args], { cwd, env });
const host = (script: string, cwd: string, env: Record<string, string>) => spawnSync("/bin/sh", ["-c", script], { cwd, env, encoding: "utf8" });
const commit = "git -c user.name=t -c user.email=t@example.test commit -q --allow-empty -m x";

/** `<base>/ws`, a git repository with `config` appended to its `.git/config`. */
function workspace(label: string, config = ""): { base: string; ws: string; env: Record<string, string>; marker: string } {
  const base = scratch(label);
  const ws = path.join(base, "ws");
  fs.mkdirSync(ws);
  const env = envFor(base);
  expect(host("git init -q", ws, env).status).toBe(0);
  fs.appendFileSync(path.join(ws, ".git", "config"), config);
  return { base, ws, env, marker: path.join(base, "PWNED") };
}

describe.skipIf(skip !== undefined)(`git through shellgate exec${skip ? ` (skipped: ${skip})` : ""}`, () => {
  afterAll(dirs.cleanup);

  it("a husky hooks directory (core.hooksPath) cannot get a hook that the host's next commit would run", async () => {
    const plant = (marker: string) => `mkdir -p .husky/_ && printf '#!/bin/sh\\ntouch ${marker}\\n' > .husky/_/pre-commit && chmod +x .husky/_/pre-commit`;
    // control: without the sandbox the hook lands, and the host's commit runs it
    const control = workspace("husky-control", "[core]\n\thooksPath = .husky/_\n");
    const unsandboxed = await exec(["--sandbox", "danger-full-access", plant(control.marker)], control.ws, control.env);
    expect(unsandboxed.code, unsandboxed.stderr).toBe(0);
    expect(host(commit, control.ws, control.env).status).toBe(0);
    expect(fs.existsSync(control.marker)).toBe(true);

    const { ws, env, marker } = workspace("husky", "[core]\n\thooksPath = .husky/_\n");
    const r = await exec([plant(marker)], ws, env);
    expect(r.code).not.toBe(0);
    expect(fs.existsSync(path.join(ws, ".husky", "_", "pre-commit"))).toBe(false);
    expect(host(commit, ws, env).status).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("an included config file in the worktree cannot be given a core.fsmonitor", async () => {
    const config = "[include]\n\tpath = ../team.gitconfig\n";
    const plant = (marker: string) => `printf '[core]\\n\\tfsmonitor = touch ${marker}\\n' >> team.gitconfig`;
    const control = workspace("include-control", config);
    fs.writeFileSync(path.join(control.ws, "team.gitconfig"), "");
    expect((await exec(["--sandbox", "danger-full-access", plant(control.marker)], control.ws, control.env)).code).toBe(0);
    host("git status --short", control.ws, control.env);
    expect(fs.existsSync(control.marker)).toBe(true);

    const { ws, env, marker } = workspace("include", config);
    fs.writeFileSync(path.join(ws, "team.gitconfig"), "");
    const r = await exec([plant(marker)], ws, env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Read-only file system|Permission denied/);
    expect(fs.readFileSync(path.join(ws, "team.gitconfig"), "utf8")).toBe("");
    host("git status --short", ws, env);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a config include reached through a symlink in the worktree refuses the run, naming key, file and link", async () => {
    const { ws, env } = workspace("include-link", "[include]\n\tpath = ../team.gitconfig\n");
    fs.writeFileSync(path.join(ws, "real.gitconfig"), "");
    fs.symlinkSync("real.gitconfig", path.join(ws, "team.gitconfig"));
    const r = await exec(["--", "true"], ws, env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("include.path");
    expect(r.stderr).toContain(path.join(ws, ".git", "config"));
    expect(r.stderr).toContain(path.join(ws, "team.gitconfig"));
  });

  it("a repository the command creates is reported on stderr (control: the host's git status runs its fsmonitor)", async () => {
    const { ws, env, marker } = workspace("new-repo");
    const r = await exec([`git init -q sub && git -C sub config core.fsmonitor 'touch ${marker}'`], ws, env);
    expect(r.code, r.stderr).toBe(0);
    const sub = path.join(ws, "sub");
    expect(r.stderr).toContain(`the command created a git repository at ${sub}`);
    expect(r.stderr).toContain("would run on your next git command there");
    // control: what the report warns about is real
    host("git status --short", sub, env);
    expect(fs.existsSync(marker)).toBe(true);
  });

  it("a repository whose directory name holds terminal sequences is named with them escaped", async () => {
    const { ws, env } = workspace("new-repo-escape");
    // The command chooses the name: an OSC title sequence and a newline that would forge a line.
    const r = await exec([`d=$(printf 'x\\033]0;owned\\007\\nshellgate exec: all clear'); mkdir -p "$d" && git init -q "$d"`], ws, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("the command created a git repository at");
    expect(r.stderr).not.toContain("\u001b");
    expect(r.stderr).not.toContain("\u0007");
    expect(r.stderr.split("\n").filter((line) => line.startsWith("shellgate exec: all clear"))).toEqual([]);
    // control: the directory really has that name on disk
    expect(fs.readdirSync(ws).some((name) => name.includes("\u001b]0;owned"))).toBe(true);
  });

  it("--json carries the report as runRepositories; a run that creates none reports nothing", async () => {
    const { ws, env } = workspace("new-repo-json");
    const r = await exec(["--json", "mkdir -p a/b && git init -q a/b"], ws, env);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { runRepositories?: { repositories: Array<{ path: string; change: string }>; complete: boolean } };
    expect(result.runRepositories).toMatchObject({ complete: true, repositories: [{ path: path.join(ws, "a", "b"), change: "created" }] });
    const quiet = await exec(["--json", "mkdir -p c && touch c/file"], ws, env);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(JSON.parse(quiet.stdout)).not.toHaveProperty("runRepositories");
    expect(quiet.stderr).not.toContain("git repository");
  });

  it("shellgate mcp: the tool result's structuredContent names the repository the command created", async () => {
    const { ws, env, marker } = workspace("new-repo-mcp");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, "mcp", "--cwd", ws, "--no-default-rules", "--approval-policy", "never"],
      env,
      cwd: ws,
      stderr: "pipe",
    });
    const client = new Client({ name: "shellgate-trust-git-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const result = (await client.callTool({
        name: "shell_command",
        arguments: { command: `git init -q sub && git -C sub config core.fsmonitor 'touch ${marker}'`, login: false },
      })) as CallToolResult;
      expect(result.isError).toBe(false);
      const sub = path.join(ws, "sub");
      expect(result.structuredContent).toMatchObject({
        exitCode: 0,
        runRepositories: { complete: true, repositories: [{ path: sub, gitPath: path.join(sub, ".git"), change: "created" }] },
      });
    } finally {
      await client.close();
    }
    // control: the repository it names runs the command's fsmonitor on the host's next git status
    host("git status --short", path.join(ws, "sub"), env);
    expect(fs.existsSync(marker)).toBe(true);
  });
});
