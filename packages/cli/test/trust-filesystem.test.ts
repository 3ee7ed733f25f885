// Attacks on the filesystem view through the committed bins: a first `shellgate exec` / `shellgate sandbox` call makes an
// attack on the filesystem view, a second call shows that nothing was widened. Each control makes
// the same attack without the sandbox and shows the second call *would* be widened.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { realSandboxSkip, runBin, type RunResult } from "./helpers.js";

const skip = await realSandboxSkip();
const isRoot = process.getuid?.() === 0;
const hasGit = spawnSync("git", ["--version"]).status === 0;

const created: string[] = [];
/** A fresh canonical directory (under /var/tmp for `visible`: readable whatever the sandbox does with /tmp). */
function scratch(label: string, visible = false): string {
  const parent = visible && fs.existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir();
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(parent, `sg-trustfs-${label}-`)));
  created.push(dir);
  return dir;
}

/** An environment whose home, config and cache all live in `root`; no real user file is read. */
function envFor(root: string, extra: Record<string, string> = {}): Record<string, string> {
  fs.mkdirSync(path.join(root, "home"), { recursive: true });
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: path.join(root, "home"),
    XDG_CONFIG_HOME: path.join(root, "home", "xdg"),
    XDG_CACHE_HOME: path.join(root, "home", "cache"),
    SHELL: "/bin/bash",
    LANG: "C",
    NO_COLOR: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    ...extra,
  };
}

const exec = (args: string[], cwd: string, env: Record<string, string>): Promise<RunResult> =>
  runBin(["exec", "--approval-policy", "never", ...args], { cwd, env });
const sandbox = (args: string[], cwd: string, env: Record<string, string>): Promise<RunResult> => runBin(["sandbox", "--", ...args], { cwd, env });
const host = (script: string, cwd: string, env: Record<string, string>) => spawnSync("/bin/sh", ["-c", script], { cwd, env, encoding: "utf8" });

describe.skipIf(skip !== undefined)(`the filesystem view through the CLI${skip ? ` (skipped: ${skip})` : ""}`, () => {
  afterAll(() => created.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  describe("a workspace inside the (writable) temp directory cannot be renamed away", () => {
    /** TMPDIR/project is the workspace; `outside` is where the renamed name would lead. */
    function layout() {
      const tmp = scratch("tmpdir");
      const project = path.join(tmp, "project");
      fs.mkdirSync(project);
      const outside = scratch("outside", true);
      const attack = `cd "$TMPDIR" && mv project project.old && ln -s ${outside} project`;
      const restore = () => {
        fs.rmSync(project);
        fs.renameSync(path.join(tmp, "project.old"), project);
      };
      return { tmp, project, outside, attack, restore, env: envFor(tmp, { TMPDIR: tmp }) };
    }

    it("shellgate exec: the first call's rename fails, the second call writes only its own workspace", async () => {
      const { project, outside, attack, restore, env } = layout();
      // control: the same first call unsandboxed, and the second call's workspace is somewhere else
      const control = await exec(["--sandbox", "danger-full-access", attack], project, env);
      expect(control.code, control.stderr).toBe(0);
      const widened = await exec(["--", "touch", "pwned"], project, env);
      expect(widened.code, widened.stderr).toBe(0);
      expect(fs.existsSync(path.join(outside, "pwned"))).toBe(true);
      fs.rmSync(path.join(outside, "pwned"));
      restore();

      const first = await exec([attack], project, env);
      expect(first.code).not.toBe(0);
      expect(first.stderr).toMatch(/Device or resource busy/);
      expect(fs.lstatSync(project).isDirectory()).toBe(true);
      const second = await exec(["--", "touch", "pwned"], project, env);
      expect(second.code, second.stderr).toBe(0);
      expect(fs.existsSync(path.join(project, "pwned"))).toBe(true);
      expect(fs.existsSync(path.join(outside, "pwned"))).toBe(false);
    });

    it("shellgate sandbox: the same", async () => {
      const { project, outside, attack, restore, env } = layout();
      expect(host(attack, project, env).status).toBe(0);
      expect((await sandbox(["touch", "pwned"], project, env)).code).toBe(0);
      expect(fs.existsSync(path.join(outside, "pwned"))).toBe(true);
      fs.rmSync(path.join(outside, "pwned"));
      restore();

      const first = await sandbox(["sh", "-c", attack], project, env);
      expect(first.code).not.toBe(0);
      expect(first.stderr).toMatch(/Device or resource busy/);
      expect((await sandbox(["touch", "pwned"], project, env)).code).toBe(0);
      expect(fs.existsSync(path.join(project, "pwned"))).toBe(true);
      expect(fs.existsSync(path.join(outside, "pwned"))).toBe(false);
    });
  });

  describe.skipIf(!isRoot)("/proc/sys stays read-only under a root caller (skipped unless root)", () => {
    // `true >>` opens for appending and writes nothing: no sysctl is ever changed.
    const script = "true >> /proc/sys/kernel/core_pattern && echo OPENED || echo REFUSED; cat /proc/sys/kernel/core_pattern";

    it("shellgate sandbox and shellgate exec refuse to open kernel.core_pattern for writing; the host allows it", async () => {
      const ws = scratch("proc");
      const env = envFor(scratch("proc-home"));
      const pattern = fs.readFileSync("/proc/sys/kernel/core_pattern", "utf8");
      expect(host(script, ws, env).stdout).toBe(`OPENED\n${pattern}`);
      const viaSandbox = await sandbox(["sh", "-c", script], ws, env);
      expect(viaSandbox.stdout).toBe(`REFUSED\n${pattern}`);
      expect(viaSandbox.stderr).toMatch(/Read-only file system/);
      const viaExec = await exec([script], ws, env);
      expect(viaExec.stdout).toBe(`REFUSED\n${pattern}`);
    });
  });

  describe("rules, rules directories and the policy cache deep inside the workspace", () => {
    const forbidTouch = 'prefix_rule(pattern=["touch"], decision="forbidden", justification="no touching")\n';
    const allowTouch = 'prefix_rule(pattern=["touch"], decision="allow")';

    it("the user's rules under XDG_CONFIG_HOME inside the workspace cannot be swapped by renaming a parent", async () => {
      const ws = scratch("xdg");
      // the user's config lives two levels inside the workspace
      const env = envFor(scratch("xdg-home"), { XDG_CONFIG_HOME: path.join(ws, "xdg") });
      const rules = path.join(ws, "xdg", "shellgate", "rules", "default.rules");
      const install = () => {
        fs.rmSync(path.join(ws, "xdg"), { recursive: true, force: true });
        fs.rmSync(path.join(ws, "xdg.old"), { recursive: true, force: true });
        fs.mkdirSync(path.dirname(rules), { recursive: true });
        fs.writeFileSync(rules, forbidTouch);
      };
      const attack = `mv xdg xdg.old && mkdir -p xdg/shellgate/rules && echo '${allowTouch}' > xdg/shellgate/rules/default.rules`;
      install();
      expect((await exec(["--", "touch", "pwned"], ws, env)).code).toBe(126);

      // control: unsandboxed, the first call swaps the rules and the second call's forbidden command runs
      expect((await exec(["--sandbox", "danger-full-access", attack], ws, env)).code).toBe(0);
      const widened = await exec(["--", "touch", "pwned"], ws, env);
      expect(widened.code).toBe(0);
      expect(fs.existsSync(path.join(ws, "pwned"))).toBe(true);
      fs.rmSync(path.join(ws, "pwned"));
      install();

      const first = await exec([attack], ws, env);
      expect(first.code).not.toBe(0);
      expect(fs.readFileSync(rules, "utf8")).toBe(forbidTouch);
      const second = await exec(["--", "touch", "pwned"], ws, env);
      expect(second.code).toBe(126);
      expect(second.stderr).toContain("no touching");
      expect(fs.existsSync(path.join(ws, "pwned"))).toBe(false);
    });

    it("the directory holding a --rules file cannot be renamed and refilled", async () => {
      const ws = scratch("rules-dir");
      const env = envFor(scratch("rules-dir-home"));
      const rules = path.join(ws, "policy", "team.rules");
      const install = () => {
        fs.rmSync(path.join(ws, "policy"), { recursive: true, force: true });
        fs.rmSync(path.join(ws, "policy.old"), { recursive: true, force: true });
        fs.mkdirSync(path.dirname(rules));
        fs.writeFileSync(rules, forbidTouch);
      };
      const attack = `mv policy policy.old && mkdir policy && echo '${allowTouch}' > policy/team.rules`;
      const withRules = (args: string[]) => exec(["--rules", rules, ...args], ws, env);
      install();

      expect((await withRules(["--sandbox", "danger-full-access", attack])).code).toBe(0);
      expect((await withRules(["--", "touch", "pwned"])).code).toBe(0);
      fs.rmSync(path.join(ws, "pwned"));
      install();

      const first = await withRules([attack]);
      expect(first.code).not.toBe(0);
      expect(first.stderr).toMatch(/Device or resource busy/);
      expect(fs.readFileSync(rules, "utf8")).toBe(forbidTouch);
      expect((await withRules(["--", "touch", "pwned"])).code).toBe(126);
      expect(fs.existsSync(path.join(ws, "pwned"))).toBe(false);
    });

    it("policy-check's cache cannot be planted inside the workspace before it exists", async () => {
      const ws = scratch("cache");
      const env = envFor(scratch("cache-home"), { XDG_CACHE_HOME: path.join(ws, "cache") });
      const entry = path.join(ws, "cache", "shellgate", "execpolicy", "entry");
      const attack = "mkdir -p cache/shellgate/execpolicy && echo poisoned > cache/shellgate/execpolicy/entry";

      expect((await exec(["--sandbox", "danger-full-access", attack], ws, env)).code).toBe(0);
      expect(fs.existsSync(entry)).toBe(true);
      fs.rmSync(path.join(ws, "cache"), { recursive: true });

      const first = await exec([attack], ws, env);
      expect(first.code).not.toBe(0);
      expect(fs.existsSync(entry)).toBe(false);
      // the placeholder that held the missing policy cache is gone again (`cache/shellgate` itself is
      // real: the sandbox's capability probe, the placeholders' lock files and the CLI's code cache are
      // kept there, made on the host, outside the sandbox)
      expect(fs.existsSync(path.join(ws, "cache", "shellgate", "execpolicy"))).toBe(false);
      expect(fs.readdirSync(path.join(ws, "cache", "shellgate")).sort()).toEqual(["linux-sandbox-probe.json", "locks", "v8"]);
    });

    it("the sandbox's capability probe cache, which exec now reads, cannot be rewritten from inside", async () => {
      const ws = scratch("probe-cache");
      const env = envFor(scratch("probe-cache-home"), { XDG_CACHE_HOME: path.join(ws, "cache") });
      const cache = path.join(ws, "cache", "shellgate", "linux-sandbox-probe.json");
      const attack = "echo poisoned > cache/shellgate/linux-sandbox-probe.json";

      // the first run writes the cache on the host; the control overwrites it unsandboxed
      expect((await exec(["--", "true"], ws, env)).code).toBe(0);
      const written = fs.readFileSync(cache, "utf8");
      expect(written).toContain('"report"');
      expect((await exec(["--sandbox", "danger-full-access", attack], ws, env)).code).toBe(0);
      expect(fs.readFileSync(cache, "utf8")).toBe("poisoned\n");
      fs.writeFileSync(cache, written);

      const sandboxed = await exec([attack], ws, env);
      expect(sandboxed.code).not.toBe(0);
      expect(sandboxed.stderr).toMatch(/Read-only file system/);
      expect(fs.readFileSync(cache, "utf8")).toBe(written);
    });
  });

  describe.skipIf(!hasGit)("`git init` in a package directory of a larger repository (skipped without git)", () => {
    it("cannot plant a core.fsmonitor for the host's next `git status`; git inside still finds the repository above", async () => {
      const base = scratch("git");
      const repo = path.join(base, "repo");
      const pkg = path.join(repo, "pkg");
      fs.mkdirSync(pkg, { recursive: true });
      fs.writeFileSync(path.join(pkg, "index.js"), "");
      const env = envFor(scratch("git-home"));
      expect(host("git init -q", repo, env).status).toBe(0);
      const marker = path.join(base, "PWNED");
      const attack = `git init -q && git config core.fsmonitor 'touch ${marker}'`;

      // control: unsandboxed, the package gets its own repository and the host's `git status` runs the monitor
      expect((await exec(["--sandbox", "danger-full-access", attack], pkg, env)).code).toBe(0);
      host("git status --short", pkg, env);
      expect(fs.existsSync(marker)).toBe(true);
      fs.rmSync(marker);
      fs.rmSync(path.join(pkg, ".git"), { recursive: true });

      const first = await exec([attack], pkg, env);
      expect(first.code).not.toBe(0);
      expect(fs.existsSync(path.join(pkg, ".git"))).toBe(false);
      expect(host("git status --short", pkg, env).status).toBe(0);
      expect(fs.existsSync(marker)).toBe(false);

      const inside = await sandbox(["sh", "-c", "test -d .git && echo PLACEHOLDER; git rev-parse --show-toplevel"], pkg, env);
      expect(inside.stderr).toBe("");
      expect(inside.stdout).toBe(`PLACEHOLDER\n${repo}\n`);
    });
  });

  describe("a symlinked .git is refused, never run unprotected", () => {
    it("shellgate exec and shellgate sandbox refuse with the path and what to do; nothing runs", async () => {
      const base = scratch("git-link");
      const ws = path.join(base, "ws");
      fs.mkdirSync(path.join(base, "repo", ".git"), { recursive: true });
      fs.mkdirSync(ws);
      const link = () => fs.symlinkSync("../repo/.git", path.join(ws, ".git"));
      link();
      const env = envFor(scratch("git-link-home"));

      // control: a command that can write the workspace can replace the link (here: unsandboxed)
      const control = await exec(["--sandbox", "danger-full-access", "rm .git && mkdir .git && echo '[core]' > .git/config"], ws, env);
      expect(control.code).toBe(0);
      expect(fs.lstatSync(path.join(ws, ".git")).isDirectory()).toBe(true);
      fs.rmSync(path.join(ws, ".git"), { recursive: true });
      link();

      for (const run of [() => exec(["--", "touch", "ran"], ws, env), () => sandbox(["touch", "ran"], ws, env)]) {
        const r = await run();
        // 125 from both: shellgate declined to run it (not a program that failed to start).
        expect(r.code).toBe(125);
        expect(r.stderr).toContain(JSON.stringify(path.join(ws, ".git")));
        expect(r.stderr).toMatch(/is a symlink.*Replace the symlink/s);
        expect(fs.existsSync(path.join(ws, "ran"))).toBe(false);
      }
      expect(fs.lstatSync(path.join(ws, ".git")).isSymbolicLink()).toBe(true);
    });
  });
});
