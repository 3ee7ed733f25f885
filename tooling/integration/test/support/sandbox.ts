// Helpers of the integration tests: the real Linux backend wired the way an integrator wires it, and
// a guard so a real-sandbox suite never silently vanishes in CI.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Orchestrator } from "@shellgate/orchestrator";
import type { ApprovalHandler, ApprovalRequest, OrchestratorOptions, ReviewDecision, ToolResponse } from "@shellgate/orchestrator";
import { SandboxManager } from "@shellgate/sandbox";
import { createLinuxSandboxBackend } from "@shellgate/sandbox-linux";
import { failInCi, isCi, skipUnless } from "@shellgate/test-support";
import { describe } from "vitest";

/** Whether the real Linux sandbox runs here, with the isolation it gives or the reason it cannot. */
export interface SandboxAvailability {
  available: boolean;
  reason: string;
}

let probed: Promise<SandboxAvailability> | undefined;

/** Probe the Linux backend once per test file (the first caller pays for the probe). */
export function linuxSandboxAvailability(): Promise<SandboxAvailability> {
  probed ??= (async () => {
    if (process.platform !== "linux") return { available: false, reason: `no sandbox backend wired for ${process.platform} here` };
    const manager = new SandboxManager();
    manager.register(createLinuxSandboxBackend());
    const availability = (await manager.report())[0]?.availability;
    if (availability?.available) return { available: true, reason: availability.isolation };
    return { available: false, reason: availability ? availability.reason : "no backend" };
  })();
  return probed;
}

/**
 * `describe` for a suite that needs the real sandbox (and `extra`, e.g. a binary, when given). Where
 * it is missing the suite is skipped with the reason in its title, except under `CI=true`: there a
 * skip would hide the suite, so a failing test names what is missing instead.
 */
export function describeWithSandbox(
  title: string,
  availability: SandboxAvailability,
  body: () => void,
  extra: { ok: boolean; reason: string } = { ok: true, reason: "" },
): void {
  const missing = !availability.available ? availability.reason : !extra.ok ? extra.reason : undefined;
  if (missing !== undefined && isCi()) {
    describe(title, () => void failInCi(missing, "has the real sandbox it needs (CI=true: a missing one fails, never skips)"));
    return;
  }
  // Run, the title names the isolation it ran with; skipped, skipUnless names the reason.
  skipUnless(missing).describe(missing === undefined ? `${title} (${availability.reason})` : title, body);
}

/** The Linux backend as the integration tests register it. */
export function linuxBackends(): ReturnType<typeof createLinuxSandboxBackend>[] {
  return [createLinuxSandboxBackend()];
}

/** A scratch workspace with an empty HOME, so shells start fast and read no personal profile. */
export interface Workspace {
  dir: string;
  home: string;
  hostEnv: Record<string, string>;
}

const cleanups: Array<() => Promise<void>> = [];

/** Make a temp workspace (removed by `cleanupAll`). */
export async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "shellgate-int-test-"));
  const home = path.join(dir, ".home");
  await mkdir(home);
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return { dir, home, hostEnv: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" } };
}

/** `Orchestrator.create` with the Linux backend on `ws` (closed by `cleanupAll`). */
export async function createOrchestrator(ws: Workspace, options: OrchestratorOptions = {}): Promise<Orchestrator> {
  const orch = await Orchestrator.create({ cwd: ws.dir, hostEnv: ws.hostEnv, shell: "/bin/bash", sandboxBackends: linuxBackends(), ...options });
  cleanups.unshift(() => orch.close());
  return orch;
}

/** Close every orchestrator and remove every workspace made since the last call. */
export async function cleanupAll(): Promise<void> {
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
}

/** Call a tool with JSON-string arguments, as an OpenAI function call arrives. */
export function call(orch: Orchestrator, name: string, args: unknown, options: { signal?: AbortSignal; callId?: string } = {}): Promise<ToolResponse> {
  return orch.handleToolCall(
    { name, payload: { type: "function", arguments: JSON.stringify(args) }, ...(options.callId ? { callId: options.callId } : {}) },
    options.signal ? { signal: options.signal } : {},
  );
}

/** The `Output:` section of a freeform or unified exec response. */
export function outputSection(content: string): string {
  const at = content.indexOf("\nOutput:\n");
  if (at < 0) throw new Error(`no Output: section in ${JSON.stringify(content)}`);
  return content.slice(at + "\nOutput:\n".length);
}

/** What polling a session gathered: all output seen (including `seen`), and the exit code once reported. */
export interface Polled {
  output: string;
  exitCode?: number;
}

/** Poll a session with empty `write_stdin` calls until `done(output)` holds or the session exits. */
export async function pollSession(orch: Orchestrator, id: number, seen: string, done: (output: string) => boolean): Promise<Polled> {
  let output = seen;
  while (!done(output)) {
    const response = await call(orch, "write_stdin", { session_id: id });
    if (response.error) throw new Error(`polling session ${id} failed: ${response.content}`);
    output += outputSection(response.content);
    if (typeof response.exitCode === "number") return { output, exitCode: response.exitCode };
  }
  return { output };
}

/** An approval handler answering from a script and recording every request; a request past the script fails the test. */
export function scriptedHandler(decisions: Array<ReviewDecision | Awaited<ReturnType<ApprovalHandler>>>): { handler: ApprovalHandler; requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  const queue = [...decisions];
  const handler: ApprovalHandler = async (request) => {
    requests.push(request);
    const next = queue.shift();
    if (next === undefined) throw new Error(`unexpected approval request ${requests.length}`);
    return next;
  };
  return { handler, requests };
}
