import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import type { Orchestrator, ApprovalRequest, DecisionTrace, OrchestratorEvent, OrchestratorOptions } from "@shellgate/orchestrator";
import { call, cleanupAll, createOrchestrator, describeWithSandbox, linuxSandboxAvailability, outputSection, pollSession, workspace } from "./support/sandbox.js";
import type { Workspace } from "./support/sandbox.js";

const sandbox = await linuxSandboxAvailability();
const outside: string[] = [];
const orchestrators: Orchestrator[] = [];

afterEach(async () => {
  await Promise.all(orchestrators.splice(0).map((o) => o.close()));
  await Promise.all(outside.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  await cleanupAll();
});

async function create(ws: Workspace, options: OrchestratorOptions): Promise<{ orch: Orchestrator; events: OrchestratorEvent[] }> {
  const orch = await createOrchestrator(ws, options);
  orchestrators.push(orch);
  const events: OrchestratorEvent[] = [];
  orch.on((e) => events.push(e));
  return { orch, events };
}

/** A directory outside every writable root of workspace-write (not the cwd, not a temp dir). */
async function outsideDir(): Promise<string> {
  const dir = await mkdtemp("/var/tmp/shellgate-e2e-");
  outside.push(dir);
  return dir;
}

const traces = (events: OrchestratorEvent[]): DecisionTrace[] =>
  events.flatMap((e) => (e.type === "trace" ? [e.trace] : []));

describeWithSandbox("Orchestrator.create with the real Linux sandbox", sandbox, () => {
  it("writes inside the workspace, is denied outside it, and does not retry under `never`", async () => {
    const ws = await workspace();
    const dir = await outsideDir();
    const { orch, events } = await create(ws, { approvalPolicy: "never", sandboxPolicy: { mode: "workspace-write" } });

    const inside = await call(orch, "shell_command", { command: "echo hi > inside.txt && cat inside.txt", login: false });
    expect(inside.content).toContain("Exit code: 0\n");
    expect(await readFile(path.join(ws.dir, "inside.txt"), "utf8")).toBe("hi\n");

    const denied = await call(orch, "shell_command", { command: `touch ${dir}/x`, login: false });
    expect(denied.success).toBe(false);
    expect(outputSection(denied.content)).toMatch(/Read-only file system|Permission denied|Operation not permitted/);
    expect(existsSync(path.join(dir, "x"))).toBe(false);
    const [first, second] = traces(events);
    expect(first).toMatchObject({ initialSandbox: "linux", attempts: 1, outcome: "success" });
    expect(second).toMatchObject({ initialSandbox: "linux", attempts: 1, outcome: "sandbox_denied" });
  });

  it("retries once without the sandbox after a fresh approval under `on-failure`", async () => {
    const ws = await workspace();
    const dir = await outsideDir();
    const requests: ApprovalRequest[] = [];
    const { orch, events } = await create(ws, {
      approvalPolicy: "on-failure",
      sandboxPolicy: { mode: "workspace-write" },
      approvalHandler: async (request) => {
        requests.push(request);
        return "approved";
      },
    });
    const response = await call(orch, "shell_command", { command: `touch ${dir}/x && echo made`, login: false });
    expect(response.content).toContain("Exit code: 0\n");
    expect(existsSync(path.join(dir, "x"))).toBe(true);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.retryAfterDenial).toBe(true);
    expect(traces(events)).toEqual([expect.objectContaining({ initialSandbox: "linux", attempts: 2, outcome: "success" })]);
  });

  it("judges an exec_command that exits at once: denied in the sandbox, approved, retried unsandboxed", async () => {
    const ws = await workspace();
    const dir = await outsideDir();
    const requests: ApprovalRequest[] = [];
    const { orch, events } = await create(ws, {
      approvalPolicy: "on-failure",
      sandboxPolicy: { mode: "workspace-write" },
      approvalHandler: async (request) => {
        requests.push(request);
        return "approved";
      },
    });
    const response = await call(orch, "exec_command", { cmd: `touch ${dir}/y && echo made-it`, login: false });
    expect(response.content).toContain("Process exited with code 0\n");
    expect(outputSection(response.content)).toBe("made-it\n");
    expect(existsSync(path.join(dir, "y"))).toBe(true);
    expect(requests.map((r) => r.retryAfterDenial)).toEqual([true]);
    expect(traces(events)).toEqual([expect.objectContaining({ tool: "exec_command", attempts: 2, outcome: "success" })]);
  });

  it("runs an interactive tty session inside the sandbox", async () => {
    const ws = await workspace();
    const { orch } = await create(ws, { approvalPolicy: "never", sandboxPolicy: { mode: "read-only" } });
    const started = await call(orch, "exec_command", {
      cmd: 'read line; echo "got:$line"',
      tty: true,
      login: false,
      yield_time_ms: 500,
    });
    const id = started.sessionId as number;
    expect(id).toBeDefined();
    const answered = await call(orch, "write_stdin", { session_id: id, chars: "hello\n", yield_time_ms: 2000 });
    // A loaded machine may need more than the yield: poll until the session reports its exit.
    const done =
      typeof answered.exitCode === "number"
        ? { output: outputSection(answered.content), exitCode: answered.exitCode }
        : await pollSession(orch, id, outputSection(answered.content), () => false);
    expect(done.output).toMatch(/^got:hello\r?$/m);
    expect(done.exitCode).toBe(0);
  });

  it("loads rules files: a forbidden prefix is never run", async () => {
    const ws = await workspace();
    const rules = path.join(ws.dir, "default.rules");
    await writeFile(rules, 'prefix_rule(pattern = ["touch"], decision = "forbidden", justification = "no touching")\n');
    let spawned = 0;
    const { orch, events } = await create(ws, {
      approvalPolicy: "on-request",
      sandboxPolicy: { mode: "workspace-write" },
      rulesFiles: [rules],
    });
    orch.on((e) => {
      if (e.type === "exec.begin") spawned += 1;
    });
    const response = await call(orch, "shell_command", { command: "touch forbidden.txt", login: false });
    expect(response.error?.code).toBe("ORCH_FORBIDDEN");
    expect(response.content).toMatch(/^exec command rejected: /);
    expect(spawned).toBe(0);
    expect(existsSync(path.join(ws.dir, "forbidden.txt"))).toBe(false);
    expect(traces(events)).toEqual([expect.objectContaining({ approvalRequirement: "forbidden", outcome: "forbidden" })]);
  });
});
