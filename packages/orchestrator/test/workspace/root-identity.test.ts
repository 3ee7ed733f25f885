// Writable roots are resolved once and held by identity: a root named through a link that a command
// re-points, or a root directory renamed away and replaced, must not become a different writable
// directory for the next call of the session. (Under the real sandbox: packages/cli/test/trust-roots-spill.test.ts.)
import { mkdir, mkdtemp, realpath, rename, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { computeWritableRoots, SandboxManager, type SandboxBackend, type SandboxPolicy } from "@shellgate/sandbox";
import { afterEach, describe, expect, it } from "vitest";
import { holdWritableRoots, Orchestrator, verifyWritableRoots, WritableRootChangedError } from "../support/internals.js";
import { call } from "../support/orchestrator-helpers.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

/** A workspace, a directory the root first names (`first`), one it may be re-pointed to (`elsewhere`), and `link -> first`. */
async function layout() {
  const parent = await realpath(await mkdtemp(path.join(os.tmpdir(), "sg-root-identity-")));
  cleanups.push(() => rm(parent, { recursive: true, force: true }));
  const ws = path.join(parent, "ws");
  const first = path.join(parent, "first");
  const elsewhere = path.join(parent, "elsewhere");
  for (const d of [ws, first, elsewhere]) await mkdir(d);
  const link = path.join(ws, "link");
  await symlink(first, link);
  return { parent, ws, first, elsewhere, link };
}

const policy = (roots: string[], extra: Partial<Extract<SandboxPolicy, { mode: "workspace-write" }>> = {}): SandboxPolicy => ({
  mode: "workspace-write",
  writableRoots: roots,
  networkAccess: false,
  excludeTmpdirEnvVar: true,
  excludeSlashTmp: true,
  deniedReadPaths: [],
  ...extra,
});

/** A backend that confines nothing but records the writable roots the sandbox would have been given. */
function recordingBackend(seen: string[][]): SandboxBackend {
  return {
    name: "recording",
    platform: process.platform,
    sandboxType: "recording",
    isAvailable: async () => ({ available: true, isolation: "none (test)" }),
    plan: async () => {
      throw new Error("not planned here");
    },
    transform: async (spec, p, options) => {
      seen.push((await computeWritableRoots(p, { cwd: options.sandboxPolicyCwd, env: spec.env })).map((r) => r.root));
      return { argv: [...spec.argv], cwd: spec.cwd, env: { ...spec.env }, sandboxType: "recording", isolation: "none (test)" };
    },
  };
}

function orchestratorFor(ws: string, sandboxPolicy: SandboxPolicy, seen: string[][], hostEnv: Record<string, string> = {}) {
  const manager = new SandboxManager();
  manager.register(recordingBackend(seen));
  const orch = new Orchestrator({
    cwd: ws,
    approvalPolicy: "never",
    sandboxPolicy,
    sandboxManager: manager,
    hostEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws, ...hostEnv },
    shell: "/bin/bash",
    spillDir: false,
  });
  cleanups.unshift(() => orch.close());
  return orch;
}

describe("writable roots held by identity", () => {
  it("control: a policy that names a root through a link gives whatever the link points to at each call", async () => {
    const { ws, first, elsewhere, link } = await layout();
    const p = policy([link]);
    expect((await computeWritableRoots(p, { cwd: ws, env: {} })).map((r) => r.root)).toContain(first);
    await rm(link);
    await symlink(elsewhere, link);
    expect((await computeWritableRoots(p, { cwd: ws, env: {} })).map((r) => r.root)).toContain(elsewhere);
  });

  it("the sandbox is handed the real path once, never the link", async () => {
    const { ws, first, link } = await layout();
    const held = holdWritableRoots(policy([link]), {});
    expect(held.policy).toMatchObject({ writableRoots: [first] });
    expect(held.roots).toEqual([expect.objectContaining({ field: "sandboxPolicy.writableRoots.0", path: link, recorded: expect.objectContaining({ realPath: first }) })]);
    const seen: string[][] = [];
    const orch = orchestratorFor(ws, policy([link]), seen);
    expect(orch.sandboxPolicy).toMatchObject({ writableRoots: [first] });
    const ok = await call(orch, "shell_command", { command: "true", login: false });
    expect(ok.error).toBeUndefined();
    expect(seen.at(-1)).toContain(first);
    expect(seen.flat()).not.toContain(link);
  });

  it("a link re-pointed between two calls of a session: the second call is refused and runs nothing", async () => {
    const { ws, elsewhere, link } = await layout();
    const seen: string[][] = [];
    const orch = orchestratorFor(ws, policy([link]), seen);
    expect((await call(orch, "shell_command", { command: "true", login: false })).error).toBeUndefined();
    const before = seen.length;
    await rm(link);
    await symlink(elsewhere, link);
    const marker = path.join(elsewhere, "written");
    const second = await call(orch, "shell_command", { command: `touch ${marker}`, login: false });
    expect(second.error?.code).toBe("ORCH_WRITABLE_ROOT_CHANGED");
    expect(second.content).toContain(link);
    expect(second.content).toContain(elsewhere);
    expect(seen.length).toBe(before);
    await expect(realpath(marker)).rejects.toThrow();
  });

  it("a root renamed away and replaced by a link, or by a fresh directory, or removed, is refused with both identities", async () => {
    const { first, elsewhere } = await layout();
    const held = holdWritableRoots(policy([first]), {});
    verifyWritableRoots(held.roots);
    await rename(first, `${first}.old`);
    await symlink(elsewhere, first);
    const error = (() => {
      try {
        verifyWritableRoots(held.roots);
      } catch (e) {
        return e;
      }
      return undefined;
    })() as WritableRootChangedError;
    expect(error).toBeInstanceOf(WritableRootChangedError);
    expect(error.code).toBe("ORCH_WRITABLE_ROOT_CHANGED");
    expect(error.expected?.realPath).toBe(first);
    expect(error.actual?.realPath).toBe(elsewhere);
    expect(error.message).toMatch(/was .*dev:ino \d+:\d+.*now .*dev:ino \d+:\d+/);

    await rm(first);
    await mkdir(first);
    expect(() => verifyWritableRoots(held.roots)).toThrow(/changed identity/);
    await rm(first, { recursive: true });
    expect(() => verifyWritableRoots(held.roots)).toThrow(/no longer resolves/);
  });

  it("a root missing at the start stays refused if something appears under its name later", async () => {
    const { parent, elsewhere } = await layout();
    const later = path.join(parent, "later");
    const held = holdWritableRoots(policy([later]), {});
    expect(held.roots[0]?.recorded).toBeUndefined();
    verifyWritableRoots(held.roots);
    await symlink(elsewhere, later);
    expect(() => verifyWritableRoots(held.roots)).toThrow(/did not exist/);
  });

  it("the commands' TMPDIR is held too when it is a root: re-pointing the link it names is refused", async () => {
    const { ws, first, elsewhere, link } = await layout();
    const seen: string[][] = [];
    const orch = orchestratorFor(ws, policy([], { excludeTmpdirEnvVar: false }), seen, { TMPDIR: link });
    expect(orch.writableRoots).toEqual([expect.objectContaining({ field: "TMPDIR", recorded: expect.objectContaining({ realPath: first }) })]);
    expect((await call(orch, "shell_command", { command: "true", login: false })).error).toBeUndefined();
    await rm(link);
    await symlink(elsewhere, link);
    const second = await call(orch, "shell_command", { command: "true", login: false });
    expect(second.error?.code).toBe("ORCH_WRITABLE_ROOT_CHANGED");
    expect(second.content).toContain("TMPDIR");
  });
});
