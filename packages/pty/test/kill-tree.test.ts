import { describe, expect, it } from "vitest";
import { spawnPipe, spawnPty } from "../src/index.js";
import { alive, cwd, env, isLinux, waitFor } from "./helpers.js";

// The grandchild double-forks and calls setsid: it leaves our process group and session, and its
// parent exits so it is re-parented to init. Only the tree tag (Linux /proc) can still find it.
const ESCAPE = "( setsid sh -c 'echo $$ > \"$1\"; exec sleep 60' sh \"$0\" & ) ; while [ ! -s \"$0\" ]; do sleep 0.01; done; cat \"$0\"; sleep 60";

async function readPid(file: string): Promise<number> {
  const { readFile } = await import("node:fs/promises");
  let pid = 0;
  await waitFor(() => {
    void readFile(file, "utf8").then((t) => (pid = Number(t.trim())), () => undefined);
    return pid > 0;
  }, 10_000, "grandchild pid");
  return pid;
}

describe.skipIf(!isLinux)("whole-tree termination (Linux /proc tracking)", () => {
  it("a double-forked, setsid'd grandchild is gone after terminate (pipe)", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(cwd, "sg-pty-"));
    const file = join(dir, "pid");
    try {
      const h = spawnPipe({ argv: ["sh", "-c", ESCAPE, file], cwd, env, timeoutMs: 0 });
      const grandchild = await readPid(file);
      expect(alive(grandchild)).toBe(true);
      await h.terminate();
      await waitFor(() => !alive(grandchild), 10_000, "escaped grandchild to die");
      expect(alive(h.pid)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the same on timeout, and the result reports 124", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(cwd, "sg-pty-"));
    const file = join(dir, "pid");
    try {
      // Long enough for the grandchild to come up even on a loaded machine; the timeout is what is tested.
      const h = spawnPipe({ argv: ["sh", "-c", ESCAPE, file], cwd, env, timeoutMs: 3000 });
      const grandchild = await readPid(file);
      const r = await h.result();
      expect(r.timedOut).toBe(true);
      expect(r.exitCode).toBe(124);
      await waitFor(() => !alive(grandchild), 10_000, "escaped grandchild to die");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a setsid'd grandchild of a PTY session is gone after terminate", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(cwd, "sg-pty-"));
    const file = join(dir, "pid");
    try {
      const h = spawnPty({ argv: ["sh", "-c", ESCAPE, file], cwd, env, timeoutMs: 0 });
      const grandchild = await readPid(file);
      await h.terminate();
      await waitFor(() => !alive(grandchild), 10_000, "escaped grandchild to die");
      const r = await h.result();
      expect(r.signal).not.toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("terminate after exit still sweeps descendants that escaped", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(cwd, "sg-pty-"));
    const file = join(dir, "pid");
    try {
      const h = spawnPipe({
        argv: ["sh", "-c", "( setsid sh -c 'echo $$ > \"$1\"; exec sleep 60' sh \"$0\" & ); while [ ! -s \"$0\" ]; do sleep 0.01; done", file],
        cwd, env, drainTimeoutMs: 100,
      });
      await h.result();
      const grandchild = await readPid(file);
      expect(alive(grandchild)).toBe(true);
      await h.terminate();
      await waitFor(() => !alive(grandchild), 10_000, "escaped grandchild to die");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
