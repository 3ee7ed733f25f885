// Binaries the host side runs (bubblewrap, the helper, the compiler at build time) come only from
// places a sandboxed command cannot write: never from PATH, never from a directory someone else
// can write. Each attack is first shown to work when the planted file is run directly (control).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidSandboxPathError, parseSandboxPolicy } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, findBwrap, LinuxSandboxError, locateHelper, probeLinuxSandbox } from "../src/index.js";
import { probeHelper, resolveBwrap } from "../src/probe-layers.js";
import { checkHostBinary, type TrustFs, type TrustStat } from "../src/trusted-path.js";
import { baseEnv, bwrapMissing, run } from "./support.js";

const onLinux = process.platform === "linux";

/** A fake file system: path → [kind, uid, mode] (kind d, f or l→target). */
function fakeFs(entries: Record<string, [string, number, number] | ["l", string]>): TrustFs {
  const stat = (p: string): TrustStat => {
    const e = entries[p];
    if (!e) throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
    const [kind] = e;
    return {
      uid: kind === "l" ? 0 : (e[1] as number),
      mode: kind === "l" ? 0o777 : (e[2] as number),
      isDirectory: () => kind === "d",
      isFile: () => kind === "f",
      isSymbolicLink: () => kind === "l",
    };
  };
  return {
    lstat: stat,
    readlink: (p) => {
      const e = entries[p];
      if (!e || e[0] !== "l") throw Object.assign(new Error("EINVAL"), { code: "EINVAL" });
      return e[1] as string;
    },
  };
}

const system = {
  "/": ["d", 0, 0o755],
  "/usr": ["d", 0, 0o755],
  "/usr/bin": ["d", 0, 0o755],
  "/usr/bin/bwrap": ["f", 0, 0o755],
  "/bin": ["l", "usr/bin"],
  "/tmp": ["d", 0, 0o1777],
  "/home": ["d", 0, 0o755],
  "/home/u": ["d", 1000, 0o755],
  "/home/u/bin": ["d", 1000, 0o755],
  "/home/u/bin/bwrap": ["f", 1000, 0o755],
  "/opt": ["d", 0, 0o775],
  "/opt/bwrap": ["f", 0, 0o755],
  "/srv": ["d", 0, 0o755],
  "/srv/bwrap": ["f", 0, 0o757],
  "/srv/link-to-home": ["l", "/home/u/bin/bwrap"],
  "/home/u/link-to-usr": ["l", "/usr/bin/bwrap"],
  "/tmp/mine": ["d", 1000, 0o700],
  "/tmp/mine/bwrap": ["f", 1000, 0o755],
  "/srv/loop": ["l", "/srv/loop"],
  "/srv/noexec": ["f", 0, 0o644],
} as const;
const fsys = fakeFs(system as unknown as Record<string, [string, number, number]>);

describe("checkHostBinary (the rules, on a fake file system)", () => {
  it("accepts a root-owned file in root-owned directories, also through a root-owned symlink", () => {
    expect(checkHostBinary("/usr/bin/bwrap", { fs: fsys })).toEqual({ trusted: true, realPath: "/usr/bin/bwrap" });
    expect(checkHostBinary("/bin/bwrap", { fs: fsys })).toEqual({ trusted: true, realPath: "/usr/bin/bwrap" });
  });

  it.each([
    ["bwrap", /not an absolute path/],
    ["/opt/bwrap", /directory \/opt is writable by its group \(mode 0775\)/],
    ["/srv/bwrap", /\/srv\/bwrap is writable by its group or others \(mode 0757\)/],
    ["/home/u/bin/bwrap", /directory \/home\/u is owned by uid 1000, not root/],
    ["/srv/link-to-home", /directory \/home\/u is owned by uid 1000/],
    // the link's target is fine, but the link lives in a directory uid 1000 can rewrite
    ["/home/u/link-to-usr", /directory \/home\/u is owned by uid 1000/],
    ["/nope/bwrap", /\/nope does not exist/],
    ["/srv/loop", /too many symbolic links/],
    ["/srv/noexec", /not executable/],
    ["/usr/bin", /not a regular file/],
  ])("refuses %s, naming the failed check", (file, reason) => {
    const verdict = checkHostBinary(file, { fs: fsys });
    expect(verdict.trusted).toBe(false);
    if (!verdict.trusted) expect(verdict.reason).toMatch(reason);
  });

  it("accepts another owner only when asked to (explicitly configured paths), and sticky directories on the way", () => {
    expect(checkHostBinary("/home/u/bin/bwrap", { fs: fsys, alsoOwnedBy: [1000] }).trusted).toBe(true);
    expect(checkHostBinary("/tmp/mine/bwrap", { fs: fsys, alsoOwnedBy: [1000] }).trusted).toBe(true);
    expect(checkHostBinary("/tmp/mine/bwrap", { fs: fsys }).trusted).toBe(false);
    expect(checkHostBinary("/opt/bwrap", { fs: fsys, alsoOwnedBy: [1000] }).trusted).toBe(false);
  });
});

skipUnless((onLinux ? undefined : `not Linux (${process.platform})`)).describe("bubblewrap lookup on this machine", () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "sg-bwrap-lookup-"));
  const marker = path.join(base, "planted-ran");
  const plantedDir = path.join(base, "node_modules", ".bin");
  const planted = path.join(plantedDir, "bwrap");
  fs.mkdirSync(plantedDir, { recursive: true });
  fs.writeFileSync(planted, `#!/bin/sh\necho ran > ${marker}\nexit 0\n`, { mode: 0o755 });
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  it("never takes bwrap from PATH, even when a planted one comes first", async () => {
    // control: the planted script does run when invoked
    expect((await run([planted])).code).toBe(0);
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);
    const saved = process.env["PATH"];
    process.env["PATH"] = `${plantedDir}:${saved ?? ""}`;
    try {
      const found = findBwrap();
      expect(found === undefined || ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].includes(found)).toBe(true);
      const report = await probeLinuxSandbox({ refresh: true });
      expect(report.bwrap.path).not.toBe(planted);
    } finally {
      process.env["PATH"] = saved;
    }
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("rejects a relative bwrapPath with a typed error naming the option", () => {
    expect(() => createLinuxSandboxBackend({ bwrapPath: "bwrap" })).toThrow(InvalidSandboxPathError);
    expect(() => createLinuxSandboxBackend({ bwrapPath: "node_modules/.bin/bwrap" })).toThrow(/bwrapPath: "node_modules\/.bin\/bwrap" must be an absolute path/);
    expect(resolveBwrap("bwrap")).toEqual({ refused: 'bwrapPath "bwrap" must be an absolute path' });
  });

  it("refuses a configured bwrap in a directory others can write, naming path and check, and never runs it", async () => {
    const open = path.join(base, "open");
    fs.mkdirSync(open);
    fs.chmodSync(open, 0o777);
    const bad = path.join(open, "bwrap");
    fs.copyFileSync(planted, bad);
    fs.chmodSync(bad, 0o755);
    const resolved = resolveBwrap(bad);
    expect(resolved).toEqual({ refused: `refusing to run ${bad} on the host: directory ${open} is writable by others (mode 0777)` });
    const backend = createLinuxSandboxBackend({ bwrapPath: bad, allowWeakerIsolation: true });
    const availability = await backend.isAvailable();
    expect(availability.available).toBe(false);
    if (!availability.available) expect(availability.reason).toContain(`directory ${open} is writable by others`);
    const error = await backend
      .transform({ argv: ["true"], cwd: base, env: baseEnv() }, parseSandboxPolicy({ mode: "read-only" }), { sandboxPolicyCwd: base })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LinuxSandboxError);
    expect(error).toMatchObject({ failure: "untrusted-binary" });
    expect(String((error as Error).message)).toContain(bad);
    // and a file writable by others
    fs.chmodSync(open, 0o755);
    fs.chmodSync(bad, 0o777);
    expect(resolveBwrap(bad)).toMatchObject({ refused: expect.stringContaining("writable by its group or others (mode 0777)") });
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("a configured bwrap in a safe place of the current user works; inside a writable root it is refused", async (ctx) => {
    const skip = await bwrapMissing();
    if (skip) ctx.skip(skip);
    const system = findBwrap() as string;
    const safeDir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-own-bwrap-"));
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "sg-ws-bwrap-"));
    try {
      const own = path.join(safeDir, "bwrap");
      fs.copyFileSync(system, own);
      fs.chmodSync(own, 0o755);
      const backend = createLinuxSandboxBackend({ bwrapPath: own });
      expect(await backend.isAvailable()).toMatchObject({ available: true });
      // /tmp itself (a writable root by default) would hold the binary: keep it out here
      const policy = parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true });
      const env = await backend.transform({ argv: ["true"], cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws });
      expect(env.argv).toContain(own);
      await env.cleanup?.();
      // the same binary inside the workspace: a sandboxed command could replace it for the next run
      const inside = path.join(ws, "bwrap");
      fs.copyFileSync(system, inside);
      fs.chmodSync(inside, 0o755);
      fs.chmodSync(ws, 0o755);
      const exposed = createLinuxSandboxBackend({ bwrapPath: inside });
      const error = await exposed
        .transform({ argv: ["true"], cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws })
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ failure: "untrusted-binary" });
      expect(String((error as Error).message)).toContain(`inside the writable root ${fs.realpathSync(ws)}`);
      // a directory whose name starts with two dots is still inside the workspace (`..bin` is not `..`)
      const dotted = path.join(ws, "..bin", "bwrap");
      fs.mkdirSync(path.dirname(dotted), { mode: 0o755 });
      fs.copyFileSync(system, dotted);
      fs.chmodSync(dotted, 0o755);
      const dottedError = await createLinuxSandboxBackend({ bwrapPath: dotted })
        .transform({ argv: ["true"], cwd: ws, env: baseEnv() }, policy, { sandboxPolicyCwd: ws })
        .catch((e: unknown) => e);
      expect(dottedError).toMatchObject({ failure: "untrusted-binary" });
      expect(String((dottedError as Error).message)).toContain(`inside the writable root ${fs.realpathSync(ws)}`);
    } finally {
      fs.rmSync(safeDir, { recursive: true, force: true });
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });

  it("a disk-cached report never brings back a bwrap that no longer passes the check", async (ctx) => {
    const skip = await bwrapMissing();
    if (skip) ctx.skip(skip);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-cache-bwrap-"));
    try {
      const own = path.join(dir, "bin", "bwrap");
      fs.mkdirSync(path.dirname(own));
      fs.copyFileSync(findBwrap() as string, own);
      fs.chmodSync(own, 0o755);
      const cacheFile = path.join(dir, "cache.json");
      const first = await probeLinuxSandbox({ bwrapPath: own, cacheFile });
      expect(first.bwrap).toMatchObject({ available: true, path: own });
      expect(fs.existsSync(cacheFile)).toBe(true);
      // the directory becomes writable by others: the cached "available" must not be reused
      fs.chmodSync(path.dirname(own), 0o777);
      const copy = path.join(dir, "cache-copy.json");
      fs.copyFileSync(cacheFile, copy); // another file name: a miss in the in-process cache, a hit on disk
      const second = await probeLinuxSandbox({ bwrapPath: own, cacheFile: copy });
      expect(second.bwrap.available).toBe(false);
      expect(second.bwrap.refused).toBe(true);
      expect(second.bwrap.path).toBeUndefined();
      expect(second.bwrap.detail).toMatch(/writable by others/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

skipUnless((onLinux ? undefined : `not Linux (${process.platform})`) ?? (locateHelper() ? undefined : "the helper is not built (run the package build)")).describe("the helper on the host", () => {
  it("is refused, not run, when it lies in a directory others can write", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-helper-trust-"));
    try {
      const marker = path.join(dir, "ran");
      const open = path.join(dir, "open");
      fs.mkdirSync(open);
      fs.chmodSync(open, 0o777);
      const fake = path.join(open, "shellgate-sandbox-helper");
      fs.writeFileSync(fake, `#!/bin/sh\necho ran > ${marker}\necho landlock_abi=7; echo seccomp=ok\n`, { mode: 0o755 });
      // control: it runs, and would pass for a working helper
      expect((await run([fake, "--probe"])).stdout).toMatch(/seccomp=ok/);
      fs.rmSync(marker);
      const r = await probeHelper(fake);
      expect(r.helper.available).toBe(false);
      expect(r.helper.detail).toContain(`directory ${open} is writable by others`);
      expect(fs.existsSync(marker)).toBe(false);
      // the real helper passes
      expect((await probeHelper(locateHelper())).helper.available).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

skipUnless((onLinux ? undefined : `not Linux (${process.platform})`)).describe("the build script's compiler", () => {
  const script = fileURLToPath(new URL("../scripts/build-helper.mjs", import.meta.url));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-build-cc-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const marker = path.join(dir, "planted-ran");
  const bin = path.join(dir, "node_modules", ".bin");
  fs.mkdirSync(bin, { recursive: true });
  for (const name of ["cc", "gcc", "as", "ld", "collect2"]) {
    fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho ${name} >> ${marker}\nexit 1\n`, { mode: 0o755 });
  }
  const build = (env: Record<string, string>) => {
    try {
      return { code: 0, out: execFileSync(process.execPath, [script, "--out", path.join(dir, "out")], { env, encoding: "utf8", stdio: "pipe" }) };
    } catch (error) {
      const e = error as { status: number; stderr: string; stdout: string };
      return { code: e.status, out: `${e.stdout}${e.stderr}` };
    }
  };

  it.skipIf(!fs.existsSync("/usr/bin/cc"))("uses /usr/bin/cc, not a planted cc/as/ld first on PATH (needs /usr/bin/cc)", async () => {
    // control: the planted compiler runs when looked up on this PATH
    expect((await run(["sh", "-c", "cc --version"], { env: { PATH: `${bin}:/usr/bin:/bin` } })).code).toBe(1);
    expect(fs.readFileSync(marker, "utf8")).toBe("cc\n");
    fs.rmSync(marker);
    const r = build({ PATH: `${bin}:/usr/bin:/bin`, COMPILER_PATH: bin, GCC_EXEC_PREFIX: `${bin}/` });
    expect(r.out).toMatch(/built .* with \/usr\/bin\/cc/);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(dir, "out", "shellgate-sandbox-helper"))).toBe(true);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("refuses a relative $CC and an absolute one in a directory others can write", () => {
    const rel = build({ PATH: `${bin}:/usr/bin:/bin`, CC: "cc" });
    expect(rel.code).toBe(1);
    expect(rel.out).toMatch(/CC="cc" must be an absolute path/);
    const open = path.join(dir, "open");
    fs.mkdirSync(open, { recursive: true });
    fs.chmodSync(open, 0o777);
    fs.copyFileSync(path.join(bin, "cc"), path.join(open, "cc"));
    fs.chmodSync(path.join(open, "cc"), 0o755);
    const bad = build({ PATH: "/usr/bin:/bin", CC: path.join(open, "cc") });
    expect(bad.code).toBe(1);
    expect(bad.out).toContain(`refusing to run the C compiler ${path.join(open, "cc")}: directory ${open} is writable by others`);
    expect(fs.existsSync(marker)).toBe(false);
  });
});
