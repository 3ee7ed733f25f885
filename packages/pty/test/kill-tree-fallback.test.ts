import { describe, expect, it, vi } from "vitest";
import { alive, cwd, env, isLinux, waitFor } from "./helpers.js";

// Pretend /proc is missing (as on macOS) so termination has to use tree-kill's `ps` walk.
vi.mock(import("../src/proc-tree.js"), async (importOriginal) => ({ ...(await importOriginal()), HAS_PROC: false }));

const { spawnPipe } = await import("../src/index.js");

describe.skipIf(!isLinux)("termination without /proc (tree-kill fallback; liveness checked in /proc)", () => {
  it("kills a child that left the group with setsid but still has its parent", async () => {
    const h = spawnPipe({ argv: ["sh", "-c", "setsid sleep 60 & echo $!; wait"], cwd, env, timeoutMs: 0 });
    const pid = await new Promise<number>((res) => h.onOutput((c) => res(Number(Buffer.from(c.data).toString().trim()))));
    await waitFor(() => alive(pid), 10_000, "setsid child to start");
    await h.terminate();
    await waitFor(() => !alive(pid), 10_000, "setsid child to die");
    // sh either dies of the TERM (143) or, when sleep dies first, its bare `wait` returns 0.
    expect([0, 143]).toContain((await h.result()).exitCode);
  });
});
