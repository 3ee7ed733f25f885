import { describe, expect, it } from "vitest";
import { codexRulesDir, policyCacheDir, shellgateCacheDir, userConfigDir, userProtectedPaths } from "../src/index.js";

describe("userProtectedPaths", () => {
  it("lists the config dir, the Codex rules, the policy cache and the cache dir", () => {
    const env = { HOME: "/h", CODEX_HOME: "/c", SHELLGATE_POLICY_CACHE_DIR: "/pc" };
    expect(userProtectedPaths(env, "linux")).toEqual(["/h/.config/shellgate", "/c/rules", "/pc", "/h/.cache/shellgate"]);
  });

  it("covers every location the other functions compute from the same environment", () => {
    const env = { HOME: "/h", XDG_CONFIG_HOME: "/x", XDG_CACHE_HOME: "/xc" };
    const held = userProtectedPaths(env, "linux");
    for (const p of [userConfigDir(env, "linux"), codexRulesDir(env), policyCacheDir(env), shellgateCacheDir(env)]) expect(held).toContain(p);
  });
});
