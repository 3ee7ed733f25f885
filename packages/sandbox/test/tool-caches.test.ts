import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { applyToolCaches, parseSandboxPolicy, sandboxToolCacheDir, SANDBOX_TOOL_CACHES } from "../src/index.js";
import { tempDir, workspaceWrite } from "./helpers.js";

describe("sandboxToolCacheDir", () => {
  it("is shellgate-sandbox under the user's cache directory, never shellgate's own cache", () => {
    expect(sandboxToolCacheDir({ XDG_CACHE_HOME: "/c", HOME: "/h" }, "linux")).toBe("/c/shellgate-sandbox");
    expect(sandboxToolCacheDir({ HOME: "/h" }, "linux")).toBe("/h/.cache/shellgate-sandbox");
    expect(sandboxToolCacheDir({ HOME: "/h" }, "darwin")).toBe("/h/Library/Caches/shellgate-sandbox");
    expect(sandboxToolCacheDir({ XDG_CACHE_HOME: "rel", HOME: "rel" }, "linux")).toBeUndefined();
  });
});

describe("applyToolCaches", () => {
  it("creates the directory 0700, adds it as a writable root and points every tool's variable into it", async () => {
    const [base, cwd] = [await tempDir(), await tempDir()];
    const dir = path.join(base, "cache", "shellgate-sandbox");
    const run = applyToolCaches({ policy: workspaceWrite(), env: { PATH: "/bin" }, cwd, dir });
    expect(run.status).toEqual({ kind: "active", dir, replaced: [] });
    expect(fs.lstatSync(dir).mode & 0o777).toBe(0o700);
    expect(run.policy).toMatchObject({ mode: "workspace-write", writableRoots: [dir] });
    const names = SANDBOX_TOOL_CACHES.flatMap((e) => e.variables.map((v) => v.name));
    for (const name of names) expect(run.env[name]?.startsWith(`${dir}/`), name).toBe(true);
    expect(run.env["npm_config_cache"]).toBe(path.join(dir, "npm"));
    expect(run.env["PATH"]).toBe("/bin");
  });

  it("the host's own values are replaced, in any letter case, and never become writable", async () => {
    const [base, cwd] = [await tempDir(), await tempDir()];
    const hostCache = path.join(base, "host-npm");
    const run = applyToolCaches({
      policy: workspaceWrite(),
      env: { NPM_CONFIG_CACHE: hostCache, CARGO_HOME: path.join(base, "cargo") },
      cwd,
      dir: path.join(base, "sg"),
    });
    expect(run.status).toMatchObject({ kind: "active", replaced: ["CARGO_HOME", "NPM_CONFIG_CACHE"] });
    expect(run.env["NPM_CONFIG_CACHE"]).toBeUndefined();
    expect(run.policy.mode === "workspace-write" && run.policy.writableRoots).toEqual([path.join(base, "sg")]);
  });

  it("off, with the run unchanged: read-only, a symlink in the directory's place", async () => {
    const [base, cwd] = [await tempDir(), await tempDir()];
    const env = { npm_config_cache: "/host" };
    const ro = applyToolCaches({ policy: parseSandboxPolicy({ mode: "read-only" }), env, cwd, dir: path.join(base, "a") });
    expect(ro.status.kind).toBe("off");
    expect(ro.env).toEqual(env);
    fs.mkdirSync(path.join(base, "elsewhere"));
    fs.symlinkSync(path.join(base, "elsewhere"), path.join(base, "link"));
    const linked = applyToolCaches({ policy: workspaceWrite(), env, cwd, dir: path.join(base, "link") });
    expect(linked.status).toMatchObject({ kind: "off", reason: expect.stringMatching(/symbolic link/) });
    expect(linked.policy).toEqual(workspaceWrite());
    // control: a directory outside every root is used
    expect(applyToolCaches({ policy: workspaceWrite(), env, cwd, dir: path.join(base, "ok") }).status.kind).toBe("active");
  });

  it("a directory inside another writable root (a home under /tmp) is used where it is, without a root of its own", async () => {
    const cwd = await tempDir();
    const inside = applyToolCaches({ policy: workspaceWrite(), env: { npm_config_cache: "/host" }, cwd, dir: path.join(cwd, "cache") });
    const real = fs.realpathSync(cwd);
    expect(inside.status).toEqual({ kind: "active", dir: path.join(real, "cache"), replaced: ["npm_config_cache"], within: real });
    expect(inside.env["npm_config_cache"]).toBe(path.join(real, "cache", "npm"));
    expect(inside.policy).toEqual(workspaceWrite());
  });

  it("a directory that others may enter is made private again", async () => {
    const [base, cwd] = [await tempDir(), await tempDir()];
    const dir = path.join(base, "wide");
    fs.mkdirSync(dir, { mode: 0o755 });
    fs.chmodSync(dir, 0o755);
    expect(applyToolCaches({ policy: workspaceWrite(), env: {}, cwd, dir }).status.kind).toBe("active");
    expect(fs.lstatSync(dir).mode & 0o777).toBe(0o700);
  });
});
