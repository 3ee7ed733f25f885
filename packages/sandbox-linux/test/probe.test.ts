import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isCi, skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { findBwrap, locateHelper, probeLinuxSandbox } from "../src/index.js";
import { probeCacheKey, writeProbeCache } from "../src/probe-cache.js";

const onLinux = process.platform === "linux";

describe("probeLinuxSandbox", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-probe-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("runs once per process and is cached; refresh probes again", async () => {
    const a = probeLinuxSandbox();
    expect(probeLinuxSandbox()).toBe(a);
    const b = probeLinuxSandbox({ refresh: true });
    expect(b).not.toBe(a);
    expect((await b).isolation).toBe((await a).isolation);
  });

  it("derives the isolation level from the layers and explains every missing one", async () => {
    const r = await probeLinuxSandbox();
    const base = r.helper.available && r.seccomp.available;
    const expected = base && r.bwrap.available ? "full" : base && r.landlock.available ? "weaker" : "none";
    expect(r.level).toBe(expected);
    for (const layer of [r.helper, r.seccomp, r.bwrap, r.landlock]) {
      if (!layer.available) expect(r.reasons.join("\n")).toContain(layer.detail);
    }
  });

  skipUnless((process.platform === "linux" ? undefined : `not Linux (${process.platform})`)).it("reports a bwrap that is not there, and falls back to Landlock at most", async () => {
    const r = await probeLinuxSandbox({ bwrapPath: "/nonexistent/bwrap" });
    expect(r.bwrap.available).toBe(false);
    expect(r.reasons.some((x) => x.startsWith("bwrap:"))).toBe(true);
    expect(r.level).not.toBe("full");
  });

  skipUnless((process.platform === "linux" ? undefined : `not Linux (${process.platform})`) ?? (locateHelper() ? undefined : "the helper is not built (run the package build)")).it("verifies seccomp for real and reads the Landlock ABI from the kernel", async () => {
    const r = await probeLinuxSandbox();
    expect(r.helper.available).toBe(true);
    expect(r.seccomp.available).toBe(true);
    expect(r.landlock.abi).toBeGreaterThanOrEqual(0);
    expect(r.landlock.available).toBe(r.landlock.abi >= 1);
  });

  skipUnless((process.platform === "linux" ? undefined : `not Linux (${process.platform})`)).it("keeps a disk cache whose paths are never trusted", async () => {
    const file = path.join(dir, "cache.json");
    const fresh = await probeLinuxSandbox({ cacheFile: file });
    expect(fs.existsSync(file)).toBe(true);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe("600");
    // tamper: same key, but the report names other binaries
    const key = probeCacheKey(findBwrap(), locateHelper());
    const tampered = { ...fresh, helper: { ...fresh.helper, path: "/evil/helper" }, bwrap: { ...fresh.bwrap, path: "/evil/bwrap" } };
    const other = path.join(dir, "tampered.json");
    await writeProbeCache(other, key, tampered);
    const read = await probeLinuxSandbox({ cacheFile: other });
    expect(read.helper.path).toBe(fresh.helper.path);
    expect(read.bwrap.path).toBe(fresh.bwrap.path);
    // a cache for another kernel/boot is ignored and replaced
    const stale = path.join(dir, "stale.json");
    await writeProbeCache(stale, { ...key, bootId: "another-boot" }, { ...fresh, level: "none", isolation: "none" });
    expect((await probeLinuxSandbox({ cacheFile: stale })).level).toBe(fresh.level);
    expect(JSON.parse(fs.readFileSync(stale, "utf8")).key.bootId).toBe(key.bootId);
  });

  skipUnless((process.platform === "linux" ? undefined : `not Linux (${process.platform})`)).it("takes a FIFO in the cache file's place for no cache, and replaces it", async () => {
    const fifo = path.join(dir, "fifo.json");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    // The control: a plain read of it is still blocked after a second.
    expect(spawnSync(process.execPath, ["-e", `require("node:fs").readFileSync(${JSON.stringify(fifo)})`], { timeout: 1000 }).signal).toBe("SIGTERM");
    const fresh = await probeLinuxSandbox();
    expect((await probeLinuxSandbox({ cacheFile: fifo })).level).toBe(fresh.level);
    expect(fs.lstatSync(fifo).isFile()).toBe(true);
  });
});

describe("a checkout under /tmp", () => {
  const helper = locateHelper();
  const bwrap = findBwrap();
  // CI may clone the repository under /tmp, which the sandbox replaces with a private tmpfs.
  it.skipIf(!onLinux || !helper || !bwrap)("still finds its helper inside the sandbox (needs bwrap and the built helper)", async () => {
    const { probeBwrap } = await import("../src/probe-layers.js");
    const dir = fs.mkdtempSync(path.join("/tmp", "sg-helper-"));
    try {
      const copy = path.join(dir, path.basename(helper!));
      fs.copyFileSync(helper!, copy);
      fs.chmodSync(copy, 0o755);
      const result = await probeBwrap(bwrap, copy);
      expect(result.detail).not.toMatch(/No such file/);
      expect(result.available).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("in CI", () => {
  // .ci/run installs bubblewrap; without this check a broken sandbox would only turn the escape
  // tests into skips and CI would stay green.
  it.runIf(isCi() && onLinux)("the full bwrap+seccomp sandbox is available (CI=true)", async () => {
    const report = await probeLinuxSandbox({ refresh: true });
    expect(report.reasons).toEqual([]);
    expect(report.level).toBe("full");
  });
});
