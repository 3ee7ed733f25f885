import { mkdtemp, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import type { OrchestratorEvent } from "@shellgate/orchestrator";
import { call, cleanupAll, createOrchestrator, describeWithSandbox, linuxSandboxAvailability, workspace } from "./support/sandbox.js";

afterEach(() => cleanupAll());

describeWithSandbox("on-failure retry messages under the real Linux sandbox", await linuxSandboxAvailability(), () => {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  async function run(approvalHandler?: () => Promise<"denied">) {
    const ws = await workspace();
    const outside = await mkdtemp("/var/tmp/shellgate-retry-");
    made.push(outside);
    const events: OrchestratorEvent[] = [];
    const orch = await createOrchestrator(ws, {
      approvalPolicy: "on-failure",
      sandboxPolicy: { mode: "workspace-write" },
      ...(approvalHandler ? { approvalHandler } : {}),
    });
    orch.on((e) => events.push(e));
    try {
      const response = await call(orch, "shell_command", { command: `touch ${outside}/x`, login: false });
      return { response, outside, events };
    } finally {
      await orch.close();
    }
  }

  it("no one to approve: the model reads that a retry needs a person; nothing ran outside the sandbox", async () => {
    const { response, outside } = await run();
    expect(response.success).toBe(false);
    expect(response.sandboxRetry).toBe("no_approver");
    expect(response.content).toMatch(/^Exit code: 1\n/);
    expect(response.content).toContain("[shellgate] it ran in the sandbox and failed (exit 1), probably because the sandbox refused something; a retry without the sandbox needs a person's approval");
    await expect(readFile(path.join(outside, "x"))).rejects.toThrow(/ENOENT/);
  });

  it("the person denies the retry: the model reads exit 1 and that the retry was not run", async () => {
    const { response, outside, events } = await run(async () => "denied");
    expect(response.error).toBeUndefined();
    expect(response.exitCode).toBe(1);
    expect(response.content).toContain("[shellgate] it ran in the sandbox and failed (exit 1); the user denied the retry without the sandbox, so it was not run again");
    expect(events.filter((e) => e.type === "approval.requested")).toHaveLength(1);
    await expect(readFile(path.join(outside, "x"))).rejects.toThrow(/ENOENT/);
  });
});
