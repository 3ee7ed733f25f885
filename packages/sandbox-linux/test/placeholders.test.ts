// Placeholder directories on the host, made and removed by the real helper under its locks: who
// creates them, when a cleanup may remove them, and what it never removes.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLinuxSandboxBackend, LinuxSandboxError, locateHelper } from "../src/index.js";
import { defaultPlaceholderLockDir, fallbackPlaceholderLockDir, placeholderArgs, placeholderLockFile, PLACEHOLDER_MODE, preparePlaceholderLockDir, releasePlaceholders } from "../src/placeholders.js";
import { run } from "./support.js";

const helper = locateHelper();
const skip = process.platform !== "linux" ? "not Linux" : helper ? undefined : "helper not built (run the package build)";

/** Whether any process of the group `pgid` still exists. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

describe("placeholder lock files", () => {
  it("are named by the placeholder's path: the same path, the same file; other paths, other files", () => {
    const names = ["/w/.codex", "/w/.git", "/w/.codex/", "/v/.codex", "/w/.codeх"].map((p) => placeholderLockFile("/locks", p));
    expect(new Set(names).size).toBe(names.length);
    expect(placeholderLockFile("/locks", "/w/.codex")).toBe(names[0]);
    for (const n of names) expect(n).toMatch(/^\/locks\/[0-9a-f]{16}\.lock$/);
    expect(placeholderArgs("/locks", ["/w/.codex"])).toEqual(["--placeholder", names[0], "/w/.codex"]);
  });

  it("are kept per run or per session, nothing else: another value is refused when the backend is created", () => {
    expect(() => createLinuxSandboxBackend({ placeholders: "per-session" })).not.toThrow();
    expect(() => createLinuxSandboxBackend({ placeholders: "sometimes" as "per-run" })).toThrow(/placeholders/);
  });
});

describe.skipIf(skip !== undefined)(`placeholder directories${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const h = helper as string;
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "sg-placeholders-"));
  const locks = path.join(base, "locks");
  fs.mkdirSync(locks, { mode: 0o700 });
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
  let counter = 0;
  const fresh = (): string => path.join(base, `p${++counter}`);
  /** What a run's launch does before bubblewrap: make and lock the placeholder, then exec `argv`. */
  const hold = (dir: string, argv: string[]) => [h, ...placeholderArgs(locks, [dir]), "--exec-only", "--", ...argv];

  it("are made by the run's helper, marked 1755 whatever the umask, and removed by it once the run has ended", async () => {
    const dir = fresh();
    const r = await run(["/bin/sh", "-c", 'umask 077; exec "$@"', "sh", ...hold(dir, ["/bin/sh", "-c", `stat -c %a ${dir}; ls -A ${dir} | wc -l`])]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${PLACEHOLDER_MODE.toString(8)}\n0\n`);
    // No cleanup was asked for: the helper waited for its program and removed what it made.
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("leave the cleanup nothing to start when the run's helper has removed them (control: one left over is removed)", async () => {
    const dir = fresh();
    await run(hold(dir, ["/bin/true"]));
    expect(fs.existsSync(dir)).toBe(false);
    // A cleanup of nothing starts no process: a helper path that cannot run proves it.
    await releasePlaceholders("/nonexistent/helper", locks, [dir]);
    // Control: a leftover (a run whose helper was killed) is there, and the real helper removes it.
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chmodSync(dir, PLACEHOLDER_MODE);
    await releasePlaceholders(h, locks, [dir]);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("end the way the run's program ended: its exit code, or killed by the same signal (forwarded to it)", async () => {
    const dir = fresh();
    expect((await run(hold(dir, ["/bin/sh", "-c", "exit 7"]))).code).toBe(7);
    const marker = path.join(base, `sleeping-${counter}`);
    const [program, ...args] = hold(dir, ["/bin/sh", "-c", `echo $$ > ${marker}; exec sleep 30`]);
    const child = spawn(program as string, args, { stdio: "ignore" });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    for (let i = 0; i < 300 && !(fs.existsSync(marker) && fs.readFileSync(marker, "utf8").endsWith("\n")); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const inner = Number(fs.readFileSync(marker, "utf8"));
    child.kill("SIGTERM");
    expect(await ended).toEqual({ code: null, signal: "SIGTERM" });
    // The signal reached the program (not just the helper), and the placeholder went with the run.
    expect(() => process.kill(inner, 0)).toThrow();
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("end with the last process of the run, not before: an orphan of the program is waited for (control: the program alone ends first)", async () => {
    const dir = fresh();
    const mark = path.join(base, `orphan-${counter}`);
    // In use the orphan is the sandbox's init, still tearing its PID namespace down.
    // Its output elsewhere: a pipe it held would keep the test waiting for it either way.
    const script = `(sleep 0.3; touch ${mark}) >/dev/null 2>&1 & exit 0`;
    await run(["/bin/sh", "-c", script]);
    expect(fs.existsSync(mark)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 500));
    fs.rmSync(mark, { force: true });
    const r = await run(hold(dir, ["/bin/sh", "-c", script]));
    expect(r.code).toBe(0);
    expect(fs.existsSync(mark)).toBe(true);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("stay while a run holds their lock (from before they are made until its sandbox has them mounted), and go with the last run", async () => {
    const dir = fresh();
    // Without bubblewrap the lock simply stays with the program: a run still setting up.
    const [program, ...args] = hold(dir, ["/bin/sleep", "30"]);
    // A group of its own, killed whole below: in use bubblewrap dies with the helper (--die-with-parent).
    const child = spawn(program as string, args, { stdio: "ignore", detached: true });
    try {
      for (let i = 0; i < 200 && !fs.existsSync(dir); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(fs.lstatSync(dir).isDirectory()).toBe(true);
      await releasePlaceholders(h, locks, [dir]);
      expect(fs.lstatSync(dir).isDirectory()).toBe(true);
      // Unlocked, the same cleanup removes it. Control: the lock was what kept it.
    } finally {
      process.kill(-(child.pid as number), "SIGKILL");
      await new Promise((resolve) => child.once("close", resolve));
      // The program holds the lock too (it runs with the helper's descriptors): wait until the whole
      // group is gone, or the cleanup below may still find the lock held.
      for (let i = 0; i < 200 && groupAlive(child.pid as number); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Killed, the run's helper removed nothing: the cleanup does.
    expect(fs.lstatSync(dir).isDirectory()).toBe(true);
    await releasePlaceholders(h, locks, [dir]);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("a run waits for a cleanup holding the exclusive lock, then makes its placeholder", async () => {
    const dir = fresh();
    const lock = placeholderLockFile(locks, dir);
    fs.writeFileSync(lock, "", { mode: 0o600 });
    const released = path.join(base, `released-${counter}`);
    // The holder marks the moment just before it lets go; the run's command looks for the mark.
    const holder = spawn("flock", ["-x", lock, "/bin/sh", "-c", `echo held; sleep 0.4; touch ${released}`], { stdio: ["ignore", "pipe", "ignore"] });
    await new Promise((resolve) => holder.stdout.once("data", resolve));
    expect(fs.existsSync(released)).toBe(false);
    const r = await run(hold(dir, ["/bin/sh", "-c", `test -d ${dir} && echo MADE; test -e ${released} && echo AFTER`]));
    expect(r.stdout).toBe("MADE\nAFTER\n");
    await releasePlaceholders(h, locks, [dir]);
  });

  it("a cleanup never removes a user's own directory, a non-empty one, a symlink, or a missing one", async () => {
    const own = fresh();
    fs.mkdirSync(own, { mode: 0o755 });
    const full = fresh();
    fs.mkdirSync(full);
    fs.chmodSync(full, PLACEHOLDER_MODE);
    fs.writeFileSync(path.join(full, "config.toml"), "x");
    const target = fresh();
    fs.mkdirSync(target);
    fs.chmodSync(target, PLACEHOLDER_MODE);
    const link = fresh();
    fs.symlinkSync(target, link);
    const missing = fresh();
    const r = await run([h, "--release-placeholders", ...placeholderArgs(locks, [own, full, link, missing])]);
    expect(r.code).toBe(0);
    expect(fs.lstatSync(own).isDirectory()).toBe(true);
    expect(fs.readdirSync(full)).toEqual(["config.toml"]);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.lstatSync(target).isDirectory()).toBe(true);
    // Control: the marked, empty directory behind the link is removed when named itself.
    await releasePlaceholders(h, locks, [target]);
    expect(fs.existsSync(target)).toBe(false);
  });

  it("a run mounts a directory that is there already as it is: neither marks it nor lets the cleanup remove it", async () => {
    const own = fresh();
    fs.mkdirSync(own, { mode: 0o700 });
    expect((await run(hold(own, ["/bin/true"]))).code).toBe(0);
    expect(fs.lstatSync(own).mode & 0o7777).toBe(0o700);
    await releasePlaceholders(h, locks, [own]);
    expect(fs.lstatSync(own).isDirectory()).toBe(true);
  });

  it("kept for a session: made and marked by the holder, left by the runs and by every cleanup while it holds them, removed when its stdin ends", async () => {
    const dir = fresh();
    const holder = spawn(h, ["--hold-placeholders", ...placeholderArgs(locks, [dir])], { stdio: ["pipe", "pipe", "inherit"] });
    const ready = await new Promise<string>((resolve) => holder.stdout.once("data", (d: Buffer) => resolve(d.toString())));
    expect(ready).toBe("ready\n");
    expect(fs.statSync(dir).mode & 0o7777).toBe(PLACEHOLDER_MODE);
    // A run takes the same shared lock, finds the placeholder there, and its end leaves it.
    expect((await run(hold(dir, ["/bin/true"]))).code).toBe(0);
    await releasePlaceholders(h, locks, [dir]);
    expect(fs.existsSync(dir)).toBe(true);
    const ended = new Promise((resolve) => holder.on("close", resolve));
    holder.stdin.end();
    expect(await ended).toBe(0);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("a session's holder that is killed leaves a marked leftover, which the next cleanup removes", async () => {
    const dir = fresh();
    const holder = spawn(h, ["--hold-placeholders", ...placeholderArgs(locks, [dir])], { stdio: ["pipe", "pipe", "inherit"] });
    await new Promise((resolve) => holder.stdout.once("data", resolve));
    const ended = new Promise((resolve) => holder.on("close", resolve));
    holder.kill("SIGKILL");
    await ended;
    expect(fs.existsSync(dir)).toBe(true);
    await releasePlaceholders(h, locks, [dir]);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("refuse a lock file that is a symlink, and bad arguments, with exit 125 and the reason", async () => {
    const dir = fresh();
    const lock = placeholderLockFile(locks, dir);
    fs.symlinkSync(path.join(base, "elsewhere"), lock);
    const r = await run(hold(dir, ["/bin/true"]));
    expect(r.code).toBe(125);
    expect(r.stderr).toContain(`open lock file ${lock}`);
    expect(fs.existsSync(dir)).toBe(false);
    expect(fs.existsSync(path.join(base, "elsewhere"))).toBe(false);
    for (const [args, message] of [
      [["--placeholder", lock, dir, "--net", "off", "--", "/bin/true"], /only meaningful with --exec-only/],
      [["--placeholder", "relative.lock", dir, "--exec-only", "--", "/bin/true"], /absolute paths/],
      [["--release-placeholders"], /takes only --placeholder/],
      [["--release-placeholders", "--placeholder", lock, dir, "--", "/bin/true"], /takes only --placeholder/],
      [["--hold-placeholders"], /takes only --placeholder/],
      [["--hold-placeholders", "--placeholder", lock, dir, "--exec-only", "--", "/bin/true"], /takes only --placeholder/],
      [["--hold-placeholders", "--release-placeholders", "--placeholder", lock, dir], /exclude each other/],
    ] as const) {
      const bad = await run([h, ...args]);
      expect(bad.code, args.join(" ")).toBe(125);
      expect(bad.stderr).toMatch(message);
    }
  });

  it("the lock directory is made owner-only, tightened when others may write it, and refused when it is not this user's directory", async () => {
    const made = path.join(base, "made", "locks");
    expect(await preparePlaceholderLockDir(made)).toBe(made);
    expect(fs.lstatSync(made).mode & 0o777).toBe(0o700);
    const loose = path.join(base, "loose");
    fs.mkdirSync(loose);
    fs.chmodSync(loose, 0o777);
    await preparePlaceholderLockDir(loose);
    expect(fs.lstatSync(loose).mode & 0o777).toBe(0o700);
    const link = path.join(base, "link-locks");
    fs.symlinkSync(locks, link);
    const file = path.join(base, "file-locks");
    fs.writeFileSync(file, "");
    for (const bad of [link, file]) {
      const error = await preparePlaceholderLockDir(bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LinuxSandboxError);
      expect((error as LinuxSandboxError).failure).toBe("setup-failed");
      expect((error as Error).message).toContain(bad);
      expect((error as Error).message).toContain("placeholderLockDir");
    }
  });

  it("without a configured directory: the one under the cache home, else /tmp/shellgate-UID/locks for a user whose home cannot be written", async () => {
    const cache = path.join(base, "xdg-cache");
    const saved = process.env["XDG_CACHE_HOME"];
    try {
      process.env["XDG_CACHE_HOME"] = cache;
      expect(defaultPlaceholderLockDir()).toBe(path.join(cache, "shellgate", "locks"));
      expect(await preparePlaceholderLockDir()).toBe(path.join(cache, "shellgate", "locks"));
      // a file where the cache directory should be: the home is unusable, the fallback is taken
      process.env["XDG_CACHE_HOME"] = path.join(base, "file-locks");
      expect(await preparePlaceholderLockDir()).toBe(fallbackPlaceholderLockDir());
      expect(fallbackPlaceholderLockDir()).toBe(`/tmp/shellgate-${process.getuid?.()}/locks`);
      expect(fs.lstatSync(fallbackPlaceholderLockDir()).mode & 0o777).toBe(0o700);
    } finally {
      if (saved === undefined) delete process.env["XDG_CACHE_HOME"];
      else process.env["XDG_CACHE_HOME"] = saved;
    }
  });
});
