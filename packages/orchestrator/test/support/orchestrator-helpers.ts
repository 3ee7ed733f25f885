import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Orchestrator } from "./internals.js";
import type { OrchestratorEvent, OrchestratorOptions, ToolResponse } from "./internals.js";

/** A scratch workspace with an empty HOME, so shells start fast and read no personal profile. */
export interface Workspace {
  dir: string;
  home: string;
  hostEnv: Record<string, string>;
}

const cleanups: Array<() => Promise<void>> = [];

/** Make a temp workspace (removed by `cleanupAll`). */
export async function workspace(): Promise<Workspace> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "shellgate-orch-test-"));
  const home = path.join(dir, ".home");
  await import("node:fs/promises").then((fs) => fs.mkdir(home));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return { dir, home, hostEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" } };
}

/** An orchestrator on `ws` without a platform sandbox (full access, never asks), closed by `cleanupAll`. */
export function orchestrator(ws: Workspace, options: OrchestratorOptions = {}): { orch: Orchestrator; events: OrchestratorEvent[] } {
  const orch = new Orchestrator({
    cwd: ws.dir,
    approvalPolicy: "never",
    sandboxPolicy: { mode: "danger-full-access" },
    hostEnv: ws.hostEnv,
    shell: "/bin/bash",
    ...options,
  });
  const events: OrchestratorEvent[] = [];
  orch.on((e) => events.push(e));
  cleanups.unshift(() => orch.close());
  return { orch, events };
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

/**
 * Poll a session with empty `write_stdin` calls until `done(output)` holds or the session exits,
 * accumulating its output. Event-driven: a loaded machine only means more polls, never a failure
 * (the test timeout bounds it).
 */
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
