import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { describe, expect, it } from "vitest";
import { computeWritableRoots, GitConfigUnreadableError, UnpinnableProtectedPathError } from "../src/index.js";
import { layout, tempDir, workspaceWrite } from "./helpers.js";

/** A workspace holding a git repository, with a home directory of its own (no user config of the machine's). */
async function repo(config: string, files: Record<string, string> = {}): Promise<{ ws: string; home: string; gitEnv: Record<string, string> }> {
  const base = await tempDir();
  const ws = path.join(base, "ws");
  const home = path.join(base, "home");
  await layout(base, { "ws/.git/hooks/": "", "home/": "" });
  await fs.writeFile(path.join(ws, ".git", "config"), config);
  await layout(ws, files);
  return { ws, home, gitEnv: { HOME: home, GIT_CONFIG_NOSYSTEM: "1" } };
}

async function held(ws: string, gitEnv: Record<string, string>, writableRoots: string[] = []): Promise<string[]> {
  const roots = await computeWritableRoots(workspaceWrite({ writableRoots }), { cwd: ws, env: {}, hostEnv: gitEnv });
  return roots.flatMap((r) => r.readOnlySubpaths);
}

async function refused<E>(promise: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}

const hasGit = spawnSync("git", ["--version"]).status === 0;

/** Why this file cannot run node as nobody here, or undefined when it can. */
function nobodyCannotRun(): string | undefined {
  if (process.getuid?.() !== 0) return "not running as root";
  if (spawnSync("setpriv", ["--version"]).status !== 0) return "setpriv is missing";
  const probe = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "test", "-r", new URL("../dist/index.js", import.meta.url).pathname]);
  return probe.status === 0 ? undefined : "nobody cannot read this checkout's dist/ (a private parent directory)";
}
const asNobodySkip = nobodyCannotRun();

describe("git configuration: what git would run or read is held read-only", () => {
  it("holds a husky hooks directory (`core.hooksPath`), present or not", async () => {
    const { ws, gitEnv } = await repo("[core]\n\thooksPath = .husky/_\n", { ".husky/_/pre-commit": "#!/bin/sh\n" });
    expect(await held(ws, gitEnv)).toContain(path.join(ws, ".husky/_"));
    const missing = await repo("[core]\n\thooksPath = .husky\n");
    expect(await held(missing.ws, missing.gitEnv)).toContain(path.join(missing.ws, ".husky"));
  });

  it("takes `~/` against the home directory and an absolute path as written", async () => {
    const { ws, home, gitEnv } = await repo("[core]\n\thooksPath = ~/hooks\n[init]\n\ttemplateDir = " + "/ABS\n");
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [home] }), { cwd: ws, env: {}, hostEnv: gitEnv });
    expect(roots.find((r) => r.root === home)?.readOnlySubpaths).toContain(path.join(home, "hooks"));
  });

  it("follows include.path and includeIf.*.path relative to the including file, recursively, and holds each file", async () => {
    const { ws, gitEnv } = await repo('[include]\n\tpath = ../team.gitconfig\n[includeIf "onbranch:main"]\n\tpath = ../cond.gitconfig\n', {
      "team.gitconfig": "[include]\n\tpath = conf/nested.gitconfig\n",
      "conf/nested.gitconfig": "[core]\n\tfsmonitor = ./tools/fsmon.sh\n",
      "tools/fsmon.sh": "#!/bin/sh\n",
    });
    const list = await held(ws, gitEnv);
    for (const p of ["team.gitconfig", "cond.gitconfig", "conf/nested.gitconfig", "tools/fsmon.sh"]) expect(list).toContain(path.join(ws, p));
  });

  it("reads the user's global config (with its includes) for what it names inside a writable root", async () => {
    const { ws, home, gitEnv } = await repo("");
    await layout(home, { ".gitconfig": `[include]\n\tpath = ${ws}/shared.gitconfig\n` });
    await layout(ws, { "shared.gitconfig": "[core]\n\tsshCommand = ./bin/ssh-wrap -v\n" });
    const list = await held(ws, gitEnv);
    expect(list).toEqual(expect.arrayContaining([path.join(ws, "shared.gitconfig"), path.join(ws, "bin/ssh-wrap")]));
  });

  it("holds the user's global config when it exists, and makes no directory in the place of a missing one (git would fail on it)", async () => {
    const { ws, home, gitEnv } = await repo("");
    // the home lies in a writable root (a broad grant): its ~/.gitconfig is what git reads by itself
    const missing = await held(ws, gitEnv, [home]);
    expect(missing).not.toContain(path.join(home, ".gitconfig"));
    expect(missing).not.toContain(path.join(home, ".config", "git", "config"));
    await layout(home, { ".gitconfig": "[user]\n\tname = x\n" });
    expect(await held(ws, gitEnv, [home])).toContain(path.join(home, ".gitconfig"));
    // control: a missing file a config names explicitly is held (the command could create it)
    const named = await repo("[include]\n\tpath = ../absent.gitconfig\n");
    expect(await held(named.ws, named.gitEnv)).toContain(path.join(named.ws, "absent.gitconfig"));
  });

  it("holds the program path of every key that names a command, and a script argument that exists", async () => {
    const config = [
      "[core]",
      "\tfsmonitor = .githooks/fsmonitor",
      "\tsshCommand = ./k/ssh",
      "\teditor = ./k/editor --wait",
      "\tpager = ./k/pager",
      "[diff]",
      "\texternal = ./k/difftool",
      '[diff "pdf"]',
      "\ttextconv = ./k/textconv",
      '[filter "lfsish"]',
      "\tclean = ./k/clean %f",
      "\tsmudge = ./k/smudge",
      "\tprocess = node ./k/process.js",
      '[merge "ours"]',
      "\tdriver = ./k/merge %O %A %B",
      "[credential]",
      '\thelper = "!./k/cred"',
      "[gpg]",
      "\tprogram = ./k/gpg",
      "[alias]",
      "\tst = !./k/alias",
      "\tco = checkout",
    ].join("\n");
    const { ws, gitEnv } = await repo(config, { "k/process.js": "" });
    const list = await held(ws, gitEnv);
    for (const p of [".githooks/fsmonitor", "k/ssh", "k/editor", "k/pager", "k/difftool", "k/textconv", "k/clean", "k/smudge", "k/process.js", "k/merge", "k/cred", "k/gpg", "k/alias"]) {
      expect(list, p).toContain(path.join(ws, p));
    }
  });

  it("holds nothing for values that are no path: builtins, PATH look-ups, sed expressions, directory arguments", async () => {
    const config = '[core]\n\tfsmonitor = true\n\tpager = less -R\n[diff "x"]\n\ttextconv = "sed s/a/b/"\n[alias]\n\tt = !cd sub && ls\n';
    const { ws, gitEnv } = await repo(config, { "sub/": "" });
    const baseline = await repo("");
    const strip = (list: string[], root: string) => list.map((p) => path.relative(root, p));
    expect(strip(await held(ws, gitEnv), ws)).toEqual(strip(await held(baseline.ws, baseline.gitEnv), baseline.ws));
  });

  it("holds the target of a `.git/hooks`, `.git/config` or `.git/info` that is a symlink into the worktree", async () => {
    const { ws, gitEnv } = await repo("", { "githooks/pre-commit": "#!/bin/sh\n", "gitinfo/": "", "real.gitconfig": "[core]\n\tfsmonitor = ./mon\n" });
    await fs.rm(path.join(ws, ".git/hooks"), { recursive: true });
    await fs.rm(path.join(ws, ".git/config"));
    await fs.symlink("../githooks", path.join(ws, ".git/hooks"));
    await fs.symlink("../real.gitconfig", path.join(ws, ".git/config"));
    await fs.symlink("../gitinfo", path.join(ws, ".git/info"));
    const list = await held(ws, gitEnv);
    for (const p of ["githooks", "real.gitconfig", "gitinfo", "mon"]) expect(list, p).toContain(path.join(ws, p));
  });

  it("reads a linked worktree's shared repository: its config, and the worktree's config.worktree", async () => {
    const base = await tempDir();
    await layout(base, {
      "main/.git/config": "[core]\n\thooksPath = ../wt/hooks\n",
      "main/.git/worktrees/wt/commondir": "../..\n",
      "main/.git/worktrees/wt/config.worktree": "[core]\n\tfsmonitor = ./fsm\n",
      "wt/.git": `gitdir: ${base}/main/.git/worktrees/wt\n`,
      "home/": "",
    });
    const wt = path.join(base, "wt");
    const list = await held(wt, { HOME: path.join(base, "home"), GIT_CONFIG_NOSYSTEM: "1" });
    expect(list).toEqual(expect.arrayContaining([path.join(wt, "fsm")]));
    // `core.hooksPath` is relative to the worktree's top, so `../wt/hooks` from `wt` is `wt/hooks`.
    expect(list).toContain(path.join(wt, "hooks"));
  });

  it("reads the repository that encloses a writable root, for what it names inside the root", async () => {
    const base = await tempDir();
    await layout(base, { "r/.git/config": "[core]\n\thooksPath = pkg/hooks\n", "r/pkg/": "", "home/": "" });
    const pkg = path.join(base, "r/pkg");
    expect(await held(pkg, { HOME: path.join(base, "home"), GIT_CONFIG_NOSYSTEM: "1" })).toContain(path.join(pkg, "hooks"));
  });

  it("stops at include cycles and reads each file once", async () => {
    const { ws, gitEnv } = await repo("[include]\n\tpath = ../a.inc\n", {
      "a.inc": "[include]\n\tpath = b.inc\n[core]\n\tpager = ./pa\n",
      "b.inc": "[include]\n\tpath = a.inc\n\tpath = ../ws/.git/config\n[core]\n\teditor = ./ed\n",
    });
    const list = await held(ws, gitEnv);
    expect(list).toEqual(expect.arrayContaining([path.join(ws, "a.inc"), path.join(ws, "b.inc"), path.join(ws, "pa"), path.join(ws, "ed")]));
  });
});

describe("git configuration: what cannot be held is refused", () => {
  it("refuses an include reached through a symlink in the worktree, naming key, file and link", async () => {
    const { ws, gitEnv } = await repo("[include]\n\tpath = ../linked.inc\n", { "elsewhere.inc": "" });
    await fs.symlink(path.join(ws, "elsewhere.inc"), path.join(ws, "linked.inc"));
    const error = await refused(held(ws, gitEnv), UnpinnableProtectedPathError);
    expect(error.code).toBe("SANDBOX_UNPINNABLE_PATH");
    expect(error.gitConfig).toEqual({ key: "include.path", file: path.join(ws, ".git/config"), line: 2 });
    expect(error.link).toBe(path.join(ws, "linked.inc"));
    expect(error.message).toContain("`include.path`");
  });

  it("refuses a hooks directory reached through a symlink in the worktree (husky's dir made a link)", async () => {
    const { ws, gitEnv } = await repo("[core]\n\thooksPath = .husky/_\n", { "real-hooks/": "" });
    await fs.symlink("real-hooks", path.join(ws, ".husky"));
    const error = await refused(held(ws, gitEnv), UnpinnableProtectedPathError);
    expect(error.gitConfig?.key).toBe("core.hookspath");
    expect(error.link).toBe(path.join(ws, ".husky"));
  });

  it("refuses a program path reached through a symlink in the worktree", async () => {
    const { ws, gitEnv } = await repo("[core]\n\tfsmonitor = node_modules/.bin/mon\n", { "node_modules/pkg/mon.js": "" });
    await layout(ws, { "node_modules/.bin/": "" });
    await fs.symlink("../pkg/mon.js", path.join(ws, "node_modules/.bin/mon"));
    const error = await refused(held(ws, gitEnv), UnpinnableProtectedPathError);
    expect(error.gitConfig?.key).toBe("core.fsmonitor");
  });

  it.skipIf(!hasGit)("refuses a FIFO planted as an include target without blocking (control: git reads config from it)", async () => {
    const { ws, gitEnv } = await repo("[include]\n\tpath = ../fifo.inc\n");
    execFileSync("mkfifo", [path.join(ws, "fifo.inc")]);
    const error = await refused(held(ws, gitEnv), GitConfigUnreadableError);
    expect(error.code).toBe("SANDBOX_GIT_CONFIG_UNREADABLE");
    expect(error.file).toBe(path.join(ws, "fifo.inc"));
    expect(error.reason).toContain("FIFO");
    // Control: git opens the FIFO and takes whatever a writer feeds it as configuration.
    const fifo = path.join(ws, "fifo.inc");
    const writer = spawn("sh", ["-c", 'printf "[core]\\n\\tpager = ./fed\\n" > "$1"', "sh", fifo], { stdio: "ignore" });
    const control = spawnSync("git", ["config", "--file", fifo, "core.pager"], { encoding: "utf8", env: { ...process.env, ...gitEnv } });
    await new Promise((resolve) => writer.once("exit", resolve));
    expect(control.stdout.trim()).toBe("./fed");
  });

  it("refuses a FIFO planted as the repository's config, and a directory in place of an include", async () => {
    const { ws, gitEnv } = await repo("");
    await fs.rm(path.join(ws, ".git/config"));
    execFileSync("mkfifo", [path.join(ws, ".git/config")]);
    expect((await refused(held(ws, gitEnv), GitConfigUnreadableError)).file).toBe(path.join(ws, ".git/config"));
    const dir = await repo("[include]\n\tpath = ../d.inc\n", { "d.inc/": "" });
    expect((await refused(held(dir.ws, dir.gitEnv), GitConfigUnreadableError)).reason).toContain("directory");
  });

  skipUnless(hasGit ? undefined : "git is not installed").it("refuses an include target planted as a symlink in the worktree (control: git follows it to what it names)", async () => {
    const { ws, gitEnv } = await repo("[include]\n\tpath = ../inc/x.inc\n", { "inc/": "" });
    const elsewhere = await tempDir();
    await layout(elsewhere, { "planted.inc": "[core]\n\tpager = ./fed\n" });
    await fs.symlink(path.join(elsewhere, "planted.inc"), path.join(ws, "inc/x.inc"));
    const error = await refused(held(ws, gitEnv), UnpinnableProtectedPathError);
    expect(error.path).toBe(path.join(ws, "inc/x.inc"));
    expect(error.gitConfig?.key).toBe("include.path");
    // Control: the host's git reads the config the link leads to.
    const control = spawnSync("git", ["config", "--file", path.join(ws, ".git/config"), "--includes", "core.pager"], { encoding: "utf8", env: { ...process.env, ...gitEnv } });
    expect(control.stdout.trim()).toBe("./fed");
  });

  it("refuses a malformed config with its location", async () => {
    const { ws, gitEnv } = await repo('[core]\n\thooksPath = "open\n');
    const error = await refused(held(ws, gitEnv), GitConfigUnreadableError);
    expect(error.location?.line).toBe(2);
  });
});

describe("git configuration: the user's own config files", () => {
  it("reads GIT_CONFIG_GLOBAL=/dev/null as empty, as git does", async () => {
    const { ws, gitEnv } = await repo("");
    await expect(held(ws, { ...gitEnv, GIT_CONFIG_GLOBAL: "/dev/null" })).resolves.toContain(path.join(ws, ".git"));
  });

  // A user whose HOME is a directory it cannot search (a service user started with root's HOME).
  it.skipIf(asNobodySkip !== undefined)(
    `skips a global config the user cannot reach, as git does${asNobodySkip ? ` (skipped: ${asNobodySkip})` : ""}`,
    async () => {
      const base = await tempDir();
      await fs.chmod(base, 0o755);
      await layout(base, { "ws/.git/hooks/": "", "home/.config/git/config": "[core]\n\tpager = from-private-home\n" });
      await fs.chmod(path.join(base, "home"), 0o700);
      await fs.chmod(path.join(base, "ws"), 0o777);
      const hostEnv = { HOME: path.join(base, "home"), GIT_CONFIG_NOSYSTEM: "1", PATH: process.env["PATH"] ?? "/usr/bin:/bin" };
      const asNobody = (argv: string[]) =>
        spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", ...argv], { cwd: path.join(base, "ws"), env: hostEnv, encoding: "utf8" });
      // Control: git, as that user, reads its default pager, not the config it cannot reach.
      if (hasGit) expect(asNobody(["git", "var", "GIT_PAGER"]).stdout.trim()).not.toBe("from-private-home");
      const index = new URL("../dist/index.js", import.meta.url).pathname;
      const script = `
        const { computeWritableRoots } = await import(${JSON.stringify(index)});
        const roots = await computeWritableRoots(
          { mode: "workspace-write", writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: true, deniedReadPaths: [] },
          { cwd: process.cwd(), env: {}, hostEnv: process.env });
        console.log(JSON.stringify(roots.flatMap((r) => r.readOnlySubpaths)));`;
      const r = asNobody([process.execPath, "--input-type=module", "-e", script]);
      expect(r.stderr).toBe("");
      const heldPaths = JSON.parse(r.stdout) as string[];
      expect(heldPaths).toContain(path.join(base, "ws", ".git"));
      expect(heldPaths.some((p) => p.startsWith(path.join(base, "home")))).toBe(false);
    },
  );
});

describe("git configuration: submodules", () => {
  it("reads a submodule's config from the superproject's modules/ and resolves its values in the submodule's worktree", async () => {
    const { ws, gitEnv } = await repo("", {
      ".git/modules/libs/ui/HEAD": "ref: refs/heads/main\n",
      ".git/modules/libs/ui/config": "[core]\n\tworktree = ../../../../libs/ui\n\thooksPath = .husky\n",
      ".git/modules/libs/ui/modules/deep/HEAD": "ref: refs/heads/main\n",
      ".git/modules/libs/ui/modules/deep/config": "[core]\n\tworktree = ../../../../../../libs/ui/deep\n\tfsmonitor = ./mon\n",
      "libs/ui/.git": "gitdir: ../../.git/modules/libs/ui\n",
    });
    const list = await held(ws, gitEnv);
    expect(list).toEqual(expect.arrayContaining([path.join(ws, "libs/ui/.husky"), path.join(ws, "libs/ui/deep/mon")]));
  });
});
