import path from "node:path";
import { describe, expect, it } from "vitest";
import { codeCacheDir, linuxProbeCacheFile, placeholderLockDir, policyCacheDir, runFilesDir, sandboxToolCacheDir, shellgateCacheDir } from "../src/index.js";

describe("shellgateCacheDir", () => {
  it("uses an absolute XDG_CACHE_HOME, else ~/.cache, from HOME", () => {
    expect(shellgateCacheDir({ XDG_CACHE_HOME: "/xc", HOME: "/h" })).toBe("/xc/shellgate");
    expect(shellgateCacheDir({ XDG_CACHE_HOME: "rel", HOME: "/h" })).toBe("/h/.cache/shellgate");
    expect(shellgateCacheDir({ HOME: "/h" })).toBe("/h/.cache/shellgate");
  });

  it("holds every cache file of the host side", () => {
    const env = { HOME: "/h" };
    for (const p of [policyCacheDir(env), linuxProbeCacheFile(env), placeholderLockDir(env), codeCacheDir(env), runFilesDir(env)]) {
      expect(p.startsWith(`${shellgateCacheDir(env)}${path.sep}`), p).toBe(true);
    }
  });

  it("lets SHELLGATE_POLICY_CACHE_DIR move the policy cache, resolved", () => {
    expect(policyCacheDir({ SHELLGATE_POLICY_CACHE_DIR: "pc", HOME: "/h" })).toBe(path.resolve("pc"));
  });
});

describe("sandboxToolCacheDir", () => {
  it("sits beside shellgate's cache directory, never inside it (every sandbox holds that one read-only)", () => {
    const env = { HOME: "/h" };
    const dir = sandboxToolCacheDir(env, "linux")!;
    expect(dir).toBe("/h/.cache/shellgate-sandbox");
    expect(dir.startsWith(`${shellgateCacheDir(env)}${path.sep}`)).toBe(false);
  });

  it("follows XDG_CACHE_HOME, macOS' and Windows' cache folders, and ignores relative values", () => {
    expect(sandboxToolCacheDir({ XDG_CACHE_HOME: "/c", HOME: "/h" }, "linux")).toBe("/c/shellgate-sandbox");
    expect(sandboxToolCacheDir({ HOME: "/h" }, "darwin")).toBe("/h/Library/Caches/shellgate-sandbox");
    expect(sandboxToolCacheDir({ LOCALAPPDATA: "/la", HOME: "/h" }, "win32")).toBe(path.join("/la", "shellgate-sandbox"));
    expect(sandboxToolCacheDir({ HOME: "/h" }, "win32")).toBeUndefined();
    expect(sandboxToolCacheDir({ XDG_CACHE_HOME: "rel", HOME: "rel" }, "linux")).toBeUndefined();
  });
});
