// What git runs or reads as configuration, wherever the repository's config points it: a sandboxed
// command must not be able to change it for the host's next git command. Each attack is first made
// on the host (the control: the planted code really runs on a host `git commit` / `git status`),
// then inside the bwrap sandbox, where the write must fail and the host's git must run nothing.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseSandboxPolicy, UnpinnableProtectedPathError, type SandboxPolicyInput } from "@shellgate/sandbox";
import { createLinuxSandboxBackend } from "../src/index.js";
import { baseEnv, bwrapMissing, run, sh } from "./support.js";

const bwrapSkip = await bwrapMissing();
const gitSkip = spawnSync("git", ["--version"]).status === 0 ? undefined : "git is not installed";
const skip = bwrapSkip ?? gitSkip;

const created: string[] = [];
/** A fresh canonical directory that stays in view when the run's /tmp is private. */
function scratch(label: string): string {
  const parent = fs.existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir();
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(parent, `sg-gitcfg-${label}-`)));
  created.push(dir);
  return dir;
}

const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };
const gitEnv = () => ({ ...baseEnv(), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" });
const commit = "git -c user.name=t -c user.email=t@example.test commit -q --allow-empty -m x";

/** A repository at `<base>/repo` with `config` appended to its `.git/config` and `files` written. */
async function repository(label: string, config: string, files: Record<string, string> = {}): Promise<{ repo: string; marker: string }> {
  const base = scratch(label);
  const repo = path.join(base, "repo");
  fs.mkdirSync(repo);
  expect((await run(sh("git init -q"), { cwd: repo, env: gitEnv() })).code).toBe(0);
  fs.appendFileSync(path.join(repo, ".git", "config"), config);
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(repo, rel);
    fs.mkdirSync(rel.endsWith("/") ? full : path.dirname(full), { recursive: true });
    if (rel.endsWith("/")) continue;
    fs.writeFileSync(full, content, { mode: 0o755 });
  }
  return { repo, marker: path.join(base, "PWNED") };
}

/** Everything under `dir`, with contents: what "left as it was" means. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = e.isSymbolicLink() ? `-> ${fs.readlinkSync(p)}` : fs.readFileSync(p, "utf8");
    }
  };
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (stat?.isDirectory()) walk(dir);
  else if (stat) out["."] = fs.readFileSync(dir, "utf8");
  return out;
}

describe.skipIf(skip !== undefined)(`git configuration targets are read-only inside the sandbox (bwrap)${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const backend = createLinuxSandboxBackend({ processLimit: "off" });
  afterAll(() => created.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  async function inSandbox(script: string, cwd: string) {
    const execEnv = await backend.transform({ argv: sh(script), cwd, env: gitEnv() }, parseSandboxPolicy(policy), { sandboxPolicyCwd: cwd });
    try {
      return await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
    } finally {
      await execEnv.cleanup?.();
    }
  }
  const onHost = (script: string, cwd: string) => run(sh(script), { cwd, env: gitEnv() });

  /**
   * Plant with `attack` on the host and show `trigger` (a host git command) runs it; restore; then
   * plant inside the sandbox, which must fail, leave `watched` as it was, and run nothing on the
   * next host `trigger`.
   */
  async function attackAndControl(opts: { label: string; config: string; files?: Record<string, string>; setup?: (repo: string) => void; attack: (marker: string) => string; trigger: string; watched: string }) {
    const make = async () => {
      const made = await repository(opts.label, opts.config, opts.files);
      opts.setup?.(made.repo);
      return made;
    };
    const control = await make();
    expect((await onHost(opts.attack(control.marker), control.repo)).code).toBe(0);
    await onHost(opts.trigger, control.repo);
    expect(fs.existsSync(control.marker), "control: the planted code ran on the host").toBe(true);

    const { repo, marker } = await make();
    const before = snapshot(path.join(repo, opts.watched));
    const r = await inSandbox(opts.attack(marker), repo);
    expect(r.code).not.toBe(0);
    // Read-only where the target exists; a missing one is held by an empty placeholder directory.
    expect(r.stderr).toMatch(/Read-only file system|Permission denied|Is a directory/);
    expect(snapshot(path.join(repo, opts.watched))).toEqual(before);
    await onHost(opts.trigger, repo);
    expect(fs.existsSync(marker)).toBe(false);
  }

  const hook = (marker: string) => `#!/bin/sh\\ntouch '${marker}'\\n`;

  it("a husky hooks directory (core.hooksPath = .husky/_) cannot get a pre-commit hook", async () => {
    await attackAndControl({
      label: "husky",
      config: "[core]\n\thooksPath = .husky/_\n",
      files: { ".husky/_/h": "#!/bin/sh\n" },
      attack: (m) => `printf "${hook(m)}" > .husky/_/pre-commit && chmod +x .husky/_/pre-commit`,
      trigger: commit,
      watched: ".husky",
    });
  });

  it("a missing hooks directory (core.hooksPath = .husky) cannot be created", async () => {
    await attackAndControl({
      label: "husky-missing",
      config: "[core]\n\thooksPath = .husky\n",
      attack: (m) => `mkdir -p .husky && printf "${hook(m)}" > .husky/pre-commit && chmod +x .husky/pre-commit`,
      trigger: commit,
      watched: ".husky",
    });
  });

  it("an include.path target in the worktree cannot be given a core.fsmonitor", async () => {
    await attackAndControl({
      label: "include",
      config: "[include]\n\tpath = ../team.gitconfig\n",
      files: { "team.gitconfig": "[core]\n\tautocrlf = false\n" },
      attack: (m) => `printf "[core]\\n\\tfsmonitor = touch '${m}'\\n" >> team.gitconfig`,
      trigger: "git status --short",
      watched: "team.gitconfig",
    });
  });

  it("a missing includeIf target cannot be created", async () => {
    await attackAndControl({
      label: "includeif",
      config: '[includeIf "onbranch:**"]\n\tpath = ../local.gitconfig\n',
      attack: (m) => `printf "[core]\\n\\tfsmonitor = touch '${m}'\\n" > local.gitconfig`,
      trigger: "git status --short",
      watched: "local.gitconfig",
    });
  });

  it("the program core.fsmonitor names cannot be rewritten", async () => {
    await attackAndControl({
      label: "fsmonitor",
      config: "[core]\n\tfsmonitor = ./tools/fsmon.sh\n",
      files: { "tools/fsmon.sh": "#!/bin/sh\nexit 0\n" },
      attack: (m) => `printf "${hook(m)}" > tools/fsmon.sh`,
      trigger: "git status --short",
      watched: "tools",
    });
  });

  it("a .git/hooks that is a symlink into the worktree: its target cannot get a hook", async () => {
    await attackAndControl({
      label: "hooks-link",
      config: "",
      files: { "githooks/": "" },
      setup: (repo) => {
        fs.rmSync(path.join(repo, ".git", "hooks"), { recursive: true, force: true });
        fs.symlinkSync("../githooks", path.join(repo, ".git", "hooks"));
      },
      attack: (m) => `printf "${hook(m)}" > githooks/pre-commit && chmod +x githooks/pre-commit`,
      trigger: commit,
      watched: "githooks",
    });
  });

  it("a hooks directory reached through a symlink in the worktree is refused before anything runs", async () => {
    const { repo } = await repository("husky-link", "[core]\n\thooksPath = .husky/_\n", { "real-husky/_/": "" });
    fs.symlinkSync("real-husky", path.join(repo, ".husky"));
    const error = await backend
      .transform({ argv: sh("true"), cwd: repo, env: gitEnv() }, parseSandboxPolicy(policy), { sandboxPolicyCwd: repo })
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UnpinnableProtectedPathError);
    expect((error as UnpinnableProtectedPathError).gitConfig?.key).toBe("core.hookspath");
  });

  it("git inside the sandbox still reads the repository with a pinned hooks directory and include", async () => {
    const { repo } = await repository("works", "[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ../team.gitconfig\n", {
      ".husky/_/h": "#!/bin/sh\n",
      "team.gitconfig": "[core]\n\tautocrlf = false\n",
      "file.txt": "x",
    });
    const r = await inSandbox("git status --short && git config core.autocrlf", repo);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("?? .husky/\n?? file.txt\n?? team.gitconfig\nfalse\n");
  });
});
