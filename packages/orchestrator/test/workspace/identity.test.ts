import { realpathSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Orchestrator, OrchestratorConfigError, WorkspaceChangedError } from "../support/internals.js";
import { captureWorkspaceIdentity, verifyWorkspaceIdentity } from "../../src/workspace/identity.js";


const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

/** A workspace in a temp directory of its own. (Swaps under the real sandbox: tooling/integration.) */
async function layout() {
  const parent = await mkdtemp(path.join(os.tmpdir(), "sg-ws-identity-"));
  cleanups.push(() => rm(parent, { recursive: true, force: true }));
  const ws = path.join(parent, "ws");
  await mkdir(ws);
  return { parent, ws };
}

describe("workspace identity", () => {
  it("captures real path, device and inode, and refuses a cwd that does not exist", async () => {
    const { ws } = await layout();
    const id = captureWorkspaceIdentity(ws);
    expect(id).toMatchObject({ path: ws, realPath: realpathSync(ws) });
    expect(id.ino).toBeGreaterThan(0);
    await expect(verifyWorkspaceIdentity(id)).resolves.toBeUndefined();
    expect(() => captureWorkspaceIdentity(path.join(ws, "missing"))).toThrow(OrchestratorConfigError);
    expect(() => new Orchestrator({ cwd: path.join(ws, "missing") })).toThrow(/cwd: .*does not exist/);
  });

  it("notices a directory replaced by another one under the same name (same path, new inode)", async () => {
    const { ws } = await layout();
    const id = captureWorkspaceIdentity(ws);
    await rename(ws, `${ws}.old`);
    await mkdir(ws);
    const error = await verifyWorkspaceIdentity(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceChangedError);
    expect((error as WorkspaceChangedError).code).toBe("ORCH_WORKSPACE_CHANGED");
    expect((error as WorkspaceChangedError).actual?.realPath).toBe(realpathSync(ws));
    expect((error as WorkspaceChangedError).actual?.ino).not.toBe(id.ino);
  });

  it("notices a workspace that was removed", async () => {
    const { ws } = await layout();
    const id = captureWorkspaceIdentity(ws);
    await rm(ws, { recursive: true });
    const error = (await verifyWorkspaceIdentity(id).catch((e: unknown) => e)) as WorkspaceChangedError;
    expect(error.code).toBe("ORCH_WORKSPACE_CHANGED");
    expect(error.actual).toBeUndefined();
    expect(error.message).toContain("no longer resolves");
  });
});
