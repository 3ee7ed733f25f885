import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  computeWritableRoots,
  InvalidSandboxPathError,
  InvalidSandboxPolicyError,
  parseSandboxPolicy,
  PROTECTED_METADATA_NAMES,
  UnpinnableProtectedPathError,
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

async function unpinnable(promise: Promise<unknown>): Promise<UnpinnableProtectedPathError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnpinnableProtectedPathError);
  return error as UnpinnableProtectedPathError;
}

/** The protected names every root holds, present or not, sorted as the result lists them. */
const held = (root: string, ...extra: string[]) => [...PROTECTED_METADATA_NAMES, ...extra].sort().map((n) => path.join(root, n));

describe("computeWritableRoots: roots", () => {
  it("holds .git, .codex, .shellgate and .agents in the cwd even when they do not exist", async () => {
    const cwd = await tempDir();
    expect(await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv })).toEqual([
      { root: cwd, readOnlySubpaths: held(cwd), pinnedAncestors: [] },
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
    expect(roots[0]?.readOnlySubpaths).toEqual(held(path.join(base, "real-cwd")));
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

  it("keeps a nested root as a root of its own and pins the directories between it and the outer root", async () => {
    const cwd = await tempDir();
    await layout(cwd, { "sub/project/.git/HEAD": "ref: refs/heads/main\n" });
    const project = path.join(cwd, "sub", "project");
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [project] }), { cwd, env: noEnv });
    expect(roots).toEqual([
      // The outer root lists the nested root's carve-outs too: they lie inside it as well.
      { root: cwd, readOnlySubpaths: [...held(cwd), ...held(project)], pinnedAncestors: [path.join(cwd, "sub")] },
      { root: project, readOnlySubpaths: held(project), pinnedAncestors: [] },
    ]);
  });

  it("keeps the cwd a root of its own when it is nested inside a configured root (a workspace in the temp dir)", async () => {
    const outer = await tempDir();
    await layout(outer, { "a/b/ws/": "" });
    const cwd = path.join(outer, "a", "b", "ws");
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [outer] }), { cwd, env: noEnv });
    expect(roots).toEqual([
      { root: cwd, readOnlySubpaths: held(cwd), pinnedAncestors: [] },
      { root: outer, readOnlySubpaths: [...held(outer), ...held(cwd)], pinnedAncestors: [path.join(outer, "a"), path.join(outer, "a", "b")] },
    ]);
  });

  it("lets a carve-out win over a configured root nested inside it: that root is wholly read-only", async () => {
    const cwd = await tempDir();
    await layout(cwd, { ".git/hooks/": "" });
    const hooks = path.join(cwd, ".git", "hooks");
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [hooks] }), { cwd, env: noEnv });
    expect(roots).toEqual([
      { root: cwd, readOnlySubpaths: held(cwd), pinnedAncestors: [] },
      { root: hooks, readOnlySubpaths: [hooks], pinnedAncestors: [] },
    ]);
  });

  it.skipIf(process.platform === "win32")("keeps the carve-outs of a workspace whose name holds a backslash (an ordinary character on POSIX)", async () => {
    const base = await tempDir();
    // Control: the same layout under a plain name gets the same carve-outs.
    for (const name of ["plain-ws", "odd\\ws", "a\\..\\b", "quote ' and \" ws"]) {
      const cwd = path.join(base, name);
      await layout(cwd, { ".git/hooks/": "" });
      const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv });
      expect(roots, name).toEqual([{ root: cwd, readOnlySubpaths: held(cwd), pinnedAncestors: [] }]);
    }
  });

  it("adds $TMPDIR from the passed env unless excludeTmpdirEnvVar", async () => {
    const [cwd, tmp] = [await tempDir(), await tempDir()];
    const env = { TMPDIR: tmp };
    const withTmp = await computeWritableRoots(workspaceWrite({ excludeTmpdirEnvVar: false }), { cwd, env });
    expect(withTmp.map((r) => r.root)).toEqual([cwd, tmp]);
    expect(withTmp[1]?.readOnlySubpaths).toEqual(held(tmp));
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
    expect(withTmp.map((r) => r.root)).toEqual([cwd, tmp]);
    if (cwd.startsWith(`${tmp}/`)) {
      // The temp workspace lives under /tmp: it stays its own root, /tmp pins the directories between.
      const between: string[] = [];
      for (let d = path.dirname(cwd); d !== tmp; d = path.dirname(d)) between.unshift(d);
      expect(withTmp[1]?.pinnedAncestors).toEqual(between);
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
  it("holds .git, .codex, .shellgate and .agents in every root, present or not", async () => {
    const [cwd, other, empty] = [await tempDir(), await tempDir(), await tempDir()];
    await layout(other, { ".git/config": "", ".codex/config.toml": "", ".agents/": "", ".shellgate/rules/a.rules": "", "src/": "" });
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [other, empty] }), { cwd, env: noEnv });
    expect(roots.slice(1)).toEqual([
      { root: other, readOnlySubpaths: held(other), pinnedAncestors: [] },
      { root: empty, readOnlySubpaths: held(empty), pinnedAncestors: [] },
    ]);
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
      { root: cwd, readOnlySubpaths: held(cwd), pinnedAncestors: [] },
      // The worktree's gitdir lies inside the common dir, which is protected as a whole.
      { root: store, readOnlySubpaths: held(store, "repo.git"), pinnedAncestors: [] },
    ]);
  });

  it("protects the gitdir target of a .git file even without a commondir, pinning the directories above it", async () => {
    const [cwd, store] = [await tempDir(), await tempDir()];
    await layout(store, { "modules/lib/HEAD": "" });
    await fs.writeFile(path.join(cwd, ".git"), `gitdir: ${path.join(store, "modules", "lib")}\n`);
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [store] }), { cwd, env: noEnv });
    expect(roots[1]).toEqual({ root: store, readOnlySubpaths: held(store, "modules/lib"), pinnedAncestors: [path.join(store, "modules")] });
  });

  it("does not list a gitdir that lies outside every writable root (it is read-only already)", async () => {
    const [cwd, elsewhere] = [await tempDir(), await tempDir()];
    await layout(elsewhere, { "gitdir/HEAD": "" });
    await fs.writeFile(path.join(cwd, ".git"), `gitdir: ${path.join(elsewhere, "gitdir")}\n`);
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv });
    expect(roots).toEqual([{ root: cwd, readOnlySubpaths: held(cwd), pinnedAncestors: [] }]);
  });

  it("still protects a .git file without a usable gitdir line", async () => {
    const cwd = await tempDir();
    await fs.writeFile(path.join(cwd, ".git"), "garbage\n");
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv });
    expect(roots[0]?.readOnlySubpaths).toContain(path.join(cwd, ".git"));
  });

  it("protects policy paths inside a root (also missing ones) and pins every directory above them", async () => {
    const [cwd, outside] = [await tempDir(), await tempDir()];
    await layout(cwd, { ".config/shellgate/rules/base.rules": "", "nested/deeper/": "" });
    const roots = await computeWritableRoots(workspaceWrite(), {
      cwd,
      env: noEnv,
      protectedPaths: [path.join(cwd, ".config", "shellgate", "rules", "base.rules"), outside, path.join(cwd, "nested", "deeper", "not-yet", "file")],
    });
    expect(roots).toEqual([
      {
        root: cwd,
        readOnlySubpaths: held(cwd, ".config/shellgate/rules/base.rules", "nested/deeper/not-yet/file"),
        // `not-yet` does not exist: listed all the same, the backend holds the first missing component.
        pinnedAncestors: [".config", ".config/shellgate", ".config/shellgate/rules", "nested", "nested/deeper", "nested/deeper/not-yet"].map((n) =>
          path.join(cwd, n),
        ),
      },
    ]);
  });

  it("follows a symlink that lies outside every writable root and protects its target", async () => {
    const [cwd, outside] = [await tempDir(), await tempDir()];
    await layout(cwd, { "policies/base.rules": "" });
    // The link lives in a directory the sandbox cannot write: it cannot be re-pointed.
    await fs.symlink(path.join(cwd, "policies"), path.join(outside, "policy-link"));
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv, protectedPaths: [path.join(outside, "policy-link", "base.rules")] });
    expect(roots[0]?.readOnlySubpaths).toContain(path.join(cwd, "policies", "base.rules"));
    expect(roots[0]?.pinnedAncestors).toEqual([path.join(cwd, "policies")]);
  });

  it("drops carve-outs nested inside another carve-out", async () => {
    const cwd = await tempDir();
    await layout(cwd, { ".shellgate/rules/": "" });
    const roots = await computeWritableRoots(workspaceWrite(), {
      cwd,
      env: noEnv,
      protectedPaths: [path.join(cwd, ".shellgate", "rules")],
    });
    expect(roots[0]?.readOnlySubpaths).toEqual(held(cwd));
    expect(roots[0]?.pinnedAncestors).toEqual([]);
  });

  it("makes a whole root read-only when a protected path is the root itself", async () => {
    const cwd = await tempDir();
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv, protectedPaths: [cwd] });
    expect(roots).toEqual([{ root: cwd, readOnlySubpaths: [cwd], pinnedAncestors: [] }]);
  });
});

describe("computeWritableRoots: symlinked protected paths are refused", () => {
  it("refuses a symlinked .git in a writable root, naming the path and what to do", async () => {
    const cwd = await tempDir();
    await layout(cwd, { "real-git/HEAD": "" });
    await fs.symlink(path.join(cwd, "real-git"), path.join(cwd, ".git"));
    const error = await unpinnable(computeWritableRoots(workspaceWrite(), { cwd, env: noEnv }));
    expect(error.code).toBe("SANDBOX_UNPINNABLE_PATH");
    expect(error.path).toBe(path.join(cwd, ".git"));
    expect(error.link).toBe(path.join(cwd, ".git"));
    expect(error.directory).toBe(cwd);
    expect(error.message).toContain("is a symlink");
    expect(error.message).toMatch(/Replace the symlink/);
  });

  it("refuses a symlinked .shellgate in a nested root, and a dangling one", async () => {
    const [cwd, other] = [await tempDir(), await tempDir()];
    await fs.symlink(path.join(other, "nowhere"), path.join(other, ".shellgate"));
    const error = await unpinnable(computeWritableRoots(workspaceWrite({ writableRoots: [other] }), { cwd, env: noEnv }));
    expect(error.path).toBe(path.join(other, ".shellgate"));
  });

  it("refuses a protected path reached through a symlinked parent inside a writable root", async () => {
    const cwd = await tempDir();
    await layout(cwd, { "real-config/shellgate/rules/": "" });
    await fs.symlink(path.join(cwd, "real-config"), path.join(cwd, ".config"));
    const rules = path.join(cwd, ".config", "shellgate", "rules");
    const error = await unpinnable(computeWritableRoots(workspaceWrite(), { cwd, env: noEnv, protectedPaths: [rules] }));
    expect(error.path).toBe(rules);
    expect(error.link).toBe(path.join(cwd, ".config"));
    expect(error.message).toContain("is reached through the symlink");
  });

  it("refuses a .git file whose gitdir goes through a symlink in a writable root", async () => {
    const cwd = await tempDir();
    await layout(cwd, { "store/modules/lib/HEAD": "" });
    await fs.symlink(path.join(cwd, "store"), path.join(cwd, "store-link"));
    await fs.writeFile(path.join(cwd, ".git"), "gitdir: store-link/modules/lib\n");
    const error = await unpinnable(computeWritableRoots(workspaceWrite(), { cwd, env: noEnv }));
    expect(error.link).toBe(path.join(cwd, "store-link"));
  });

  it("accepts a symlink inside a read-only carve-out: nothing in the sandbox can replace it", async () => {
    const cwd = await tempDir();
    await layout(cwd, { ".git/real-hooks/": "", "rules/": "" });
    await fs.symlink(path.join(cwd, ".git", "real-hooks"), path.join(cwd, ".git", "hooks"));
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: noEnv, protectedPaths: [path.join(cwd, ".git", "hooks")] });
    expect(roots[0]?.readOnlySubpaths).toEqual(held(cwd));
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
