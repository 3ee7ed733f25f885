// Sandboxed tools get caches of their own, and the host's tool homes keep what the host later runs
// read-only even when granted as writable roots. Through the committed bin, on the real sandbox;
// each refusal has a control that makes the same write unsandboxed and shows it lands.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { realSandboxSkip, runBin, type RunResult } from "./helpers.js";

const skip = await realSandboxSkip();
const npmMissing = spawnSync("npm", ["--version"], { encoding: "utf8" }).status === 0 ? undefined : "npm is not installed";

const created: string[] = [];
afterAll(() => created.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/**
 * A home, cache and workspace outside /tmp (under /var/tmp when it exists): /tmp is a writable root
 * of every default run, and a home inside it would make the host's caches writable for that reason
 * alone. Modes are permissive so the suite also runs as an unprivileged user.
 */
function scratch() {
  const parent = fs.existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir();
  const root = fs.realpathSync(fs.mkdtempSync(path.join(parent, "sg-toolcache-")));
  created.push(root);
  fs.chmodSync(root, 0o755);
  const home = path.join(root, "home");
  const project = path.join(root, "project");
  fs.mkdirSync(project, { recursive: true });
  fs.mkdirSync(path.join(home, ".npm", "_npx"), { recursive: true });
  const cacheHome = path.join(home, ".cache");
  // /tmp and TMPDIR are left out, so the host's caches are writable only by an explicit grant
  fs.mkdirSync(path.join(home, ".config", "shellgate"), { recursive: true });
  fs.writeFileSync(path.join(home, ".config", "shellgate", "config.toml"), "[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n");
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    XDG_CACHE_HOME: cacheHome,
    SHELL: "/bin/bash",
    LANG: "C",
    NO_COLOR: "1",
  };
  return { root, home, project, env, sandboxCache: path.join(cacheHome, "shellgate-sandbox"), npx: path.join(home, ".npm", "_npx") };
}

const exec = (args: string[], cwd: string, env: Record<string, string>): Promise<RunResult> =>
  runBin(["exec", "--approval-policy", "never", ...args], { cwd, env });

describe.skipIf(skip !== undefined || npmMissing !== undefined)(
  `sandboxed tool caches and tool homes through the CLI${skip ? ` (skipped: ${skip})` : npmMissing ? ` (skipped: ${npmMissing})` : ""}`,
  () => {
    it("shellgate exec -- npm config get cache prints the sandbox's own cache, created 0700; unsandboxed npm keeps the host's", async () => {
      const s = scratch();
      const r = await exec(["--", "npm", "config", "get", "cache"], s.project, s.env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe(path.join(s.sandboxCache, "npm"));
      expect(fs.lstatSync(s.sandboxCache).mode & 0o777).toBe(0o700);
      // control: outside the sandbox the variable is not set, and npm uses the host's ~/.npm
      const host = await exec(["--sandbox", "danger-full-access", "--", "npm", "config", "get", "cache"], s.project, s.env);
      expect(host.code, host.stderr).toBe(0);
      expect(host.stdout.trim()).toBe(path.join(s.home, ".npm"));
    });

    it("a host value of npm_config_cache is replaced for the sandboxed run and does not become writable", async () => {
      const s = scratch();
      const env = { ...s.env, npm_config_cache: path.join(s.home, ".npm") };
      const r = await exec(["--", "npm", "config", "get", "cache"], s.project, env);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe(path.join(s.sandboxCache, "npm"));
      const write = await exec(["--", "sh", "-c", 'echo x > "$HOME/.npm/planted"'], s.project, env);
      expect(write.code).not.toBe(0);
      expect(fs.existsSync(path.join(s.home, ".npm", "planted"))).toBe(false);
      // control: the same write unsandboxed lands
      const control = await exec(["--sandbox", "danger-full-access", "--", "sh", "-c", 'echo x > "$HOME/.npm/planted"'], s.project, env);
      expect(control.code, control.stderr).toBe(0);
      expect(fs.existsSync(path.join(s.home, ".npm", "planted"))).toBe(true);
    });

    it("shellgate sandbox -- npm config get cache prints the sandbox's own cache too", async () => {
      const s = scratch();
      const r = await runBin(["sandbox", "--", "npm", "config", "get", "cache"], { cwd: s.project, env: s.env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim()).toBe(path.join(s.sandboxCache, "npm"));
    });

    it("a sandboxed write to the host's ~/.npm/_npx fails, even with ~/.npm granted as a writable root; unsandboxed it lands", async () => {
      const s = scratch();
      const npm = path.join(s.home, ".npm");
      const plant = (file: string) => `mkdir -p "${path.dirname(file)}" && echo 'process.exit(0)' > "${file}"`;
      const planted = path.join(s.npx, "0123abcd", "node_modules", ".bin", "tool");
      const bare = await exec(["--", "sh", "-c", plant(planted)], s.project, s.env);
      expect(bare.code).not.toBe(0);
      const granted = await exec(["--writable-root", npm, "--", "sh", "-c", plant(planted)], s.project, s.env);
      expect(granted.code).not.toBe(0);
      expect(granted.stderr).toMatch(/Read-only file system/);
      expect(fs.existsSync(planted)).toBe(false);
      // control: the grant does make the rest of ~/.npm writable (the refusal is the carve-out's)
      const logs = await exec(["--writable-root", npm, "--", "sh", "-c", `mkdir -p "${npm}/_logs" && echo x > "${npm}/_logs/ok"`], s.project, s.env);
      expect(logs.code, logs.stderr).toBe(0);
      expect(fs.existsSync(path.join(npm, "_logs", "ok"))).toBe(true);
      // control: the same write unsandboxed succeeds
      const control = await exec(["--sandbox", "danger-full-access", "--", "sh", "-c", plant(planted)], s.project, s.env);
      expect(control.code, control.stderr).toBe(0);
      expect(fs.existsSync(planted)).toBe(true);
    });

    it("~/.local granted: a .pth file in user site-packages and a program in ~/.local/bin cannot be planted; unsandboxed they can", async () => {
      const s = scratch();
      const local = path.join(s.home, ".local");
      const site = path.join(local, "lib", "python3.11", "site-packages");
      fs.mkdirSync(site, { recursive: true });
      // as on a real system: a protected path's missing parent would be held read-only too
      fs.mkdirSync(path.join(local, "share"), { recursive: true });
      const pth = path.join(site, "zz-planted.pth");
      const bin = path.join(local, "bin", "python3");
      const script = `echo 'import os' > "${pth}"; mkdir -p "${path.dirname(bin)}" && echo '#!/bin/sh' > "${bin}"; true`;
      const r = await exec(["--writable-root", local, "--", "sh", "-c", script], s.project, s.env);
      expect(r.code, r.stderr).toBe(0);
      expect(fs.existsSync(pth)).toBe(false);
      expect(fs.existsSync(bin)).toBe(false);
      // control: elsewhere in ~/.local the grant holds
      const share = await exec(["--writable-root", local, "--", "sh", "-c", `mkdir "${local}/share/x" && echo y > "${local}/share/x/f"`], s.project, s.env);
      expect(share.code, share.stderr).toBe(0);
      const control = await exec(["--sandbox", "danger-full-access", "--", "sh", "-c", script], s.project, s.env);
      expect(control.code, control.stderr).toBe(0);
      expect(fs.existsSync(pth)).toBe(true);
      expect(fs.existsSync(bin)).toBe(true);
    });

    it("shellgate doctor shows where the sandbox's caches are", async () => {
      const s = scratch();
      const r = await runBin(["doctor", "--json"], { cwd: s.project, env: s.env });
      const report = JSON.parse(r.stdout) as { toolCaches: { dir: string; variables: Array<{ name: string; value: string }> } };
      expect(report.toolCaches.dir).toBe(s.sandboxCache);
      expect(report.toolCaches.variables).toContainEqual(expect.objectContaining({ name: "npm_config_cache", value: path.join(s.sandboxCache, "npm") }));
      const text = await runBin(["doctor"], { cwd: s.project, env: s.env });
      expect(text.stdout).toContain(`npm_config_cache=${path.join(s.sandboxCache, "npm")}`);
    });
  },
);

describe.skipIf(skip !== undefined)(`credential stores in a granted home through the CLI${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("the home granted: credential stores and keyrings (existing or not) stay read-only, the rest of the home is writable; unsandboxed they land", async () => {
    const s = scratch();
    fs.mkdirSync(path.join(s.home, ".ssh"), { mode: 0o700 });
    fs.writeFileSync(path.join(s.home, ".netrc"), "machine registry.example.org login me password secret\n", { mode: 0o600 });
    // one existing store, one existing credential file, and stores that do not exist yet
    const targets = [
      ".ssh/authorized_keys", ".netrc", ".gnupg/gpg-agent.conf", ".aws/credentials", ".azure/config", ".kube/config", ".docker/config.json",
      ".pki/nssdb/x", ".password-store/x.gpg", ".config/gcloud/credentials.db", ".local/share/keyrings/login.keyring",
    ];
    const script = [...targets, "ok"].map((t) => `mkdir -p "$(dirname "$HOME/${t}")" 2>/dev/null; echo planted >> "$HOME/${t}" 2>/dev/null && echo "wrote ${t}"`).join("; ");
    const granted = ["--writable-root", s.home, "--allow-broad-workspace"];
    const r = await exec([...granted, "--", "sh", "-c", script], s.project, s.env);
    expect(r.stdout.trim().split("\n")).toEqual(["wrote ok"]);
    expect(fs.readFileSync(path.join(s.home, "ok"), "utf8")).toBe("planted\n");
    expect(fs.readFileSync(path.join(s.home, ".netrc"), "utf8")).not.toContain("planted");
    for (const t of targets.filter((t) => t !== ".netrc")) expect(fs.existsSync(path.join(s.home, t)), t).toBe(false);
    // the missing stores were held by placeholders that are gone again
    for (const d of [".gnupg", ".aws", ".password-store", ".local/share/keyrings"]) expect(fs.existsSync(path.join(s.home, d)), d).toBe(false);
    // control: unsandboxed, every write lands
    const control = await exec(["--sandbox", "danger-full-access", "--", "sh", "-c", script], s.project, s.env);
    expect(control.code, control.stderr).toBe(0);
    expect(control.stdout.trim().split("\n")).toEqual([...targets, "ok"].map((t) => `wrote ${t}`));
    for (const t of targets) expect(fs.readFileSync(path.join(s.home, t), "utf8"), t).toContain("planted");
  });
});
