import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { spawnPipe } from "@shellgate/pty";
import { computeWritableRoots, parseSandboxPolicy, SandboxManager } from "@shellgate/sandbox";
import { createLinuxSandboxBackend } from "@shellgate/sandbox-linux";
import { afterEach, expect, it } from "vitest";
import { Orchestrator} from "@shellgate/orchestrator";
import type { OrchestratorOptions } from "@shellgate/orchestrator";
import { call, describeWithSandbox, linuxBackends, linuxSandboxAvailability, outputSection } from "./support/sandbox.js";

const sandbox = await linuxSandboxAvailability();

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

/** A workspace nested in a writable temp directory (the layout of the attack), and a place outside every writable root. */
async function layout() {
  const parent = await mkdtemp(path.join(os.tmpdir(), "sg-ws-identity-"));
  cleanups.push(() => rm(parent, { recursive: true, force: true }));
  const ws = path.join(parent, "ws");
  await mkdir(ws);
  const outside = await mkdtemp("/var/tmp/sg-ws-identity-");
  cleanups.push(() => rm(outside, { recursive: true, force: true }));
  const hostEnv = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: parent, LANG: "C.UTF-8" };
  return { parent, ws, outside, hostEnv };
}

async function create(ws: string, hostEnv: Record<string, string>, options: OrchestratorOptions = {}): Promise<Orchestrator> {
  const orch = await Orchestrator.create({
    cwd: ws,
    hostEnv,
    shell: "/bin/bash",
    approvalPolicy: "never",
    sandboxPolicy: { mode: "workspace-write" },
    sandboxBackends: linuxBackends(),
    ...options,
  });
  cleanups.unshift(() => orch.close());
  return orch;
}

/** The workspace-rename attack, done directly on the host: rename the workspace away and put a symlink to `target` in its place. */
async function swapFor(ws: string, target: string): Promise<void> {
  await rename(ws, `${ws}.old`);
  await symlink(target, ws);
}
const swapForRoot = (ws: string) => swapFor(ws, "/");

describeWithSandbox("a workspace renamed away between two calls (real sandbox, real rename)", sandbox, () => {
  it("control: after the swap the workspace name resolves to `/`, and the sandbox policy for it makes `/` writable", async () => {
    const { ws } = await layout();
    await swapForRoot(ws);
    expect(realpathSync(ws)).toBe("/");
    const roots = await computeWritableRoots(parseSandboxPolicy({ mode: "workspace-write" }), { cwd: ws, env: {} });
    expect(roots[0]?.root).toBe("/");
  });

  it("control: swapped for a link to another directory, a sandbox prepared for the workspace writes there", async () => {
    const { ws, outside, hostEnv } = await layout();
    await swapFor(ws, outside);
    // What a later call would get without the identity check: the other directory as its writable workspace.
    const manager = new SandboxManager();
    manager.register(createLinuxSandboxBackend());
    const target = path.join(outside, "pwned");
    const env = await manager.prepare(
      { argv: ["/bin/sh", "-c", `echo pwned > ${target}`], cwd: ws, env: hostEnv },
      parseSandboxPolicy({ mode: "workspace-write" }),
      { sandboxPolicyCwd: ws, protectedPaths: [] },
    );
    try {
      const result = await spawnPipe({ argv: env.argv, cwd: env.cwd, env: { ...env.env }, timeoutMs: 30_000 }).result();
      expect(result.exitCode).toBe(0);
    } finally {
      await env.cleanup?.();
    }
    expect(await readFile(target, "utf8")).toBe("pwned\n");
  });

  it("the orchestrator refuses a call after the workspace was swapped for a link to another directory", async () => {
    const { ws, outside, hostEnv } = await layout();
    const orch = await create(ws, hostEnv);
    expect((await call(orch, "shell_command", { command: "true", login: false })).exitCode).toBe(0);
    await swapFor(ws, outside);
    const target = path.join(outside, "pwned");
    const response = await call(orch, "shell_command", { command: `echo pwned > ${target}`, login: false });
    expect(response.error?.code).toBe("ORCH_WORKSPACE_CHANGED");
    expect(existsSync(target)).toBe(false);
  });

  it("the orchestrator refuses the second call with ORCH_WORKSPACE_CHANGED and runs nothing", async () => {
    const { ws, outside, hostEnv } = await layout();
    const orch = await create(ws, hostEnv);
    const first = await call(orch, "shell_command", { command: "echo first > marker.txt", login: false });
    expect(first.exitCode).toBe(0);
    expect(await readFile(path.join(ws, "marker.txt"), "utf8")).toBe("first\n");

    await swapForRoot(ws);
    const target = path.join(outside, "pwned");
    const second = await call(orch, "shell_command", { command: `echo pwned > ${target}`, login: false });
    expect(second.error?.code).toBe("ORCH_WORKSPACE_CHANGED");
    expect(second.success).toBe(false);
    expect(second.content).toContain(`${ws}.old`.replace(/\.old$/, ""));
    expect(second.content).toMatch(/it is now \/ \(dev:ino \d+:\d+\)/);
    expect(existsSync(target)).toBe(false);

    // Every tool, write_stdin included, and the argv tool.
    const argvTool = await call(orch, "shell", { command: ["/bin/sh", "-c", `echo pwned > ${target}`] });
    expect(argvTool.error?.code).toBe("ORCH_WORKSPACE_CHANGED");
    const poll = await call(orch, "write_stdin", { session_id: 1000 });
    expect(poll.error?.code).toBe("ORCH_WORKSPACE_CHANGED");
    expect(existsSync(target)).toBe(false);
  });

  it("a swap while the call waits for approval is caught right before the sandbox is prepared", async () => {
    const { ws, outside, hostEnv } = await layout();
    const target = path.join(outside, "pwned");
    let asked = 0;
    const orch = await create(ws, hostEnv, {
      approvalPolicy: "untrusted",
      approvalHandler: async () => {
        asked += 1;
        // The call already passed its first check; the attack lands while a person reads the prompt.
        await swapFor(ws, outside);
        return "approved";
      },
    });
    const response = await call(orch, "shell_command", { command: `echo pwned > ${target}`, login: false });
    expect(asked).toBe(1);
    expect(response.error?.code).toBe("ORCH_WORKSPACE_CHANGED");
    expect(existsSync(target)).toBe(false);
  });

  it("a symlinked per-call workdir pointing outside does not become the sandbox's workspace", async () => {
    const { ws, outside, hostEnv } = await layout();
    await symlink(outside, path.join(ws, "link"));
    // Control: unsandboxed, writing through the symlinked directory lands outside the workspace.
    const control = spawnSync("/bin/sh", ["-c", "echo control > control.txt"], { cwd: path.join(ws, "link") });
    expect(control.status).toBe(0);
    expect(await readFile(path.join(outside, "control.txt"), "utf8")).toBe("control\n");

    const orch = await create(ws, hostEnv);
    const response = await call(orch, "shell_command", { command: "pwd -P; echo x > through-link.txt", workdir: "link", login: false });
    // The command runs in the link's target, but the writable workspace stays the session's cwd.
    expect(outputSection(response.content)).toContain(realpathSync(outside));
    expect(response.exitCode).not.toBe(0);
    expect(outputSection(response.content)).toMatch(/Read-only file system|Permission denied/);
    expect(existsSync(path.join(outside, "through-link.txt"))).toBe(false);
    // The workspace itself is unchanged, so the session goes on.
    const after = await call(orch, "shell_command", { command: "echo ok > ok.txt", login: false });
    expect(after.exitCode).toBe(0);
  });
});
