import { skipUnless } from "@shellgate/test-support";
import { expect, it } from "vitest";
import { spawnPipe, spawnPty } from "../src/index.js";
import { cwd, env, fdCount, isLinux } from "./helpers.js";

skipUnless(isLinux ? undefined : `not Linux (${process.platform}): no /proc/self/fd`).describe("file descriptors (counted in /proc/self/fd)", () => {
  it("none leak across pipes, PTYs, timeouts, terminate and stdin pipes", async () => {
    // Warm up once: the first spawn starts the host-death watchdog, which keeps one pipe open for good.
    await spawnPipe({ argv: ["true"], cwd, env }).result();
    await spawnPty({ argv: ["true"], cwd, env }).result();
    const before = fdCount();
    const runs = [];
    for (let i = 0; i < 6; i++) {
      runs.push(spawnPipe({ argv: ["sh", "-c", "echo out; echo err >&2"], cwd, env }).result());
      const c = spawnPipe({ argv: ["cat"], cwd, env, stdin: "pipe" });
      c.write("in");
      c.closeStdin();
      runs.push(c.result());
      runs.push(spawnPty({ argv: ["sh", "-c", "echo pty"], cwd, env }).result());
      runs.push(spawnPipe({ argv: ["sleep", "30"], cwd, env, timeoutMs: 100 }).result());
      const t = spawnPty({ argv: ["sleep", "30"], cwd, env, timeoutMs: 0 });
      runs.push(t.terminate().then(() => t.result()));
    }
    const results = await Promise.all(runs);
    expect(results).toHaveLength(30);
    // stdin "pipe" handles whose process exited are closed on result; give libuv a tick to close handles.
    await new Promise((r) => setTimeout(r, 100));
    expect(fdCount()).toBe(before);
  });
});
