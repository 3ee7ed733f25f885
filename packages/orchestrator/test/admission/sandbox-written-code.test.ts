import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SandboxPolicy } from "@shellgate/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  assessCommand,
  findSandboxWrittenCode,
  programControlled,
  sandboxWritable,
  withSandboxKept,
  type SandboxWrittenCode,
} from "../support/internals.js";

// The workspace is the one writable root: /tmp and $TMPDIR are left out so that a directory beside
// it (`host`) stands for the machine's own directories, which no sandboxed command can write.
const POLICY: SandboxPolicy = {
  mode: "workspace-write",
  writableRoots: [],
  networkAccess: false,
  excludeTmpdirEnvVar: true,
  excludeSlashTmp: true,
  deniedReadPaths: [],
};

let base: string;
let ws: string;
let host: string;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-written-")));
  ws = path.join(base, "ws");
  host = path.join(base, "host");
  fs.mkdirSync(path.join(ws, ".git"), { recursive: true });
  fs.mkdirSync(path.join(host, "bin"), { recursive: true });
  fs.writeFileSync(path.join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
  fs.mkdirSync(path.join(ws, ".git", "objects"));
  fs.mkdirSync(path.join(ws, ".git", "refs"));
  plant(path.join(host, "bin", "git"));
});

afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

function plant(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
}

async function found(argv: string[], opts: { cwd?: string; path?: string; env?: Record<string, string> } = {}): Promise<SandboxWrittenCode[]> {
  const env = { PATH: opts.path ?? path.join(host, "bin"), HOME: host, ...opts.env };
  const admission = await assessCommand({ argv, policy: null, approvalPolicy: "on-request", sandboxPolicy: POLICY, permissions: "use_default" });
  return findSandboxWrittenCode({
    argv,
    segments: admission.segments,
    script: admission.split === "plain" || admission.split === "heredoc",
    cwd: opts.cwd ?? ws,
    env,
    writable: await sandboxWritable(POLICY, { cwd: ws, env }),
  });
}

describe("findSandboxWrittenCode: programs", () => {
  it("a relative program path in the workspace is found, with its real path", async () => {
    plant(path.join(ws, "git"));
    const f = await found(["./git", "commit", "-m", "x"]);
    expect(f).toEqual([expect.objectContaining({ kind: "program", path: path.join(ws, "git"), command: ["./git", "commit", "-m", "x"] })]);
    expect(f[0]!.text).toContain(path.join(ws, "git"));
  });

  it("an absolute path into the workspace is found too", async () => {
    plant(path.join(ws, "bin", "git"));
    expect(await found([path.join(ws, "bin", "git"), "status"])).toEqual([expect.objectContaining({ kind: "program", path: path.join(ws, "bin", "git") })]);
  });

  it("CONTROL: a program outside every writable root is not", async () => {
    expect(await found([path.join(host, "bin", "git"), "status"])).toEqual([]);
    expect(await found(["git", "status"])).toEqual([]);
  });

  it("a host path that is a symlink into the workspace is found by its real path", async () => {
    plant(path.join(ws, "tool"));
    fs.symlinkSync(path.join(ws, "tool"), path.join(host, "bin", "tool"));
    expect(await found(["tool"])).toEqual([expect.objectContaining({ kind: "program", path: path.join(ws, "tool") })]);
  });

  it("a symlink in the workspace is found even when it points at a host program (it can be re-pointed)", async () => {
    fs.symlinkSync(path.join(host, "bin", "git"), path.join(ws, "git"));
    expect(await found(["./git", "status"])).toEqual([expect.objectContaining({ kind: "program", path: path.join(ws, "git") })]);
  });

  it("a PATH entry in the workspace that comes first is found, whether or not the program is there yet", async () => {
    const bin = path.join(ws, "node_modules", ".bin");
    fs.mkdirSync(bin, { recursive: true });
    const f = await found(["git", "status"], { path: `${bin}:${path.join(host, "bin")}` });
    expect(f).toEqual([expect.objectContaining({ kind: "path_entry", path: path.join(bin, "git") })]);
    // An empty PATH entry is the working directory.
    expect(await found(["git", "status"], { path: `:${path.join(host, "bin")}` })).toEqual([expect.objectContaining({ kind: "path_entry" })]);
  });

  it("a PATH entry after the one that holds the program does not count", async () => {
    const bin = path.join(ws, "node_modules", ".bin");
    expect(await found(["git", "status"], { path: `${path.join(host, "bin")}:${bin}` })).toEqual([]);
  });

  it("the commands of a shell script are resolved, the shell too, and `cd` moves the ones after it", async () => {
    plant(path.join(ws, "sub", "x"));
    fs.writeFileSync(path.join(ws, "sub", "README"), "");
    plant(path.join(host, "bin", "bash"));
    const f = await found(["bash", "-lc", "cd sub && ./x"]);
    expect(f.map((x) => x.path)).toEqual([path.join(ws, "sub", "x")]);
    const shell = await found([path.join(ws, "sub", "x"), "-lc", "git status"]);
    expect(shell.map((x) => x.path)).toContain(path.join(ws, "sub", "x"));
  });

  it("a change of directory that cannot be followed makes a later relative program unknown", async () => {
    plant(path.join(host, "bin", "bash"));
    expect(await found(["bash", "-lc", "cd - && ./x"])).toEqual([expect.objectContaining({ kind: "working_directory" })]);
  });

  it("the command a wrapper runs is resolved too", async () => {
    plant(path.join(host, "bin", "env"));
    plant(path.join(host, "bin", "timeout"));
    plant(path.join(ws, "git"));
    expect(await found(["env", "-i", "A=1", "./git", "status"])).toEqual([expect.objectContaining({ kind: "program", path: path.join(ws, "git") })]);
    expect(await found(["timeout", "5", "./git", "status"])).toEqual([expect.objectContaining({ kind: "program", path: path.join(ws, "git") })]);
  });
});

describe("findSandboxWrittenCode: git repositories", () => {
  it("CONTROL: the workspace's own .git is held read-only by the sandbox, so git there is not reported", async () => {
    expect(await found(["git", "status"])).toEqual([]);
  });

  it("a repository the sandbox created below the workspace is reported (cwd, and -C)", async () => {
    fs.mkdirSync(path.join(ws, "sub", ".git"), { recursive: true });
    const inSub = await found(["git", "status"], { cwd: path.join(ws, "sub") });
    expect(inSub).toEqual([expect.objectContaining({ kind: "git_dir", path: path.join(ws, "sub", ".git") })]);
    expect(await found(["git", "-C", "sub", "status"])).toEqual([expect.objectContaining({ kind: "git_dir", path: path.join(ws, "sub", ".git") })]);
  });

  it("a .git file's gitdir: is followed, and a pointer the sandbox wrote counts", async () => {
    fs.mkdirSync(path.join(ws, "wt"));
    fs.mkdirSync(path.join(host, "repo.git"));
    fs.writeFileSync(path.join(ws, "wt", ".git"), `gitdir: ${path.join(host, "repo.git")}\n`);
    expect(await found(["git", "status"], { cwd: path.join(ws, "wt") })).toEqual([expect.objectContaining({ kind: "git_dir", path: path.join(ws, "wt", ".git") })]);
  });

  it("a bare repository the sandbox made is reported", async () => {
    const bare = path.join(ws, "bare");
    fs.mkdirSync(path.join(bare, "objects"), { recursive: true });
    fs.mkdirSync(path.join(bare, "refs"));
    fs.writeFileSync(path.join(bare, "HEAD"), "ref: refs/heads/main\n");
    expect(await found(["git", "log"], { cwd: bare })).toEqual([expect.objectContaining({ kind: "git_dir", path: bare })]);
  });

  it("a subdirectory of the workspace with no repository of its own uses the workspace's (held read-only): not reported", async () => {
    fs.mkdirSync(path.join(ws, "src"));
    expect(await found(["git", "status"], { cwd: path.join(ws, "src") })).toEqual([]);
  });

  it("the workspace's own repository: what its configuration points into the workspace is held read-only by the sandbox, so it is not reported", async () => {
    fs.writeFileSync(path.join(ws, ".git", "config"), '[core]\n\thooksPath = .husky\n\tfsmonitor = "./mon.sh --x"\n[include]\n\tpath = ../shared.cfg\n');
    expect(await found(["git", "commit", "-m", "x"])).toEqual([]);
    const writable = await sandboxWritable(POLICY, { cwd: ws, env: { HOME: host } });
    for (const held of [".husky", "mon.sh", "shared.cfg"]) expect(writable(path.join(ws, held)), held).toBe(false);
    // control: the rest of the workspace is writable
    expect(writable(path.join(ws, "src"))).toBe(true);
  });

  it("a repository the sandbox does not hold (named by --git-dir) whose configuration points hooks, a monitor, a script or an include into the workspace is reported", async () => {
    const repo = path.join(host, "repo.git");
    for (const d of ["objects", "refs"]) fs.mkdirSync(path.join(repo, d), { recursive: true });
    fs.writeFileSync(path.join(repo, "HEAD"), "ref: refs/heads/main\n");
    fs.writeFileSync(path.join(repo, "config"), `[core]\n\thooksPath = ${path.join(ws, ".husky")}\n`);
    expect(await found(["git", `--git-dir=${repo}`, "commit", "-m", "x"])).toEqual([
      expect.objectContaining({ kind: "git_config", path: path.join(ws, ".husky"), text: expect.stringContaining("core.hookspath") }),
    ]);
    fs.writeFileSync(path.join(repo, "config"), `[core]\n\tfsmonitor = "${path.join(ws, "mon.sh")} --x"\n[include]\n\tpath = ${path.join(ws, "shared.cfg")}\n`);
    expect((await found(["git", `--git-dir=${repo}`, "status"])).map((f) => f.path)).toEqual([path.join(ws, "mon.sh"), path.join(ws, "shared.cfg")]);
    plant(path.join(ws, "tools", "st.sh"));
    fs.writeFileSync(path.join(repo, "config"), `[alias]\n\tst = "!sh ${path.join(ws, "tools", "st.sh")}"\n[diff "x"]\n\ttextconv = ${path.join(ws, "tools", "conv")}\n`);
    expect((await found(["git", `--git-dir=${repo}`, "diff"])).map((f) => f.path)).toEqual([path.join(ws, "tools", "st.sh"), path.join(ws, "tools", "conv")]);
    // an include the sandbox cannot write is read in turn: what it names is judged too
    fs.writeFileSync(path.join(host, "inc.cfg"), `[core]\n\tpager = ${path.join(ws, "pager")}\n`);
    fs.writeFileSync(path.join(repo, "config"), `[include]\n\tpath = ${path.join(host, "inc.cfg")}\n`);
    expect((await found(["git", `--git-dir=${repo}`, "log"])).map((f) => f.path)).toEqual([path.join(ws, "pager")]);
  });

  it("a configuration file git would read that is not a regular file is reported, without waiting on it", async () => {
    const repo = path.join(host, "repo.git");
    for (const d of ["objects", "refs"]) fs.mkdirSync(path.join(repo, d), { recursive: true });
    fs.writeFileSync(path.join(repo, "HEAD"), "ref: refs/heads/main\n");
    execFileSync("mkfifo", [path.join(repo, "config")]);
    expect(await found(["git", `--git-dir=${repo}`, "log"])).toEqual([
      expect.objectContaining({ kind: "git_config", path: path.join(repo, "config"), text: expect.stringContaining("FIFO") }),
    ]);
  });

  it("CONTROL: a configuration naming host programs, or the default hooks inside the read-only .git, is not", async () => {
    fs.writeFileSync(path.join(ws, ".git", "config"), `[core]\n\tpager = less -R\n\tfsmonitor = ${path.join(host, "bin", "git")}\n\thooksPath = .git/hooks\n`);
    expect(await found(["git", "status"])).toEqual([]);
  });

  it("GIT_DIR and --git-dir name the repository directly", async () => {
    fs.mkdirSync(path.join(ws, "other"));
    expect(await found(["git", "--git-dir=other", "log"])).toEqual([expect.objectContaining({ kind: "git_dir" })]);
    expect(await found(["git", "log"], { env: { GIT_DIR: path.join(ws, "other") } })).toEqual([expect.objectContaining({ kind: "git_dir" })]);
    expect(await found(["git", "log"], { env: { GIT_DIR: path.join(host, "repo") } })).toEqual([]);
  });

  it("git commands that use no repository are not judged on one", async () => {
    fs.mkdirSync(path.join(ws, "src"));
    expect(await found(["git", "clone", "https://git.example.com/x"], { cwd: path.join(ws, "src") })).toEqual([]);
    expect(await found(["git", "--version"], { cwd: path.join(ws, "src") })).toEqual([]);
  });
});

describe("programControlled", () => {
  it("tells a workspace program from a host one", async () => {
    const writable = await sandboxWritable(POLICY, { cwd: ws, env: {} });
    const controlled = programControlled(writable);
    expect(controlled(path.join(ws, "npm"))).toBe(true);
    expect(controlled(path.join(host, "bin", "git"))).toBe(false);
  });
});

describe("withSandboxKept", () => {
  const finding: SandboxWrittenCode = { kind: "program", command: ["./git"], path: "/ws/git", text: "`./git` is /ws/git, which a sandboxed command can write" };
  const bypass = { kind: "skip", bypassSandbox: true } as const;

  it("untrusted asks, with the path in the reason", () => {
    const r = withSandboxKept(bypass, [finding], "untrusted", ["./git", "commit"]);
    expect(r).toEqual({ kind: "needs_approval", reason: expect.stringContaining("/ws/git") });
  });

  it.each(["on-request", "on-failure", "never"] as const)("%s runs it in the sandbox without asking", (policy) => {
    expect(withSandboxKept(bypass, [finding], policy, ["./git"])).toEqual({ kind: "skip", bypassSandbox: false });
  });

  it("nothing found, or no bypass: unchanged", () => {
    expect(withSandboxKept(bypass, [], "untrusted", ["git"])).toBe(bypass);
    const sandboxed = { kind: "skip", bypassSandbox: false } as const;
    expect(withSandboxKept(sandboxed, [finding], "untrusted", ["git"])).toBe(sandboxed);
  });
});
