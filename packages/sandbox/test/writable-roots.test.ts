import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  computeWritableRoots,
  InvalidSandboxPathError,
  InvalidSandboxPolicyError,
  parseSandboxPolicy,
  type SandboxPolicy,
} from "../src/index.js";
import { layout, tempDir, workspaceWrite } from "./helpers.js";

const noEnv = {};
const slashTmp = await fs.realpath("/tmp").catch(() => undefined);
const slashTmpIsDir = slashTmp !== undefined && (await fs.stat(slashTmp)).isDirectory();

async function pathError(promise: Promise<unknown>): Promise<InvalidSandboxPathError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidSandboxPathError);
  return error as InvalidSandboxPathError;
}

describe("computeWritableRoots: roots", () => {
  it("protects .codex and .shellgate in the cwd even when they do not exist", async () => {
    const cwd = await tempDir();
    expect(await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv })).toEqual([
      { root: cwd, readOnlySubpaths: [path.join(cwd, ".codex"), path.join(cwd, ".shellgate")] },
    ]);
  });

  it("lists the cwd first, then configured roots, in order", async () => {
    const [cwd, a, b] = [await tempDir(), await tempDir(), await tempDir()];
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [b, a] }), { cwd, env: noEnv });
    expect(roots.map((r) => r.root)).toEqual([cwd, b, a]);
  });

  it("canonicalises a symlinked writable root and a symlinked cwd", async () => {
    const base = await tempDir();
    await layout(base, { "real-root/": "", "real-cwd/": "" });
    await fs.symlink(path.join(base, "real-root"), path.join(base, "link-root"));
    await fs.symlink(path.join(base, "real-cwd"), path.join(base, "link-cwd"));
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [path.join(base, "link-root")] }), {
      cwd: path.join(base, "link-cwd"),
      env: noEnv,
    });
    expect(roots.map((r) => r.root)).toEqual([path.join(base, "real-cwd"), path.join(base, "real-root")]);
    expect(roots[0]?.readOnlySubpaths).toEqual([path.join(base, "real-cwd", ".codex"), path.join(base, "real-cwd", ".shellgate")]);
  });

  it("de-duplicates roots that canonicalise to the same directory", async () => {
    const base = await tempDir();
    await layout(base, { "ws/": "" });
    const ws = path.join(base, "ws");
    await fs.symlink(ws, path.join(base, "alias"));
    const roots = await computeWritableRoots(
      workspaceWrite({ writableRoots: [ws, path.join(base, "alias"), `${ws}/`, path.join(ws, "..", "ws")] }),
      { cwd: ws, env: noEnv },
    );
    expect(roots).toHaveLength(1);
    expect(roots[0]?.root).toBe(ws);
  });

  it("folds a nested root into its parent but keeps the nested root's carve-outs", async () => {
    const cwd = await tempDir();
    await layout(cwd, { "sub/project/.git/HEAD": "ref: refs/heads/main\n" });
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [path.join(cwd, "sub", "project")] }), {
      cwd,
      env: noEnv,
    });
    expect(roots).toEqual([
      {
        root: cwd,
        readOnlySubpaths: [path.join(cwd, ".codex"), path.join(cwd, ".shellgate"), path.join(cwd, "sub", "project", ".git")],
      },
    ]);
  });

  it("keeps the cwd's missing-config carve-outs when the cwd is nested inside a configured root", async () => {
    const outer = await tempDir();
    await layout(outer, { "ws/": "" });
    const cwd = path.join(outer, "ws");
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [outer] }), { cwd, env: noEnv });
    expect(roots).toEqual([{ root: outer, readOnlySubpaths: [path.join(cwd, ".codex"), path.join(cwd, ".shellgate")] }]);
  });

  it("lets a carve-out win over a configured root nested inside it", async () => {
    const cwd = await tempDir();
    await layout(cwd, { ".git/hooks/": "" });
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [path.join(cwd, ".git", "hooks")] }), {
      cwd,
      env: noEnv,
    });
    expect(roots).toHaveLength(1);
    expect(roots[0]?.readOnlySubpaths).toContain(path.join(cwd, ".git"));
  });

  it("adds $TMPDIR from the passed env unless excludeTmpdirEnvVar", async () => {
    const [cwd, tmp] = [await tempDir(), await tempDir()];
    const env = { TMPDIR: tmp };
    const withTmp = await computeWritableRoots(workspaceWrite({ excludeTmpdirEnvVar: false }), { cwd, env });
    expect(withTmp.map((r) => r.root)).toEqual([cwd, tmp]);
    expect(withTmp[1]?.readOnlySubpaths).toEqual([]);
    const without = await computeWritableRoots(workspaceWrite({ excludeTmpdirEnvVar: true }), { cwd, env });
    expect(without.map((r) => r.root)).toEqual([cwd]);
  });

  it("leaves out an unusable $TMPDIR (relative, missing, empty) instead of failing", async () => {
    const cwd = await tempDir();
    for (const TMPDIR of ["relative/tmp", path.join(cwd, "missing"), ""]) {
      const roots = await computeWritableRoots(workspaceWrite({ excludeTmpdirEnvVar: false }), { cwd, env: { TMPDIR } });
      expect(roots.map((r) => r.root)).toEqual([cwd]);
    }
  });

  it("canonicalises a symlinked $TMPDIR", async () => {
    const [cwd, base] = [await tempDir(), await tempDir()];
    await layout(base, { "real/": "" });
    await fs.symlink(path.join(base, "real"), path.join(base, "link"));
    const roots = await computeWritableRoots(workspaceWrite({ excludeTmpdirEnvVar: false }), {
      cwd,
      env: { TMPDIR: path.join(base, "link") },
    });
    expect(roots.map((r) => r.root)).toEqual([cwd, path.join(base, "real")]);
  });


  it.skipIf(!slashTmpIsDir)("adds /tmp (canonical) unless excludeSlashTmp — skipped where /tmp is not a directory", async () => {
    const cwd = await tempDir();
    const tmp = slashTmp as string;
    const withTmp = await computeWritableRoots(workspaceWrite({ excludeSlashTmp: false }), { cwd, env: noEnv });
    const withoutTmp = await computeWritableRoots(workspaceWrite({ excludeSlashTmp: true }), { cwd, env: noEnv });
    expect(withoutTmp.map((r) => r.root)).toEqual([cwd]);
    if (cwd.startsWith(`${tmp}/`)) {
      // The temp workspace lives under /tmp: it is folded into /tmp, its carve-outs survive.
      expect(withTmp).toEqual([{ root: tmp, readOnlySubpaths: [path.join(cwd, ".codex"), path.join(cwd, ".shellgate")] }]);
    } else {
      expect(withTmp.map((r) => r.root)).toEqual([cwd, tmp]);
    }
  });

  it("never considers /tmp for win32", async () => {
    const cwd = await tempDir();
    const roots = await computeWritableRoots(workspaceWrite({ excludeSlashTmp: false }), { cwd, env: noEnv, platform: "win32" });
    expect(roots.map((r) => r.root)).toEqual([cwd]);
  });

  it.each<SandboxPolicy>([
    parseSandboxPolicy({ mode: "read-only" }),
    parseSandboxPolicy({ mode: "danger-full-access" }),
    parseSandboxPolicy({ mode: "external-sandbox", networkAccess: true }),
  ])("has no writable roots for $mode", async (policy) => {
    expect(await computeWritableRoots(policy, { cwd: "/", env: noEnv })).toEqual([]);
  });
});

describe("computeWritableRoots: carve-outs", () => {
  it("protects .git, .codex, .shellgate and .agents when present in any root", async () => {
    const [cwd, other] = [await tempDir(), await tempDir()];
    await layout(other, { ".git/config": "", ".codex/config.toml": "", ".agents/": "", ".shellgate/rules/a.rules": "", "src/": "" });
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [other] }), { cwd, env: noEnv });
    expect(roots[1]).toEqual({
      root: other,
      readOnlySubpaths: [".agents", ".codex", ".git", ".shellgate"].map((n) => path.join(other, n)),
    });
  });

  it("does not invent missing .codex/.shellgate outside the cwd", async () => {
    const [cwd, other] = [await tempDir(), await tempDir()];
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [other] }), { cwd, env: noEnv });
    expect(roots[1]).toEqual({ root: other, readOnlySubpaths: [] });
  });

  it("protects a .git file and the gitdir it points to, resolved relative to the file", async () => {
    const [cwd, store] = [await tempDir(), await tempDir()];
    await layout(store, { "repo.git/worktrees/wt/HEAD": "ref: refs/heads/wt\n", "repo.git/hooks/": "" });
    const gitdir = path.join(store, "repo.git", "worktrees", "wt");
    await fs.writeFile(path.join(gitdir, "commondir"), "../..\n");
    const relative = path.relative(cwd, gitdir);
    await fs.writeFile(path.join(cwd, ".git"), `gitdir: ${relative}\n`);
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [store] }), { cwd, env: noEnv });
    expect(roots).toEqual([
      { root: cwd, readOnlySubpaths: [".codex", ".git", ".shellgate"].map((n) => path.join(cwd, n)) },
      // The worktree's gitdir lies inside the common dir, which is protected as a whole.
      { root: store, readOnlySubpaths: [path.join(store, "repo.git")] },
    ]);
  });

  it("protects the gitdir target of a .git file even without a commondir", async () => {
    const [cwd, store] = [await tempDir(), await tempDir()];
    await layout(store, { "modules/lib/HEAD": "" });
    await fs.writeFile(path.join(cwd, ".git"), `gitdir: ${path.join(store, "modules", "lib")}\n`);
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [store] }), { cwd, env: noEnv });
    expect(roots[1]).toEqual({ root: store, readOnlySubpaths: [path.join(store, "modules", "lib")] });
  });

  it("does not list a gitdir that lies outside every writable root (it is read-only already)", async () => {
    const [cwd, elsewhere] = [await tempDir(), await tempDir()];
    await layout(elsewhere, { "gitdir/HEAD": "" });
    await fs.writeFile(path.join(cwd, ".git"), `gitdir: ${path.join(elsewhere, "gitdir")}\n`);
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv });
    expect(roots).toEqual([{ root: cwd, readOnlySubpaths: [".codex", ".git", ".shellgate"].map((n) => path.join(cwd, n)) }]);
  });

  it("still protects a .git file without a usable gitdir line", async () => {
    const cwd = await tempDir();
    await fs.writeFile(path.join(cwd, ".git"), "garbage\n");
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv });
    expect(roots[0]?.readOnlySubpaths).toContain(path.join(cwd, ".git"));
  });

  it("protects both a symlinked .git and its target", async () => {
    const cwd = await tempDir();
    await layout(cwd, { "real-git/HEAD": "" });
    await fs.symlink(path.join(cwd, "real-git"), path.join(cwd, ".git"));
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv });
    expect(roots[0]?.readOnlySubpaths).toEqual([".codex", ".git", ".shellgate", "real-git"].map((n) => path.join(cwd, n)));
  });

  it("protects policy directories inside a root, canonicalised, and ignores those outside", async () => {
    const [cwd, outside] = [await tempDir(), await tempDir()];
    await layout(cwd, { "policies/base.rules": "", "nested/deeper/": "" });
    await fs.symlink(path.join(cwd, "policies"), path.join(cwd, "policy-link"));
    const roots = await computeWritableRoots(workspaceWrite(), {
      cwd,
      env: noEnv,
      protectedPaths: [path.join(cwd, "policy-link"), outside, path.join(cwd, "nested", "deeper", "not-yet")],
    });
    expect(roots).toEqual([
      {
        root: cwd,
        // The symlink is protected as well as its target, so it cannot be re-pointed.
        readOnlySubpaths: [".codex", ".shellgate", "nested/deeper/not-yet", "policies", "policy-link"].map((n) => path.join(cwd, n)),
      },
    ]);
  });

  it("drops carve-outs nested inside another carve-out", async () => {
    const cwd = await tempDir();
    await layout(cwd, { ".shellgate/rules/": "" });
    const roots = await computeWritableRoots(workspaceWrite(), {
      cwd,
      env: noEnv,
      protectedPaths: [path.join(cwd, ".shellgate", "rules")],
    });
    expect(roots[0]?.readOnlySubpaths).toEqual([path.join(cwd, ".codex"), path.join(cwd, ".shellgate")]);
  });

  it("makes a whole root read-only when a protected path is the root itself", async () => {
    const cwd = await tempDir();
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv, protectedPaths: [cwd] });
    expect(roots).toEqual([{ root: cwd, readOnlySubpaths: [cwd] }]);
  });
});

describe("computeWritableRoots: bad input", () => {
  it("rejects a relative writable root, naming the field", async () => {
    const cwd = await tempDir();
    const policy = { mode: "workspace-write", writableRoots: [cwd, "relative/dir"] } as unknown as SandboxPolicy;
    const error = await pathError(computeWritableRoots(policy, { cwd, env: noEnv }));
    expect(error.code).toBe("SANDBOX_INVALID_PATH");
    expect(error.field).toBe("writableRoots.1");
    expect(error.path).toBe("relative/dir");
    expect(error.message).toMatch(/^writableRoots\.1: "relative\/dir" must be an absolute path/);
  });

  it("rejects a nonexistent writable root, naming the field", async () => {
    const cwd = await tempDir();
    const missing = path.join(cwd, "missing");
    const error = await pathError(computeWritableRoots(workspaceWrite({ writableRoots: [cwd, missing] }), { cwd, env: noEnv }));
    expect(error.field).toBe("writableRoots.1");
    expect(error.message).toContain("does not exist");
  });

  it("rejects a writable root that is a file", async () => {
    const cwd = await tempDir();
    await layout(cwd, { "file.txt": "x" });
    const error = await pathError(
      computeWritableRoots(workspaceWrite({ writableRoots: [path.join(cwd, "file.txt")] }), { cwd, env: noEnv }),
    );
    expect(error.field).toBe("writableRoots.0");
    expect(error.message).toContain("is not a directory");
  });

  it("rejects a dangling symlink as a writable root", async () => {
    const cwd = await tempDir();
    await fs.symlink(path.join(cwd, "nowhere"), path.join(cwd, "dangling"));
    const error = await pathError(
      computeWritableRoots(workspaceWrite({ writableRoots: [path.join(cwd, "dangling")] }), { cwd, env: noEnv }),
    );
    expect(error.field).toBe("writableRoots.0");
  });

  it("rejects a relative or missing cwd", async () => {
    const base = await tempDir();
    expect((await pathError(computeWritableRoots(workspaceWrite(), { cwd: "ws", env: noEnv }))).field).toBe("cwd");
    const missing = await pathError(computeWritableRoots(workspaceWrite(), { cwd: path.join(base, "gone"), env: noEnv }));
    expect(missing.field).toBe("cwd");
  });

  it("rejects a relative protected path, naming the field", async () => {
    const cwd = await tempDir();
    const error = await pathError(computeWritableRoots(workspaceWrite(), { cwd, env: noEnv, protectedPaths: [cwd, "rules"] }));
    expect(error.field).toBe("protectedPaths.1");
  });

  it("rejects an unknown mode and a malformed policy object with InvalidSandboxPolicyError", async () => {
    const cwd = await tempDir();
    const cases: Array<[unknown, string]> = [
      [{ mode: "full-yolo" }, "mode"],
      [{ mode: "workspace-write", writableRoots: "/tmp" }, "writableRoots"],
      [{ mode: "workspace-write", networkAccess: "yes" }, "networkAccess"],
      [{ mode: "read-only", writableRoots: [] }, "writableRoots"],
      [null, "(policy)"],
    ];
    for (const [policy, field] of cases) {
      const error = await computeWritableRoots(policy as SandboxPolicy, { cwd, env: noEnv }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(policy)).toBeInstanceOf(InvalidSandboxPolicyError);
      expect((error as InvalidSandboxPolicyError).field).toBe(field);
    }
  });
});
