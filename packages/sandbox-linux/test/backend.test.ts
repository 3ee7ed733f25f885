// The backend as callers use it: policies other than the escape suite's, bad input, availability.
import fs from "node:fs";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { CommandNotFoundError, InvalidSandboxPathError, parseSandboxPolicy, SandboxError } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, LinuxSandboxError } from "../src/index.js";
import { baseEnv, bwrapMissing, landlockMissing, makeDirs, nobodyCannotReach, run, runSandboxed, sh } from "./support.js";

/** Why the root-to-nobody tests cannot run here (computed once), or undefined. */
const nobodySkip = nobodyCannotReach();

const bwrapSkip = await bwrapMissing();
const landlockSkip = await landlockMissing();

describe("bad input", () => {
  const dirs = makeDirs("badinput");
  const backend = createLinuxSandboxBackend();
  afterAll(() => dirs.remove());
  const transform = (argv: string[], policy: unknown, cwd = dirs.ws) =>
    backend.transform({ argv, cwd, env: baseEnv() }, parseSandboxPolicy(policy), { sandboxPolicyCwd: cwd });

  it("rejects a relative or missing writable root with a typed path error", async () => {
    expect(() => parseSandboxPolicy({ mode: "workspace-write", writableRoots: ["rel/dir"] })).toThrow(SandboxError);
    const missing = path.join(dirs.base, "nope");
    await expect(transform(["true"], { mode: "workspace-write", writableRoots: [missing] })).rejects.toMatchObject({
      code: "SANDBOX_INVALID_PATH", field: "writableRoots.0",
    });
  });

  it("rejects a command that does not exist, before anything runs", async () => {
    const error = await transform(["definitely-not-a-command-xyz"], { mode: "workspace-write" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandNotFoundError);
    expect(error).toMatchObject({ code: "SANDBOX_COMMAND_NOT_FOUND", program: "definitely-not-a-command-xyz", message: "command not found: definitely-not-a-command-xyz" });
    await expect(transform([path.join(dirs.ws, "missing.sh")], { mode: "workspace-write" })).rejects.toBeInstanceOf(CommandNotFoundError);
    await expect(transform([], { mode: "workspace-write" })).rejects.toMatchObject({ field: "argv" });
  });

  it("rejects a missing, relative or non-directory cwd", async () => {
    await expect(transform(["true"], { mode: "workspace-write" }, path.join(dirs.base, "gone"))).rejects.toBeInstanceOf(InvalidSandboxPathError);
    await expect(transform(["true"], { mode: "workspace-write" }, "relative")).rejects.toMatchObject({ field: "cwd" });
    const file = path.join(dirs.base, "file");
    fs.writeFileSync(file, "");
    await expect(transform(["true"], { mode: "workspace-write" }, file)).rejects.toMatchObject({ field: "cwd" });
  });

  it.skipIf(nobodySkip !== undefined)(`rejects a cwd the user cannot read (checked as nobody)${nobodySkip ? ` (skipped: ${nobodySkip})` : ""}`, async () => {
    const locked = path.join(dirs.base, "locked");
    fs.mkdirSync(locked, { mode: 0o700 });
    fs.chmodSync(dirs.base, 0o755);
    const index = new URL("../dist/index.js", import.meta.url).pathname;
    const script = `
      const { createLinuxSandboxBackend } = await import(${JSON.stringify(index)});
      const cwd = ${JSON.stringify(locked)};
      try {
        await createLinuxSandboxBackend().transform({ argv: ["true"], cwd, env: { PATH: "/usr/bin:/bin" } }, { mode: "read-only", deniedReadPaths: [] }, { sandboxPolicyCwd: cwd });
        console.log("no error");
      } catch (e) { console.log(e.code, e.field, e.message); }`;
    const r = await run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "--input-type=module", "-e", script]);
    expect(r.stdout).toMatch(/^SANDBOX_INVALID_PATH cwd .*is not accessible \(EACCES\)/);
  });

  it("refuses (never runs weaker) when bubblewrap cannot run and weaker isolation is not permitted", async () => {
    const strict = createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap" });
    const availability = await strict.isAvailable();
    expect(availability.available).toBe(false);
    if (!availability.available) expect(availability.reason).toMatch(/bwrap/);
    const error = await strict
      .transform({ argv: ["true"], cwd: dirs.ws, env: baseEnv() }, parseSandboxPolicy({ mode: "read-only" }), { sandboxPolicyCwd: dirs.ws })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "SANDBOX_UNAVAILABLE" });
  });

  it.skipIf(landlockSkip !== undefined)(`refuses denied-read paths under the Landlock fallback${landlockSkip ? ` (skipped: ${landlockSkip})` : ""}`, async () => {
    const weaker = createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true });
    const availability = await weaker.isAvailable();
    expect(availability).toMatchObject({ available: true });
    if (availability.available) expect(availability.isolation).toMatch(/weaker/);
    const error = await weaker
      .transform({ argv: ["true"], cwd: dirs.ws, env: baseEnv() }, parseSandboxPolicy({ mode: "read-only", deniedReadPaths: [dirs.outside] }), { sandboxPolicyCwd: dirs.ws })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LinuxSandboxError);
    expect(error).toMatchObject({ code: "SANDBOX_TRANSFORM_FAILED", failure: "not-enforceable" });
  });

  it("passes danger-full-access through unsandboxed, saying so", async () => {
    const env = await transform(["true"], { mode: "danger-full-access" });
    expect(env).toMatchObject({ argv: ["true"], sandboxType: "none", isolation: "none" });
    expect(env.env["CODEX_SANDBOX_NETWORK_DISABLED"]).toBeUndefined();
  });
});

describe.skipIf(bwrapSkip !== undefined)(`policies under bwrap${bwrapSkip ? ` (skipped: ${bwrapSkip})` : ""}`, () => {
  const dirs = makeDirs("policies");
  const backend = createLinuxSandboxBackend();
  afterAll(() => dirs.remove());
  const inSandbox = (argv: string[], policy: Parameters<typeof runSandboxed>[2]) => runSandboxed(backend, argv, policy, dirs.ws);

  it("read-only: the workspace is not writable, /dev/null is", async () => {
    const r = await inSandbox(sh("echo x > /dev/null && echo x > inside"), { mode: "read-only" });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(fs.existsSync(path.join(dirs.ws, "inside"))).toBe(false);
  });

  it("/tmp is the host's /tmp when it is a writable root (the default)", async () => {
    const name = `sg-tmp-shared-${process.pid}`;
    const r = await inSandbox(sh(`echo shared > /tmp/${name}`), { mode: "workspace-write" });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(`/tmp/${name}`, "utf8")).toBe("shared\n");
    fs.rmSync(`/tmp/${name}`);
  });

  it("/tmp is private (writable, empty, discarded) when excluded", async () => {
    const name = `sg-tmp-private-${process.pid}`;
    fs.writeFileSync(`/tmp/${name}-host`, "host");
    try {
      const r = await inSandbox(sh(`echo private > /tmp/${name} && cat /tmp/${name} && ls /tmp`), { mode: "workspace-write", excludeSlashTmp: true });
      expect(r.code).toBe(0);
      expect(r.stdout.split("\n")[0]).toBe("private");
      expect(r.stdout).not.toContain(`${name}-host`);
      expect(fs.existsSync(`/tmp/${name}`)).toBe(false);
    } finally {
      fs.rmSync(`/tmp/${name}-host`);
    }
  });

  it("denied-read paths are unreadable (file and directory), and readable without the sandbox", async () => {
    const secretDir = path.join(dirs.outside, "secrets");
    fs.mkdirSync(secretDir);
    fs.writeFileSync(path.join(secretDir, "key"), "TOPSECRET");
    const secretFile = path.join(dirs.outside, "token");
    fs.writeFileSync(secretFile, "TOKEN");
    const script = `cat ${secretFile}; cat ${path.join(secretDir, "key")}; ls ${secretDir}`;
    const open = await inSandbox(sh(script), { mode: "workspace-write" });
    expect(open.stdout).toContain("TOPSECRET");
    expect(open.stdout).toContain("TOKEN");
    const denied = await inSandbox(sh(script), { mode: "workspace-write", deniedReadPaths: [secretDir, secretFile] });
    expect(denied.stdout).not.toContain("TOPSECRET");
    expect(denied.stdout).not.toContain("TOKEN");
    expect(fs.readFileSync(path.join(secretDir, "key"), "utf8")).toBe("TOPSECRET");
  });

  it("rejects a cwd inside a denied-read path instead of failing inside bubblewrap", async () => {
    const error = await backend
      .transform({ argv: ["true"], cwd: dirs.ws, env: baseEnv() }, parseSandboxPolicy({ mode: "read-only", deniedReadPaths: [dirs.base] }), { sandboxPolicyCwd: dirs.ws })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidSandboxPathError);
    expect(error).toMatchObject({ field: "cwd" });
  });

  it("blocks first-time creation of .codex and .shellgate in the workspace and leaves no stub behind", async () => {
    const r = await inSandbox(sh("mkdir .codex || mkdir -p .shellgate/x || echo > .codex/config.toml"), { mode: "workspace-write" });
    expect(r.code).not.toBe(0);
    expect(fs.existsSync(path.join(dirs.ws, ".codex"))).toBe(false);
    expect(fs.existsSync(path.join(dirs.ws, ".shellgate"))).toBe(false);
  });

  skipUnless(fs.existsSync("/usr/bin/script") && fs.existsSync("/bin/bash") ? undefined : "needs /usr/bin/script and /bin/bash").it(
    "under a PTY the command has no controlling terminal (--new-session): /dev/tty cannot be opened, shells run without job control",
    async () => {
      const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
      const inPty = (argv: readonly string[]) => run(["script", "-qec", argv.map(quote).join(" "), "/dev/null"], { cwd: dirs.ws });
      const probeTty = sh("(echo > /dev/tty) 2>/dev/null && echo HAVE-TTY || echo NO-TTY; /bin/bash --norc -ic true");
      const control = await inPty(probeTty);
      expect(control.stdout).toContain("HAVE-TTY");
      expect(control.stdout).not.toMatch(/no job control/);
      const execEnv = await backend.transform({ argv: probeTty, cwd: dirs.ws, env: baseEnv() }, parseSandboxPolicy({ mode: "workspace-write" }), { sandboxPolicyCwd: dirs.ws });
      try {
        const r = await inPty(execEnv.argv);
        expect(r.stdout).toContain("NO-TTY");
        expect(r.stdout).toMatch(/no job control/);
      } finally {
        await execEnv.cleanup?.();
      }
    },
  );

  it("keeps extra protected paths read-only inside writable roots", async () => {
    const rules = path.join(dirs.ws, "rules");
    fs.mkdirSync(rules);
    const execEnv = await backend.transform(
      { argv: sh("echo x > rules/default.rules"), cwd: dirs.ws, env: baseEnv() },
      parseSandboxPolicy({ mode: "workspace-write" }),
      { sandboxPolicyCwd: dirs.ws, protectedPaths: [rules] },
    );
    expect(execEnv.argv).toContain(rules);
    await execEnv.cleanup?.();
  });

  it.skipIf(nobodySkip !== undefined)(`works for an unprivileged user (nobody) too${nobodySkip ? ` (skipped: ${nobodySkip})` : ""}`, async () => {
    fs.chmodSync(dirs.base, 0o777);
    fs.chmodSync(dirs.ws, 0o777);
    // Transformed as root but spawned as nobody: a pids cgroup made for root could not be joined
    // by nobody, so this run goes without one (limits.test.ts covers nobody's own runs); the
    // placeholders' lock files are made by the spawning user, so their directory is handed to nobody.
    const lockDir = path.join(dirs.base, "locks");
    const execEnv = await createLinuxSandboxBackend({ processLimit: "off", placeholderLockDir: lockDir }).transform(
      { argv: sh("echo ok > by-nobody && id -u && (echo x > /etc/sg-nobody || true)"), cwd: dirs.ws, env: baseEnv() },
      parseSandboxPolicy({ mode: "workspace-write" }),
      { sandboxPolicyCwd: dirs.ws },
    );
    fs.chownSync(lockDir, 65534, 65534);
    const r = await run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", ...execEnv.argv], { cwd: dirs.ws, env: { ...execEnv.env } });
    await execEnv.cleanup?.();
    expect(r.stderr).toMatch(/Read-only file system|Permission denied/);
    expect(r.stdout.trim()).toBe("65534");
    expect(fs.readFileSync(path.join(dirs.ws, "by-nobody"), "utf8")).toBe("ok\n");
    expect(fs.existsSync("/etc/sg-nobody")).toBe(false);
  });
});

describe.skipIf(bwrapSkip !== undefined)(`the helper stays out of reach${bwrapSkip ? ` (skipped: ${bwrapSkip})` : ""}`, () => {
  it("keeps the helper read-only even when the workspace contains it", async () => {
    const { locateHelper } = await import("../src/index.js");
    const helper = locateHelper() as string;
    const workspace = path.dirname(path.dirname(path.dirname(helper))); // the package directory
    const backend = createLinuxSandboxBackend();
    const r = await runSandboxed(backend, sh(`echo > ${helper}.probe-write; : >> ${helper}`), { mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true }, workspace);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(fs.existsSync(`${helper}.probe-write`)).toBe(false);
  });

  skipUnless(landlockSkip).it("refuses the Landlock fallback when the helper lies inside a writable root", async () => {
    const { locateHelper } = await import("../src/index.js");
    const helper = locateHelper() as string;
    const workspace = path.dirname(path.dirname(path.dirname(helper)));
    const weaker = createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true });
    const error = await weaker
      .transform({ argv: ["true"], cwd: workspace, env: baseEnv() }, parseSandboxPolicy({ mode: "workspace-write" }), { sandboxPolicyCwd: workspace })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: "not-enforceable" });
  });
});
