import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { SandboxDenialSchema } from "@shellgate/sandbox";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import type { Orchestrator, OrchestratorEvent, OrchestratorOptions, ToolResponse } from "@shellgate/orchestrator";
import { call, cleanupAll, createOrchestrator, describeWithSandbox, linuxSandboxAvailability, outputSection, workspace } from "./support/sandbox.js";
import type { Workspace } from "./support/sandbox.js";

const sandbox = await linuxSandboxAvailability();
const outside: string[] = [];
const orchestrators: Orchestrator[] = [];
let server: http.Server;
let port = 0;

beforeAll(async () => {
  // A local server: the network is the sandbox's to refuse (loopback included), and the machine
  // running the tests need not reach the internet for the control to succeed.
  server = http.createServer((_req, res) => res.end("pong\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

afterEach(async () => {
  await Promise.all(orchestrators.splice(0).map((o) => o.close()));
  await Promise.all(outside.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  await cleanupAll();
});

async function create(ws: Workspace, options: OrchestratorOptions): Promise<{ orch: Orchestrator; events: OrchestratorEvent[] }> {
  // on-request with a person who would be asked: sandboxed commands run without asking, and an
  // escalation is a way out the model can take (where no one can approve, the note says so instead).
  const orch = await createOrchestrator(ws, { approvalPolicy: "on-request", approvalHandler: async () => "denied", ...options });
  orchestrators.push(orch);
  const events: OrchestratorEvent[] = [];
  orch.on((e) => events.push(e));
  return { orch, events };
}

/** A directory outside every writable root (not the workspace, not a temp dir). */
async function outsideDir(): Promise<string> {
  const dir = await realpath(await mkdtemp("/var/tmp/shellgate-denial-"));
  outside.push(dir);
  return dir;
}

const ends = (events: OrchestratorEvent[]) => events.flatMap((e) => (e.type === "exec.end" ? [e] : []));
const noteLines = (r: ToolResponse) => r.content.split("\n").filter((l) => l.startsWith("[shellgate] sandbox:"));

describeWithSandbox("sandbox denials explained through the orchestrator", sandbox, () => {
  it("a write outside the roots: one note line, `sandboxDenial` on the response and exec.end; the suggested root makes it work", async () => {
    const ws = await workspace();
    const dir = await outsideDir();
    const { orch, events } = await create(ws, { sandboxPolicy: { mode: "workspace-write" } });
    const denied = await call(orch, "shell_command", { command: `touch ${dir}/x`, login: false });
    expect(denied.success).toBe(false);
    expect(denied.sandboxDenial).toMatchObject({ kind: "filesystem", cause: "outside-writable-roots", paths: [`${dir}/x`], grant: { writableRoot: dir } });
    expect(SandboxDenialSchema.parse(denied.sandboxDenial)).toEqual(denied.sandboxDenial);
    expect(noteLines(denied)).toEqual([
      `[shellgate] sandbox: writing to ${dir}/x was refused (read-only: outside the writable roots); if the task needs it, ` +
        `call again with sandbox_permissions: "require_escalated" and a justification, so a person can approve running it outside the sandbox ` +
        `(or ask the user to add ${dir} as a writable root)`,
    ]);
    // The note follows the output; the output itself is the command's own.
    expect(outputSection(denied.content)).toMatch(/^touch: cannot touch '.*\/x': Read-only file system\n\[shellgate\] sandbox:/);
    expect(ends(events)[0]?.sandboxDenial).toEqual(denied.sandboxDenial);

    // Control: with the suggested directory as a writable root the same command succeeds.
    const granted = await create(ws, { sandboxPolicy: { mode: "workspace-write", writableRoots: [dir] } });
    const ok = await call(granted.orch, "shell_command", { command: `touch ${dir}/x`, login: false });
    expect(ok.content).toContain("Exit code: 0\n");
    expect(ok.sandboxDenial).toBeUndefined();
    expect(noteLines(ok)).toEqual([]);
    expect(existsSync(path.join(dir, "x"))).toBe(true);
  });

  it("the `shell` tool's JSON carries `sandboxDenial` for a write into .git, which is read-only by design", async () => {
    const ws = await workspace();
    await mkdir(path.join(ws.dir, ".git"));
    const { orch } = await create(ws, { sandboxPolicy: { mode: "workspace-write" } });
    const denied = await call(orch, "shell", { command: ["sh", "-c", "echo x > .git/config"] });
    const json = JSON.parse(denied.content) as { sandboxDenial?: unknown; metadata: { exit_code: number } };
    expect(json.metadata.exit_code).not.toBe(0);
    const real = await realpath(ws.dir);
    expect(json.sandboxDenial).toMatchObject({ cause: "protected-path", paths: [`${real}/.git/config`], grant: { protectedName: ".git", outsideSandboxOnly: true } });
    expect(denied.sandboxDenial).toEqual(json.sandboxDenial);
    // the model is told why .git is held (hooks run later, outside) and the way out it can ask for
    expect(denied.sandboxDenial?.suggestion).toMatch(/^\.git holds git's hooks and configuration and stays read-only inside the sandbox: a hook or setting a sandboxed command planted there would run later, outside the sandbox/);
    expect(denied.sandboxDenial?.suggestion).toContain('sandbox_permissions: "require_escalated"');
    // Control: outside the sandbox the same write succeeds; it was the sandbox that refused it.
    const full = await create(ws, { sandboxPolicy: { mode: "danger-full-access" } });
    const ok = await call(full.orch, "shell", { command: ["sh", "-c", "echo x > .git/config"] });
    expect(JSON.parse(ok.content)).not.toHaveProperty("sandboxDenial");
    expect(await readFile(path.join(ws.dir, ".git", "config"), "utf8")).toBe("x\n");
  });

  it("a connection with the network off is explained (and counts as a denial); with the network on it succeeds", async () => {
    const ws = await workspace();
    const script = `node -e 'fetch("http://127.0.0.1:${port}/").then((r) => r.text()).then((t) => process.stdout.write(t))'`;
    const { orch, events } = await create(ws, { sandboxPolicy: { mode: "workspace-write" } });
    const denied = await call(orch, "shell_command", { command: script, login: false });
    expect(denied.sandboxDenial).toMatchObject({ kind: "network", cause: "network-disabled", hosts: [`127.0.0.1:${port}`], grant: { network: true } });
    expect(noteLines(denied)[0]).toMatch(/^\[shellgate\] sandbox: network access is off \(127\.0\.0\.1:\d+ could not be reached\); if the task needs the network/);
    expect(events.find((e) => e.type === "trace")).toMatchObject({ trace: { outcome: "sandbox_denied" } });

    const granted = await create(ws, { sandboxPolicy: { mode: "workspace-write", networkAccess: true } });
    const ok = await call(granted.orch, "shell_command", { command: script, login: false });
    expect(ok.content).toContain("Exit code: 0\n");
    expect(outputSection(ok.content)).toBe("pong\n");
    expect(ok.sandboxDenial).toBeUndefined();
  });

  it("where no one can approve (approval policy never), the note sends the model to the user instead of to an escalation", async () => {
    const ws = await workspace();
    const dir = await outsideDir();
    const { orch } = await create(ws, { approvalPolicy: "never", sandboxPolicy: { mode: "workspace-write" } });
    const denied = await call(orch, "shell_command", { command: `touch ${dir}/x`, login: false });
    expect(denied.sandboxDenial?.grant.noApprover).toBe(true);
    expect(noteLines(denied)).toEqual([
      `[shellgate] sandbox: writing to ${dir}/x was refused (read-only: outside the writable roots); no one can approve running it outside the sandbox here; ` +
        `if the task needs it, ask the user to add ${dir} as a writable root`,
    ]);
  });

  it("no explanation for a command's own failure, even one that prints `Permission denied` about a workspace file", async () => {
    const ws = await workspace();
    const { orch } = await create(ws, { sandboxPolicy: { mode: "workspace-write" } });
    const own = await call(orch, "shell_command", { command: "echo 'tests failed' >&2; exit 3", login: false });
    expect(own.content).toContain("Exit code: 3\n");
    expect(own.sandboxDenial).toBeUndefined();
    const perm = await call(orch, "shell_command", { command: "echo 'cat: ./secret.txt: Permission denied' >&2; exit 1", login: false });
    expect(perm.sandboxDenial).toBeUndefined();
    expect(noteLines(perm)).toEqual([]);
  });

  it("after an approved retry outside the sandbox the result carries no denial; the approval request got it", async () => {
    const ws = await workspace();
    const dir = await outsideDir();
    const asked: unknown[] = [];
    const { orch } = await create(ws, {
      approvalPolicy: "on-failure",
      sandboxPolicy: { mode: "workspace-write" },
      approvalHandler: async (request) => {
        asked.push(request.reason);
        return "approved";
      },
    });
    const response = await call(orch, "shell_command", { command: `touch ${dir}/y && echo made`, login: false });
    expect(response.content).toContain("Exit code: 0\n");
    expect(response.sandboxDenial).toBeUndefined();
    expect(asked).toHaveLength(1);
    expect(String(asked[0])).toContain(`${dir}/y`);
  });
});
