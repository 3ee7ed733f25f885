import type { OrchestratorEvent } from "@shellgate/orchestrator";
import type { BackendAvailability, SandboxBackend, SandboxPolicy } from "@shellgate/sandbox";
import { repositoryLines } from "../../repository-lines.js";
import type { McpLogLevel } from "./log.js";

/** What shellgate tells the client's log about one orchestrator event (nothing for most). */
export function eventDiagnostics(event: OrchestratorEvent): Array<{ level: McpLogLevel; message: string }> {
  if (event.type === "exec.repositories") {
    // The person's next git command in such a repository runs what the sandboxed command wrote.
    return repositoryLines(event).map((message) => ({ level: "warning", message }));
  }
  if (event.type === "trace") {
    const { trace } = event;
    const out: Array<{ level: McpLogLevel; message: string }> = [];
    if (trace.attempts === 2) {
      out.push({ level: "warning", message: `${trace.tool} (call ${trace.callId}): the command failed in the sandbox and ran again outside it, as approved` });
    }
    if (trace.sandboxOverride === "bypass_by_rule") {
      out.push({ level: "info", message: `${trace.tool} (call ${trace.callId}): an allow rule ran the command outside the sandbox` });
    }
    if (trace.sandboxOverride === "escalation_approved") {
      out.push({ level: "notice", message: `${trace.tool} (call ${trace.callId}): the command ran outside the sandbox, as approved` });
    }
    return out;
  }
  return [];
}

/** The parts of an orchestrator that tell which sandbox its commands get. */
export interface IsolationSource {
  readonly sandboxPolicy: SandboxPolicy;
  readonly sandboxManager: {
    select(policy: SandboxPolicy): Promise<SandboxBackend | null>;
    availability(backend: SandboxBackend): Promise<BackendAvailability>;
  };
}

/**
 * A warning when commands will run under a weaker isolation than the platform's full sandbox (the
 * Linux Landlock fallback, accepted with `--allow-weaker-isolation`), with the backend's notes;
 * undefined otherwise, and when no sandbox is needed or none could be chosen.
 */
export async function weakerIsolationWarning(source: IsolationSource): Promise<string | undefined> {
  try {
    const backend = await source.sandboxManager.select(source.sandboxPolicy);
    if (!backend) return undefined;
    const availability = await source.sandboxManager.availability(backend);
    // Backends say "weaker" in the isolation they achieve when it is a fallback (see sandbox-linux).
    if (!availability.available || !/\bweaker\b/.test(availability.isolation)) return undefined;
    const notes = availability.notes?.length ? `; ${availability.notes.join("; ")}` : "";
    return `sandbox: commands run under weaker isolation: ${availability.isolation}${notes}`;
  } catch {
    return undefined;
  }
}
