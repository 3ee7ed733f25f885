// The CLI's V8 code cache: through the built bin (written once, then used as it is; a bad or
// untrusted one is never used), its file naming and trust checks, and that no sandboxed command can
// plant one for the next start.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { shellgateCacheDir } from "@shellgate/user-paths";
import { codeCacheDir, codeCacheFile, readCodeCache, variantOf, writeCodeCache } from "../../src/launch/code-cache.js";
import { makeScratch, realSandboxSkip, runBin } from "../helpers.js";

const scratch = makeScratch();
afterAll(() => scratch.cleanup());
const v8Dir = path.join(scratch.env["HOME"] as string, ".cache", "shellgate", "v8");
const cacheFiles = () => (fs.existsSync(v8Dir) ? fs.readdirSync(v8Dir).filter((n) => n.endsWith(".bin")) : []);
const run = (args: string[], env: Record<string, string> = scratch.env) => runBin(args, { env, cwd: scratch.project });

describe("the code cache through the built bin", () => {
  it("is written by the first start (owner-only) and used as it is by the next, with the same output", async () => {
    const first = await run(["exec", "--", "/bin/echo", "one"]);
    expect(first.stderr).toBe("");
    expect(first.stdout).toBe("one\n");
    const [name] = cacheFiles();
    expect(name).toMatch(new RegExp(`^shellgate\\.cjs-exec-[0-9a-f]{8}-${process.version.replaceAll(".", "\\.")}-${process.arch}-[0-9a-f]{8}\\.bin$`));
    const file = path.join(v8Dir, name as string);
    expect(fs.statSync(v8Dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const before = fs.readFileSync(file);
    const mtime = fs.statSync(file).mtimeMs;
    const second = await run(["exec", "--", "/bin/echo", "two"]);
    expect(second.stdout).toBe("two\n");
    // V8 accepted it: a refused or unusable cache is written anew when the process exits
    expect(fs.statSync(file).mtimeMs).toBe(mtime);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(cacheFiles()).toEqual([name]);
  });

  it("a corrupted cache is refused by V8: the run is unaffected and the cache is made again", async () => {
    const [name] = cacheFiles();
    const file = path.join(v8Dir, name as string);
    const size = fs.statSync(file).size;
    fs.writeFileSync(file, Buffer.alloc(size, 0x5a), { mode: 0o600 });
    const r = await run(["exec", "--", "/bin/echo", "still"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("still\n");
    expect(fs.readFileSync(file).equals(Buffer.alloc(size, 0x5a))).toBe(false);
  });

  it("a cache others may write, or a symlink, is not used (and the link's target is left alone)", async () => {
    const [name] = cacheFiles();
    const file = path.join(v8Dir, name as string);
    const good = fs.readFileSync(file);
    fs.chmodSync(file, 0o660);
    await run(["exec", "--", "/bin/true"]);
    // not used, so replaced by a fresh owner-only file (a used one is never rewritten)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const elsewhere = path.join(scratch.root, "elsewhere.bin");
    fs.writeFileSync(elsewhere, good, { mode: 0o600 });
    fs.rmSync(file);
    fs.symlinkSync(elsewhere, file);
    await run(["exec", "--", "/bin/true"]);
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(elsewhere).equals(good)).toBe(true);
  });

  it("SHELLGATE_CODE_CACHE=off: nothing is read or written", async () => {
    const other = makeScratch();
    try {
      const r = await runBin(["exec", "--", "/bin/echo", "off"], { env: { ...other.env, SHELLGATE_CODE_CACHE: "off" }, cwd: other.project });
      expect(r.stdout).toBe("off\n");
      expect(fs.existsSync(path.join(other.env["HOME"] as string, ".cache", "shellgate", "v8"))).toBe(false);
    } finally {
      other.cleanup();
    }
  });
});

describe("code cache files", () => {
  it("live in shellgate's cache directory and are named by Node.js version, architecture and the bundle's identity", () => {
    expect(shellgateCacheDir({ HOME: "/h" })).toBe("/h/.cache/shellgate");
    expect(shellgateCacheDir({ HOME: "/h", XDG_CACHE_HOME: "/x" })).toBe("/x/shellgate");
    expect(shellgateCacheDir({ HOME: "/h", XDG_CACHE_HOME: "relative" })).toBe("/h/.cache/shellgate");
    expect(codeCacheDir({ HOME: "/h" })).toBe("/h/.cache/shellgate/v8");
    expect(codeCacheDir({ HOME: "/h", SHELLGATE_CODE_CACHE: "off" })).toBeUndefined();
    const bundle = path.join(scratch.root, "bundle.cjs");
    fs.writeFileSync(bundle, "1;");
    const a = codeCacheFile("/c", bundle, fs.statSync(bundle), "exec");
    fs.writeFileSync(bundle, "22;");
    const b = codeCacheFile("/c", bundle, fs.statSync(bundle), "exec");
    expect(a).not.toBe(b);
    expect(codeCacheFile("/c", bundle, fs.statSync(bundle), "sandbox")).not.toBe(b);
    expect(path.dirname(a)).toBe("/c");
    expect(path.basename(a)).toMatch(new RegExp(`-exec-[0-9a-f]{8}-${process.version.replaceAll(".", "\\.")}-${process.arch}-`));
    // another install of the bundle (another path) has caches of its own
    expect(path.basename(codeCacheFile("/c", path.join(scratch.root, "other", "bundle.cjs"), fs.statSync(bundle), "exec")).split("-").slice(0, 3)).not.toEqual(path.basename(b).split("-").slice(0, 3));
    // one cache per command: what a run compiled is what the next run of that command needs
    expect(["exec", "sandbox", "mcp", "check", "doctor", "policy"].map((c) => variantOf([c, "x"]))).toEqual(["exec", "sandbox", "mcp", "check", "doctor", "policy"]);
    expect(variantOf(["--debug", "exec"])).toBe("exec");
    expect([[], ["--version"], ["exce"], ["--help"]].map((args) => variantOf(args))).toEqual(["other", "other", "other", "other"]);
  });

  it("are read only from an owner-only directory, and written atomically, replacing older builds' caches", () => {
    const dir = path.join(scratch.root, "cache-unit");
    const bundle = path.join(scratch.root, "bundle.cjs");
    const file = codeCacheFile(dir, bundle, fs.statSync(bundle), "exec");
    const prefix = path.basename(file).split("-").slice(0, 3).join("-");
    const older = path.join(dir, `${prefix}-v1.0.0-x64-00000000.bin`);
    const otherCommand = path.join(dir, `${prefix.replace("-exec-", "-sandbox-")}-v1.0.0-x64-00000000.bin`);
    const otherInstall = path.join(dir, "bundle.cjs-exec-ffffffff-v1.0.0-x64-00000000.bin");
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.writeFileSync(older, "old");
    fs.writeFileSync(otherCommand, "other command's");
    fs.writeFileSync(otherInstall, "other install's");
    writeCodeCache(file, Buffer.from("data"));
    expect(fs.readdirSync(dir).sort()).toEqual([path.basename(otherCommand), path.basename(otherInstall), path.basename(file)].sort());
    expect(readCodeCache(file)?.toString()).toBe("data");
    fs.chmodSync(dir, 0o777);
    expect(readCodeCache(file)).toBeUndefined();
    fs.chmodSync(dir, 0o700);
    expect(readCodeCache(path.join(dir, "missing.bin"))).toBeUndefined();
    // Into a buffer it fits in: the bytes land at its start and a view of it comes back; a buffer too
    // small is left alone and a new one holds the file.
    const into = Buffer.alloc(16, 0x2e);
    const view = readCodeCache(file, into);
    expect(view?.toString()).toBe("data");
    expect(view?.buffer).toBe(into.buffer);
    expect(into.toString()).toBe("data............");
    const small = Buffer.alloc(3, 0x2e);
    const fresh = readCodeCache(file, small);
    expect(fresh?.toString()).toBe("data");
    expect(fresh?.buffer).not.toBe(small.buffer);
    expect(small.toString()).toBe("...");
    fs.chmodSync(dir, 0o777);
    expect(readCodeCache(file, into)).toBeUndefined();
    fs.chmodSync(dir, 0o700);
    // A FIFO in a cache file's place is no cache (the control: a plain read of it is still blocked after a second).
    const fifo = path.join(dir, "fifo.bin");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    expect(spawnSync(process.execPath, ["-e", `require("node:fs").readFileSync(${JSON.stringify(fifo)})`], { timeout: 1000 }).signal).toBe("SIGTERM");
    expect(readCodeCache(fifo)).toBeUndefined();
  });
});

const skip = await realSandboxSkip();
describe.skipIf(skip !== undefined)(`no sandboxed command can plant a code cache for the next start${skip ? ` (skipped: ${skip})` : ""}`, () => {
  // The scratch home lies under /tmp, a writable root of workspace-write: only the pin keeps it. Two
  // layers pin it: the orchestrator's defaultProtectedPaths (and the sandbox command's list) hold
  // shellgate's cache directory, and on Linux the backend holds the probe cache's directory, the same
  // one; either alone passes these tests.
  const plant = (dir: string) => `mkdir -p "${dir}" && echo planted > "${dir}/shellgate.cjs-planted.bin" && echo PLANTED`;

  it("through exec: refused inside the sandbox; the same command unsandboxed (control) plants it", async () => {
    const r = await run(["exec", plant(v8Dir)]);
    expect(r.stdout).not.toContain("PLANTED");
    expect(fs.existsSync(path.join(v8Dir, "shellgate.cjs-planted.bin"))).toBe(false);
    const control = await run(["exec", "--sandbox", "danger-full-access", plant(v8Dir)]);
    expect(control.stdout).toContain("PLANTED");
    fs.rmSync(path.join(v8Dir, "shellgate.cjs-planted.bin"));
  });

  it("through shellgate sandbox, and with the cache directory not made yet", async () => {
    const other = makeScratch();
    try {
      const dir = path.join(other.env["HOME"] as string, ".cache", "shellgate", "v8");
      // the scratch root is made a writable root: only the protection keeps the cache directory
      const r = await runBin(["sandbox", "--writable-root", other.root, "--", "/bin/sh", "-c", plant(dir)], { env: { ...other.env, SHELLGATE_CODE_CACHE: "off" }, cwd: other.project });
      expect(r.stdout).not.toContain("PLANTED");
      expect(fs.existsSync(path.join(dir, "shellgate.cjs-planted.bin"))).toBe(false);
      // control: the same command, unsandboxed
      const control = spawnSync("/bin/sh", ["-c", plant(dir)], { cwd: other.project, encoding: "utf8" });
      expect(control.stdout).toContain("PLANTED");
    } finally {
      other.cleanup();
    }
  });
});
