import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScratch, runBin, type RunResult, type Scratch, realSandboxSkip } from "../../helpers.js";

// The real sandbox through the built bin: each explained denial is checked against a control run
// that applies the suggested way out (or runs unsandboxed), so the suggestion is shown to work.

let s: Scratch;
let outside: string;
let server: http.Server;
let port = 0;

beforeAll(async () => {
  s = makeScratch();
  // /tmp is a writable root under workspace-write: "outside the workspace" must be somewhere else.
  outside = realpathSync(mkdtempSync("/var/tmp/sg-denial-"));
  server = http.createServer((_req, res) => res.end("pong\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  s.cleanup();
  rmSync(outside, { recursive: true, force: true });
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const exec = (args: string[], env: Record<string, string> = s.env, cwd = s.project) =>
  runBin(["exec", "--no-default-rules", "--approval-policy", "never", ...args], { env, cwd });

/** shellgate's own sandbox lines on stderr. */
const denialLines = (r: RunResult) => r.stderr.split("\n").filter((l) => l.startsWith("shellgate exec: sandbox: "));

/** The flags the suggestion names, as argv words (`--writable-root DIR`, `--allow-broad-workspace`, `--network on`). */
function suggestedFlags(line: string): string[] {
  const m = /re-run with ((?:--[a-z-]+(?: (?!--)[^\s(;]+)? ?)+)/.exec(line);
  if (!m) throw new Error(`no flags in ${JSON.stringify(line)}`);
  return m[1]!.trim().split(" ");
}

const skip = await realSandboxSkip();

describe.skipIf(skip !== undefined)("shellgate exec explains sandbox denials (built bin, real sandbox)", () => {
  it("a write outside the workspace: one stderr line with --writable-root DIR, and that flag makes it work", async () => {
    const target = path.join(outside, "x");
    const denied = await exec(["--", "touch", target]);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toBe("");
    expect(denialLines(denied)).toEqual([
      `shellgate exec: sandbox: writing to ${target} was refused (read-only: outside the writable roots); re-run with --writable-root ${outside} to allow writes there`,
    ]);
    expect(existsSync(target)).toBe(false);
    const flags = suggestedFlags(denialLines(denied)[0]!);
    expect(flags).toEqual(["--writable-root", outside]);
    const ok = await exec([...flags, "--", "touch", target]);
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(existsSync(target)).toBe(true);
  });

  it("a write into $HOME never suggests the home directory as a writable root; it says why", async () => {
    const home = path.join(outside, "home");
    mkdirSync(home);
    const env = { ...s.env, HOME: home };
    const denied = await exec(["--", "sh", "-c", 'echo x > "$HOME/x"'], env);
    expect(denied.code).not.toBe(0);
    const [line] = denialLines(denied);
    expect(line).toContain(`writing to ${home}/x was refused`);
    expect(line).toContain(`lies in ${home}, which holds your home directory`);
    expect(line).not.toContain("--writable-root");
    expect(line).not.toContain("--allow-broad-workspace");
    expect(existsSync(path.join(home, "x"))).toBe(false);
    // control: the same write outside the sandbox lands (so the refusal was the sandbox's)
    const control = await exec(["--sandbox", "danger-full-access", "--", "sh", "-c", 'echo x > "$HOME/x"'], env);
    expect(control.code, control.stderr).toBe(0);
    expect(existsSync(path.join(home, "x"))).toBe(true);
  });

  it("a write to a shell rc file or into ~/.ssh names no writable root and says why; unsandboxed both land (control)", async () => {
    const home = path.join(outside, "rc-home");
    mkdirSync(path.join(home, ".ssh"), { recursive: true });
    const env = { ...s.env, HOME: home };
    const rc = await exec(["--", "sh", "-c", 'echo "echo planted" >> "$HOME/.bashrc"'], env);
    expect(rc.code).not.toBe(0);
    const [rcLine] = denialLines(rc);
    expect(rcLine).toContain(`writing to ${home}/.bashrc was refused`);
    expect(rcLine).toContain(`${home}/.bashrc is read at start-up by your shell or the host's tools`);
    const ssh = await exec(["--", "sh", "-c", 'echo "ssh-ed25519 AAAA planted" >> "$HOME/.ssh/authorized_keys"'], env);
    expect(ssh.code).not.toBe(0);
    const [sshLine] = denialLines(ssh);
    expect(sshLine).toContain(`${home}/.ssh/authorized_keys lies in ${home}/.ssh, a credential store`);
    for (const line of [rcLine, sshLine]) {
      expect(line).not.toContain("--writable-root");
      expect(line).not.toContain("--allow-broad-workspace");
      // the ways out that remain: a rule, an approved escalation, full access
      expect(line).toContain("write somewhere else, or run the command outside the sandbox: allow it with a rule");
      expect(line).toContain("--escalate");
      expect(line).toContain("--sandbox danger-full-access");
    }
    expect(existsSync(path.join(home, ".bashrc"))).toBe(false);
    expect(existsSync(path.join(home, ".ssh", "authorized_keys"))).toBe(false);
    // control: the way out it names (full access) lands both writes, so the refusals were the sandbox's
    for (const script of ['echo x >> "$HOME/.bashrc"', 'echo k >> "$HOME/.ssh/authorized_keys"']) {
      const control = await exec(["--sandbox", "danger-full-access", "--", "sh", "-c", script], env);
      expect(control.code, control.stderr).toBe(0);
    }
    expect(existsSync(path.join(home, ".bashrc"))).toBe(true);
    expect(existsSync(path.join(home, ".ssh", "authorized_keys"))).toBe(true);
  });

  it("a write into shellgate's own cache names no writable root (every sandbox holds it read-only, so that root would be a dead end)", async () => {
    const home = path.join(outside, "cache-home");
    mkdirSync(path.join(home, ".cache", "shellgate"), { recursive: true });
    const env = { ...s.env, HOME: home, XDG_CACHE_HOME: path.join(home, ".cache") };
    const denied = await exec(["--", "sh", "-c", 'echo x > "$HOME/.cache/shellgate/planted"'], env);
    expect(denied.code).not.toBe(0);
    const [line] = denialLines(denied);
    expect(line).toContain(`lies in ${home}/.cache/shellgate, which every sandbox holds read-only`);
    expect(line).not.toContain("--writable-root");
    // control: granting that root as a writable root is indeed no way in
    const granted = await exec(["--writable-root", path.join(home, ".cache", "shellgate"), "--", "sh", "-c", 'echo x > "$HOME/.cache/shellgate/planted"'], env);
    expect(granted.code).not.toBe(0);
    expect(existsSync(path.join(home, ".cache", "shellgate", "planted"))).toBe(false);
  });

  it("git init in a new project: the hint blames the held .git, never git's templates; the rule it names and full access both run it", async () => {
    const fresh = realpathSync(mkdtempSync(path.join(s.project, "new-project-")));
    const denied = await exec(["--", "git", "init", "-q"], s.env, fresh);
    expect(denied.code).toBe(128);
    const [line] = denialLines(denied);
    expect(line).toContain(`writing to ${fresh}/.git/`);
    expect(line).toContain("(.git is read-only in the sandbox by design)");
    expect(line).toContain("a hook or setting a sandboxed command planted there would run later, outside the sandbox");
    expect(line).not.toContain("--writable-root /");
    expect(line).not.toContain("templates");
    expect(line).toContain("re-run with --sandbox danger-full-access");
    const rule = /prefix_rule\(pattern=\["git", "init"\], decision="allow"\)/.exec(line!)?.[0];
    expect(rule).toBeDefined();
    expect(existsSync(path.join(fresh, ".git", "HEAD"))).toBe(false);
    // controls: the named rule runs it outside the sandbox, and so does full access
    const rules = s.write("rules/git-init.rules", `${rule}\n`);
    const ok = await runBin(["exec", "--no-default-rules", "--rules", rules, "--approval-policy", "never", "--", "git", "init", "-q"], { env: s.env, cwd: fresh });
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(path.join(fresh, ".git", "HEAD"))).toBe(true);
    const other = realpathSync(mkdtempSync(path.join(s.project, "new-project-")));
    const full = await exec(["--sandbox", "danger-full-access", "--", "git", "init", "-q"], s.env, other);
    expect(full.code, full.stderr).toBe(0);
    expect(existsSync(path.join(other, ".git", "HEAD"))).toBe(true);
  });

  it.skipIf(spawnSync("npm", ["--version"]).status !== 0)("npm install needs no grant: sandboxed npm has its own cache", async () => {
    const home = path.join(outside, "npm-home");
    mkdirSync(path.join(home, ".npm"), { recursive: true });
    const env = { ...s.env, HOME: home, XDG_CACHE_HOME: path.join(home, ".cache") };
    const pkg = path.join(s.root, "pkg");
    mkdirSync(pkg);
    writeFileSync(path.join(pkg, "package.json"), '{"name":"sg-denial-pkg","version":"1.0.0"}\n');
    expect(spawnSync("npm", ["pack", "--silent"], { cwd: pkg, env }).status).toBe(0);
    const project = path.join(s.root, "npm-project");
    mkdirSync(project);
    // A local tarball goes through the cache and needs no registry, so only the cache is in the way.
    const install = ["--", "npm", "install", "--no-audit", "--no-fund", path.join(pkg, "sg-denial-pkg-1.0.0.tgz")];
    const ok = await exec(install, env, project);
    expect(ok.code, ok.stderr).toBe(0);
    expect(denialLines(ok)).toEqual([]);
    expect(existsSync(path.join(project, "node_modules", "sg-denial-pkg", "package.json"))).toBe(true);
    expect(existsSync(path.join(home, ".cache", "shellgate-sandbox", "npm", "_cacache"))).toBe(true);
  });

  it("a write to /etc names no writable root: /etc is a system directory", async () => {
    const name = `/etc/shellgate-denial-test-${process.pid}`;
    const denied = await exec(["--", "touch", name]);
    expect(denied.code).toBe(1);
    const [line] = denialLines(denied);
    expect(line).toContain("lies in /etc, a system directory");
    expect(line).not.toContain("--writable-root");
    expect(existsSync(name)).toBe(false);
  });

  it("git commit in a workspace: .git is read-only by design; the allow rule it suggests runs the commit outside the sandbox", async () => {
    const repo = path.join(s.root, "repo");
    mkdirSync(repo);
    writeFileSync(path.join(s.env.HOME!, ".gitconfig"), "[user]\n\tname = t\n\temail = t@example.com\n");
    expect(spawnSync("git", ["init", "-q", repo]).status).toBe(0);
    const commit = ["--", "git", "commit", "-q", "--allow-empty", "-m", "from shellgate"];
    const denied = await exec(commit, s.env, repo);
    expect(denied.code).toBe(128);
    const [line] = denialLines(denied);
    expect(line).toContain(`writing to ${realpathSync(repo)}/.git/index.lock was refused (.git is read-only in the sandbox by design)`);
    expect(line).toContain("--writable-root cannot change that");
    const rule = /prefix_rule\(pattern=\["git", "commit"\], decision="allow"\)/.exec(line!)?.[0];
    expect(rule).toBeDefined();
    // Control: the suggested rule, in a rules file, lets the same command run (outside the sandbox).
    const rules = s.write("rules/git.rules", `${rule}\n`);
    const ok = await runBin(["exec", "--no-default-rules", "--rules", rules, "--approval-policy", "never", ...commit], { env: s.env, cwd: repo });
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(spawnSync("git", ["-C", repo, "log", "--format=%s"], { encoding: "utf8" }).stdout).toBe("from shellgate\n");
  });

  skipUnless(existsSync("/usr/bin/curl") ? undefined : "no /usr/bin/curl").it("curl to the host's loopback with the network off suggests --network on (not a domain grant), which works", async () => {
    const url = `http://127.0.0.1:${port}/`;
    const denied = await exec(["--", "curl", "-sS", url]);
    expect(denied.code).toBe(7);
    const [line] = denialLines(denied);
    expect(line).toMatch(/^shellgate exec: sandbox: network access is off \(127\.0\.0\.1 could not be reached\); re-run with --network on/);
    const flags = suggestedFlags(line!);
    expect(flags).toEqual(["--network", "on"]);
    const ok = await exec([...flags, "--", "curl", "-sS", url]);
    expect(ok.stdout).toBe("pong\n");
    expect(ok.code).toBe(0);
  });

  it("`getent hosts example.com` fails silently with the network off and is explained from the command; with --network on shellgate does not blame the sandbox", async () => {
    const denied = await exec(["--", "getent", "hosts", "example.com"]);
    expect(denied.code).toBe(2);
    expect(denialLines(denied)).toEqual([
      "shellgate exec: sandbox: network access is off (example.com could not be reached); re-run with --allow-domain example.com (only that host, through shellgate's network proxy) or with --network on (the whole network), or re-run with --escalate at a terminal, under an approval policy other than never, and approve it to run it outside the sandbox",
    ]);
    // This machine may have no resolver at all: the control shows only that the explanation goes away.
    const control = await exec(["--network", "on", "--", "getent", "hosts", "example.com"]);
    expect(denialLines(control)).toEqual([]);
  });

  it("--json carries sandboxDenial written for the CLI user", async () => {
    const r = await exec(["--json", "--", "sh", "-c", `echo x > ${outside}/y`]);
    const json = JSON.parse(r.stdout) as { exitCode: number; sandboxDenial?: Record<string, unknown> };
    expect(json.exitCode).toBe(2);
    expect(json.sandboxDenial).toMatchObject({
      kind: "filesystem",
      cause: "outside-writable-roots",
      paths: [`${outside}/y`],
      suggestion: `re-run with --writable-root ${outside} to allow writes there`,
      audience: "cli",
      grant: { writableRoot: outside },
    });
    expect(denialLines(r)).toEqual([]);
  });

  it("no line for a command's own failure, nor for `Permission denied` about a workspace file", async () => {
    const own = await exec(["--", "sh", "-c", "echo boom >&2; exit 3"]);
    expect(own).toMatchObject({ code: 3, stderr: "boom\n" });
    const perm = await exec(["--", "sh", "-c", "echo 'cat: ./notes.txt: Permission denied' >&2; exit 1"]);
    expect(perm.code).toBe(1);
    expect(denialLines(perm)).toEqual([]);
    const missing = await exec(["--", "ls", path.join(s.project, "nope")]);
    expect(missing.code).toBe(2);
    expect(denialLines(missing)).toEqual([]);
  });

  it("`find . -delete` in a workspace with no .codex: the held name is explained as protected, and nothing else was refused", async () => {
    const ws = mkdtempSync(path.join(s.project, "fresh-"));
    writeFileSync(path.join(ws, "junk"), "x");
    const r = await exec(["--", "find", ".", "-delete"], s.env, ws);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Device or resource busy/);
    const lines = denialLines(r);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/is read-only in the sandbox by design/);
    expect(existsSync(path.join(ws, "junk"))).toBe(false); // the workspace's own files were deleted
    // control: unsandboxed, the same command deletes everything and fails on nothing
    const control = spawnSync("find", [".", "-delete"], { cwd: mkdtempSync(path.join(s.project, "control-")) });
    expect(control.status).toBe(0);
  });

  skipUnless(existsSync("/usr/bin/python3") ? undefined : "no /usr/bin/python3").it("a raw Python socket refused with EPERM is the network being off; with --network on it connects", async () => {
    const script = `import socket; socket.create_connection(("127.0.0.1", ${port}), timeout=5).close(); print("connected")`;
    const denied = await exec(["--", "/usr/bin/python3", "-c", script]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain("[Errno 1] Operation not permitted");
    expect(denialLines(denied)).toHaveLength(1);
    expect(denialLines(denied)[0]).toContain("--network on");
    const ok = await exec(["--network", "on", "--", "/usr/bin/python3", "-c", script]);
    expect(ok.stdout).toBe("connected\n");
    expect(denialLines(ok)).toEqual([]);
  });
});
