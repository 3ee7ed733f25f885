// Attacks whose aim is the *next* run: re-arranging the filesystem view so that a later command is
// judged or confined with something the attacker wrote. Every attack is first made WITHOUT the
// sandbox (the control) to show it works there, then inside the bwrap sandbox, where it must fail
// and leave the host as it was.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { computeWritableRoots, parseSandboxPolicy, UnpinnableProtectedPathError, type SandboxPolicyInput } from "@shellgate/sandbox";
import { createLinuxSandboxBackend } from "../src/index.js";
import { baseEnv, bwrapMissing, run, sh } from "./support.js";

const bwrapSkip = await bwrapMissing();
const isRoot = process.getuid?.() === 0;
const hasGit = spawnSync("git", ["--version"]).status === 0;

/**
 * A fresh canonical directory, removed after the file's tests: under the OS temp dir, or under
 * /var/tmp for `visible`, which stays in view (read-only) when the run's /tmp is private.
 */
const created: string[] = [];
function scratch(label: string, visible = false): string {
  const parent = visible && fs.existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir();
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(parent, `sg-persist-${label}-`)));
  created.push(dir);
  return dir;
}

/** Device and inode: what "the same directory" means. */
const identity = (p: string) => {
  const s = fs.lstatSync(p);
  return `${s.dev}:${s.ino}:${s.isDirectory() ? "dir" : s.isSymbolicLink() ? "link" : "other"}`;
};

describe.skipIf(bwrapSkip !== undefined)(`the filesystem view cannot be re-arranged for a later run (bwrap)${bwrapSkip ? ` (skipped: ${bwrapSkip})` : ""}`, () => {
  const backend = createLinuxSandboxBackend({ processLimit: "off" });
  afterAll(() => created.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  /** Run `script` sandboxed with cwd = policy cwd = `cwd`. */
  async function inSandbox(script: string, cwd: string, policy: SandboxPolicyInput, opts: { env?: Record<string, string>; protectedPaths?: string[] } = {}) {
    const execEnv = await backend.transform({ argv: sh(script), cwd, env: opts.env ?? baseEnv() }, parseSandboxPolicy(policy), {
      sandboxPolicyCwd: cwd,
      ...(opts.protectedPaths ? { protectedPaths: opts.protectedPaths } : {}),
    });
    try {
      return await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
    } finally {
      await execEnv.cleanup?.();
    }
  }
  const onHost = (script: string, cwd: string, env: Record<string, string> = baseEnv()) => run(sh(script), { cwd, env });

  describe("a workspace nested in another writable root", () => {
    // The temp directory is writable and holds the workspace, as when an agent works in $TMPDIR.
    const tmpdirPolicy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: false };

    it("cannot be renamed away and replaced by a symlink to /", async () => {
      const tmp = scratch("rename");
      const ws = path.join(tmp, "ws");
      fs.mkdirSync(ws);
      const env = { ...baseEnv(), TMPDIR: tmp };
      const attack = 'cd "$TMPDIR" && mv ws ws.old && ln -s / ws';

      // control: done on the host, the workspace's name now leads to /, and the next run's roots would be /
      expect((await onHost(attack, ws, env)).code).toBe(0);
      expect(fs.realpathSync(ws)).toBe("/");
      const widened = await computeWritableRoots(parseSandboxPolicy(tmpdirPolicy), { cwd: ws, env });
      expect(widened.map((r) => r.root)).toContain("/");
      fs.rmSync(ws);
      fs.renameSync(path.join(tmp, "ws.old"), ws);

      const before = identity(ws);
      const r = await inSandbox(attack, ws, tmpdirPolicy, { env });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/Device or resource busy/);
      expect(identity(ws)).toBe(before);
      expect(fs.existsSync(path.join(tmp, "ws.old"))).toBe(false);
      // the next run still gets the workspace, not /
      const next = await computeWritableRoots(parseSandboxPolicy(tmpdirPolicy), { cwd: ws, env });
      expect(next.map((r) => r.root)).toEqual([ws, tmp]);
      // ... and the temp directory itself stays writable
      expect((await inSandbox('echo ok > "$TMPDIR/scratch" && mkdir "$TMPDIR/d" && rmdir "$TMPDIR/d"', ws, tmpdirPolicy, { env })).code).toBe(0);
      expect(fs.readFileSync(path.join(tmp, "scratch"), "utf8")).toBe("ok\n");
    });

    it("cannot be moved by renaming a directory between it and the outer root", async () => {
      const tmp = scratch("ancestor");
      const ws = path.join(tmp, "a", "b", "ws");
      fs.mkdirSync(ws, { recursive: true });
      const env = { ...baseEnv(), TMPDIR: tmp };
      const attack = 'cd "$TMPDIR" && mv a a.old && mkdir -p a/b && ln -s / a/b/ws';

      expect((await onHost(attack, ws, env)).code).toBe(0);
      expect(fs.realpathSync(ws)).toBe("/");
      fs.rmSync(path.join(tmp, "a"), { recursive: true });
      fs.renameSync(path.join(tmp, "a.old"), path.join(tmp, "a"));

      const before = [identity(path.join(tmp, "a")), identity(path.join(tmp, "a", "b")), identity(ws)];
      for (const script of [attack, 'cd "$TMPDIR/a" && mv b b.old', 'cd "$TMPDIR" && rm -rf a']) {
        const r = await inSandbox(script, ws, tmpdirPolicy, { env });
        expect(r.code, script).not.toBe(0);
        expect(r.stderr, script).toMatch(/Device or resource busy/);
      }
      expect([identity(path.join(tmp, "a")), identity(path.join(tmp, "a", "b")), identity(ws)]).toEqual(before);
      // the pinned directories stay writable
      const r = await inSandbox('echo ok > "$TMPDIR/a/file" && echo ok > "$TMPDIR/a/b/file"', ws, tmpdirPolicy, { env });
      expect(r.stderr).toBe("");
      expect(fs.readFileSync(path.join(tmp, "a", "b", "file"), "utf8")).toBe("ok\n");
    });
  });

  describe.skipIf(!isRoot)("/proc/sys and kin are read-only even for a root caller (skipped unless root)", () => {
    // Nothing here ever writes a sysctl: `true >>` opens for appending and writes no byte (not `:`,
    // a special built-in whose failed redirection would end the shell).
    const core = "/proc/sys/kernel/core_pattern";
    const openForWrite = `true >> ${core}`;

    it("refuses to open kernel.core_pattern for writing, while bare bwrap and the host allow it", async () => {
      const ws = scratch("proc");
      const host = await onHost(openForWrite, ws);
      expect(host.code, host.stderr).toBe(0);
      const bare = await run(["bwrap", "--unshare-all", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", ...sh(openForWrite)], { cwd: ws });
      expect(bare.code, bare.stderr).toBe(0);

      const r = await inSandbox(`${openForWrite} || echo REFUSED; cat ${core}`, ws, { mode: "workspace-write" });
      expect(r.stderr).toMatch(/Read-only file system/);
      expect(r.stdout).toBe(`REFUSED\n${fs.readFileSync(core, "utf8")}`);
    });

    it("mounts every machine-wide /proc entry that exists here read-only", async () => {
      const ws = scratch("proc-mounts");
      const r = await inSandbox("cat /proc/self/mountinfo", ws, { mode: "read-only" });
      const mounts = new Map(r.stdout.split("\n").filter(Boolean).map((line) => {
        const fields = line.split(" ");
        return [fields[4], fields[5]?.split(",") ?? []] as const;
      }));
      for (const entry of ["sys", "sysrq-trigger", "irq", "bus", "fs", "pressure"]) {
        if (!fs.existsSync(`/proc/${entry}`)) continue;
        expect(mounts.get(`/proc/${entry}`), entry).toContain("ro");
      }
      // the sandbox's own network settings, not the host's: its namespace has only `lo`
      const conf = await inSandbox("ls /proc/sys/net/ipv4/conf", ws, { mode: "read-only" });
      expect(conf.stdout.split("\n")).toContain("lo");
      expect(conf.stdout.split("\n").filter((n) => n && !["all", "default", "lo"].includes(n))).toEqual([]);
    });
  });

  describe("protected paths deep inside a writable root", () => {
    const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };

    it("a rules file under ~/.config cannot be swapped by renaming .config (workspace = home)", async () => {
      const home = scratch("home");
      const rules = path.join(home, ".config", "shellgate", "rules", "default.rules");
      fs.mkdirSync(path.dirname(rules), { recursive: true });
      fs.writeFileSync(rules, 'prefix_rule(pattern=["rm"], decision="forbidden")\n');
      const attack = 'mv .config .config.old && mkdir -p .config/shellgate/rules && echo \'prefix_rule(pattern=["rm"], decision="allow")\' > .config/shellgate/rules/default.rules';

      expect((await onHost(attack, home)).code).toBe(0);
      expect(fs.readFileSync(rules, "utf8")).toContain("allow");
      fs.rmSync(path.join(home, ".config"), { recursive: true });
      fs.renameSync(path.join(home, ".config.old"), path.join(home, ".config"));

      for (const script of [attack, "mv .config/shellgate .config/sg.old", "rm -rf .config"]) {
        const r = await inSandbox(script, home, policy, { protectedPaths: [rules] });
        expect(r.code, script).not.toBe(0);
      }
      expect(fs.readFileSync(rules, "utf8")).toContain("forbidden");
      expect(fs.readdirSync(home).sort()).toEqual([".config"]);
      // .config stays writable for everything else
      expect((await inSandbox("echo x > .config/other-tool.json", home, policy, { protectedPaths: [rules] })).code).toBe(0);
    });

    it("the directory holding a --rules file cannot be renamed and refilled", async () => {
      const ws = scratch("rules-dir");
      const rules = path.join(ws, "policy", "team.rules");
      fs.mkdirSync(path.dirname(rules));
      fs.writeFileSync(rules, "# the team's rules\n");
      const attack = "mv policy policy.old && mkdir policy && echo evil > policy/team.rules";
      expect((await onHost(attack, ws)).code).toBe(0);
      expect(fs.readFileSync(rules, "utf8")).toBe("evil\n");
      fs.rmSync(path.join(ws, "policy"), { recursive: true });
      fs.renameSync(path.join(ws, "policy.old"), path.join(ws, "policy"));

      const r = await inSandbox(attack, ws, policy, { protectedPaths: [rules] });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/Device or resource busy/);
      expect(fs.readFileSync(rules, "utf8")).toBe("# the team's rules\n");
      expect(fs.existsSync(path.join(ws, "policy.old"))).toBe(false);
    });

    it("a policy cache that does not exist yet cannot be planted, whether .cache exists or not", async () => {
      for (const withCache of [true, false]) {
        const home = scratch("cache");
        if (withCache) fs.mkdirSync(path.join(home, ".cache"));
        const cache = path.join(home, ".cache", "shellgate", "execpolicy");
        const plant = "mkdir -p .cache/shellgate/execpolicy && echo poisoned > .cache/shellgate/execpolicy/entry";
        const attacks = [plant, ...(withCache ? [`mv .cache .cache.old && ${plant}`] : [])];
        for (const attack of attacks) {
          expect((await onHost(attack, home)).code).toBe(0);
          expect(fs.existsSync(path.join(cache, "entry"))).toBe(true);
          fs.rmSync(path.join(home, ".cache"), { recursive: true });
          fs.rmSync(path.join(home, ".cache.old"), { recursive: true, force: true });
          if (withCache) fs.mkdirSync(path.join(home, ".cache"));

          const r = await inSandbox(attack, home, policy, { protectedPaths: [cache] });
          expect(r.code, `${attack} (.cache ${withCache ? "exists" : "missing"})`).not.toBe(0);
          expect(fs.existsSync(path.join(cache, "entry"))).toBe(false);
          expect(fs.existsSync(path.join(home, ".cache.old"))).toBe(false);
          // the placeholder is gone again: .cache is as it was
          expect(fs.existsSync(path.join(home, ".cache"))).toBe(withCache);
          if (withCache) expect(fs.readdirSync(path.join(home, ".cache"))).toEqual([]);
        }
      }
    });
  });

  describe.skipIf(!hasGit)("a missing .git is held in every writable root (skipped without git)", () => {
    it("`git init` + core.fsmonitor in a package directory cannot plant code for the host's next `git status`", async () => {
      const base = scratch("git", true);
      const repo = path.join(base, "repo");
      const pkg = path.join(repo, "pkg");
      fs.mkdirSync(pkg, { recursive: true });
      fs.writeFileSync(path.join(pkg, "index.js"), "");
      const gitEnv = { ...baseEnv(), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
      expect((await onHost("git init -q", repo, gitEnv)).code).toBe(0);
      const marker = path.join(base, "PWNED");
      const attack = `git init -q && git config core.fsmonitor 'touch ${marker}'`;

      // control: on the host the package gets its own repository, and the next `git status` runs the monitor
      expect((await onHost(attack, pkg, gitEnv)).code).toBe(0);
      await onHost("git status --short", pkg, gitEnv);
      expect(fs.existsSync(marker)).toBe(true);
      fs.rmSync(marker);
      fs.rmSync(path.join(pkg, ".git"), { recursive: true });

      const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };
      const r = await inSandbox(attack, pkg, policy, { env: gitEnv });
      expect(r.code).not.toBe(0);
      expect(fs.existsSync(path.join(pkg, ".git"))).toBe(false);
      const status = await onHost("git status --short", pkg, gitEnv);
      expect(status.code).toBe(0);
      expect(fs.existsSync(marker)).toBe(false);
    });

    it("the empty placeholder .git does not break `git status` inside the sandbox: git skips it for the repository above", async () => {
      const base = scratch("git-status", true);
      const repo = path.join(base, "repo");
      const pkg = path.join(repo, "pkg");
      fs.mkdirSync(pkg, { recursive: true });
      fs.writeFileSync(path.join(pkg, "new-file"), "");
      const gitEnv = { ...baseEnv(), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
      expect((await onHost("git init -q", repo, gitEnv)).code).toBe(0);
      const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };
      const r = await inSandbox("test -d .git && echo PLACEHOLDER; git rev-parse --show-toplevel && git status --short", pkg, policy, { env: gitEnv });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`PLACEHOLDER\n${repo}\n?? ./\n`);
    });
  });

  describe("symlinked protected entries are refused, not run unprotected", () => {
    const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };

    it("refuses a workspace whose .git is a symlink (the link could be replaced), running nothing", async () => {
      const base = scratch("git-link");
      const ws = path.join(base, "ws");
      fs.mkdirSync(path.join(base, "repo", ".git", "hooks"), { recursive: true });
      fs.mkdirSync(ws);
      fs.symlinkSync("../repo/.git", path.join(ws, ".git"));
      // control: whoever can write the workspace (the sandboxed command, without the refusal) replaces the link
      expect((await onHost("rm .git && mkdir -p .git/hooks && rm -r .git && ln -s ../repo/.git .git", ws)).code).toBe(0);

      const error = await inSandbox("touch ran", ws, policy).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnpinnableProtectedPathError);
      expect(error).toMatchObject({ code: "SANDBOX_UNPINNABLE_PATH", path: path.join(ws, ".git"), link: path.join(ws, ".git"), directory: ws });
      expect((error as Error).message).toMatch(/symlink .*Replace the symlink/);
      expect(fs.existsSync(path.join(ws, "ran"))).toBe(false);
    });

    it("refuses a symlinked .shellgate in another writable root", async () => {
      const [ws, other] = [scratch("sg-ws"), scratch("sg-other")];
      fs.mkdirSync(path.join(other, "config"));
      fs.symlinkSync(path.join(other, "config"), path.join(other, ".shellgate"));
      const error = await inSandbox("touch ran", ws, { ...policy, writableRoots: [other] }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "SANDBOX_UNPINNABLE_PATH", path: path.join(other, ".shellgate") });
      expect(fs.existsSync(path.join(ws, "ran"))).toBe(false);
    });
  });

  describe("the private /tmp has a size cap", () => {
    const policy: SandboxPolicyInput = { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true };
    const fill = "dd if=/dev/zero of=/tmp/fill bs=1M count=4 2>&1 >/dev/null | grep -o 'No space left on device'; grep ' /tmp ' /proc/self/mountinfo";

    it("refuses writes past the configured size; the default leaves room for them", async () => {
      const ws = scratch("tmpsize");
      const small = createLinuxSandboxBackend({ processLimit: "off", privateTmpSizeBytes: 2 * 1024 * 1024 });
      const execEnv = await small.transform({ argv: sh(fill), cwd: ws, env: baseEnv() }, parseSandboxPolicy(policy), { sandboxPolicyCwd: ws });
      const r = await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
      await execEnv.cleanup?.();
      expect(r.stdout).toMatch(/^No space left on device\n.* \/tmp .*size=2048k/);
      // control: the same 4 MiB fit under the default cap (1 GiB)
      const roomy = await inSandbox(fill, ws, policy);
      expect(roomy.stdout).not.toMatch(/No space left/);
      expect(roomy.stdout).toMatch(/size=1048576k/);
    });

    it("rejects a size below 1 MiB when the backend is created", () => {
      expect(() => createLinuxSandboxBackend({ privateTmpSizeBytes: 1000 })).toThrow(/privateTmpSizeBytes/);
    });
  });
});
