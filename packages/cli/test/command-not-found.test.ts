import { Orchestrator } from "@shellgate/orchestrator";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { platformBackends } from "../src/sandbox-backends.js";
import { makeScratch, realSandboxSkip, runBin } from "./helpers.js";

const s = makeScratch();
afterAll(() => s.cleanup());
const run = (...args: string[]) => runBin(args, { env: s.env, cwd: s.project });
const sandboxed = skipUnless(await realSandboxSkip());

describe("a missing program says `command not found: NAME` and exits 127 on every path (built bin)", () => {
  sandboxed.it("exec, sandboxed", async () => {
    const r = await run("exec", "no-such-program-xyz", "arg");
    expect(r.stderr).toBe("shellgate exec: command not found: no-such-program-xyz\n");
    expect(r.code).toBe(127);
    const dashed = await run("exec", "--", "no-such-program-xyz");
    expect(dashed.stderr).toBe("shellgate exec: command not found: no-such-program-xyz\n");
    expect(dashed.code).toBe(127);
  });

  it("exec, unsandboxed (danger-full-access)", async () => {
    const r = await run("exec", "--sandbox", "danger-full-access", "no-such-program-xyz", "arg");
    expect(r.stderr).toBe("shellgate exec: command not found: no-such-program-xyz\n");
    expect(r.code).toBe(127);
  });

  sandboxed.it("exec of a path that does not exist, sandboxed and not", async () => {
    for (const mode of ["workspace-write", "danger-full-access"]) {
      const r = await run("exec", "--sandbox", mode, "./missing.sh", "x");
      expect(r.stderr, mode).toBe("shellgate exec: command not found: ./missing.sh\n");
      expect(r.code, mode).toBe(127);
    }
  });

  sandboxed.it("exec --json carries the typed error", async () => {
    const r = await run("exec", "--json", "--", "no-such-program-xyz");
    expect(r.code).toBe(127);
    expect(JSON.parse(r.stdout)).toMatchObject({ exitCode: 127, error: { code: "ORCH_SPAWN_FAILED", message: "command not found: no-such-program-xyz" } });
  });

  sandboxed.it("a script: the shell's own message and 127", async () => {
    const r = await run("exec", "no-such-program-xyz");
    expect(r.stderr).toMatch(/no-such-program-xyz: command not found\n$/);
    expect(r.stderr).not.toContain("cannot prepare the sandbox");
    expect(r.code).toBe(127);
  });

  sandboxed.it("shellgate sandbox", async () => {
    const r = await run("sandbox", "no-such-program-xyz");
    expect(r.stderr).toBe("shellgate sandbox: command not found: no-such-program-xyz\n");
    expect(r.code).toBe(127);
  });
});

describe("the model is told `command not found: NAME` (orchestrator)", () => {
  for (const [mode, needs] of [["workspace-write", sandboxed], ["danger-full-access", skipUnless(undefined)]] as const) needs.it(mode, async () => {
    // the backends the CLI's commands get (the orchestrator registers none of its own)
    const sandboxBackends = await platformBackends();
    const orchestrator = await Orchestrator.create({ cwd: s.project, approvalPolicy: "never", sandboxPolicy: { mode }, sandboxBackends });
    try {
      const response = await orchestrator.handleToolCall({ name: "shell", arguments: { command: ["no-such-program-xyz", "x"], workdir: s.project } });
      expect(response.error).toEqual({ code: "ORCH_SPAWN_FAILED", message: "command not found: no-such-program-xyz" });
      expect(response.content).toBe("execution error: command not found: no-such-program-xyz");
    } finally {
      await orchestrator.close();
    }
  });
});
