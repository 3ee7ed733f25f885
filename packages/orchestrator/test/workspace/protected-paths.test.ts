import path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultProtectedPaths } from "../../src/index.js";

describe("defaultProtectedPaths", () => {
  it("holds shellgate's and Codex's configuration, policy-check's cache, shellgate's cache directory and the workspace's .shellgate", () => {
    expect(defaultProtectedPaths({ cwd: "/w", env: { HOME: "/h" }, platform: "linux" })).toEqual([
      "/h/.config/shellgate",
      "/h/.codex/rules",
      "/h/.cache/shellgate/execpolicy",
      "/h/.cache/shellgate",
      "/w/.shellgate",
    ]);
    // the policy cache may be elsewhere; the cache directory (the CLI's code cache) stays held
    expect(defaultProtectedPaths({ cwd: "/w", env: { HOME: "/h", SHELLGATE_POLICY_CACHE_DIR: "/pc" }, platform: "linux" }).slice(2, 4)).toEqual(["/pc", "/h/.cache/shellgate"]);
  });

  it("follows the variables the CLI reads its configuration from", () => {
    const env = { HOME: "/h", SHELLGATE_CONFIG_DIR: "/cfg", CODEX_HOME: "/codex", XDG_CACHE_HOME: "/cache" };
    expect(defaultProtectedPaths({ cwd: "/w", env, platform: "linux" })).toEqual(["/cfg", "/codex/rules", "/cache/shellgate/execpolicy", "/cache/shellgate", "/w/.shellgate"]);
    expect(defaultProtectedPaths({ cwd: "/w", env: { HOME: "/h", XDG_CONFIG_HOME: "/x" }, platform: "linux" })[0]).toBe("/x/shellgate");
    // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
    expect(defaultProtectedPaths({ cwd: "/w", env: { HOME: "/h", XDG_CONFIG_HOME: "rel" }, platform: "linux" })[0]).toBe("/h/.config/shellgate");
    expect(defaultProtectedPaths({ cwd: "/w", env: { HOME: "/h", APPDATA: "/appdata" }, platform: "win32" })[0]).toBe(path.join("/appdata", "shellgate"));
  });
});
