import { mkdirSync } from "node:fs";
import path from "node:path";
import { Orchestrator, type ApprovalHandler } from "@shellgate/orchestrator";
import type { PromptDecision, PromptRequest } from "./approval/types.js";
import type { EffectiveConfig } from "./config/index.js";
import { upstreamFromHostEnv } from "./network-upstream.js";
import { linuxTunnelSplicer, platformBackends } from "./sandbox-backends.js";

/** An approval function of the CLI (terminal prompt, MCP elicitation). */
export type CliApprover = (request: PromptRequest, context?: { signal?: AbortSignal }) => Promise<PromptDecision>;

/** How the model (and the person) is told to grant a host the proxy refused. */
function grantHint(host: string): string {
  return `re-run with --allow-domain ${host} (or add it to [network] allow in your config)`;
}

/**
 * One orchestrator session for the loaded configuration: its rules, approval policy, sandbox policy
 * (with this platform's backends, from `sandbox-backends.ts`), environment policy, where amendments go
 * and which paths stay read-only. Without `approve`, every command that needs a person is refused with a readable reason.
 * `sessionApprovals` (default false) offers "run for this session", and `sessionPlaceholders`
 * (default false) keeps the sandbox's placeholders between commands and `prewarmSandboxes` (default
 * false) a sandbox set up ahead of the next one-shot command: only for a caller whose orchestrator
 * serves many calls.
 * @throws the rules files' diagnostics, or OrchestratorConfigError naming the bad setting.
 */
export async function createCliOrchestrator(
  config: EffectiveConfig,
  approve: CliApprover | undefined,
  options: { sessionApprovals?: boolean; sessionPlaceholders?: boolean; prewarmSandboxes?: boolean } = {},
): Promise<Orchestrator> {
  // Loading the backend's package starts first; the directory below is made meanwhile.
  const backends = platformBackends({
    allowWeakerIsolation: config.allowWeakerIsolation,
    processLimit: config.processLimit,
    sessionPlaceholders: options.sessionPlaceholders === true,
  });
  // The user's rules directory is created up front: "always allow" writes there, and a directory that
  // exists is kept read-only by a plain bind mount, while a missing one needs a placeholder on the
  // host for as long as a sandboxed command runs.
  try {
    mkdirSync(path.dirname(config.userRulesFile), { recursive: true });
  } catch {
    // A read-only home still works; amendments will report their own error.
  }
  // Every protected path, existing or not: the sandbox holds a missing one with a placeholder so it
  // cannot be created from inside (a new `~/.cache/shellgate/execpolicy` would feed policy-check).
  const protectedPaths = config.protectedPaths;
  const upstream = upstreamFromHostEnv(process.env);
  const approvalHandler: ApprovalHandler | undefined = approve ? (request, context) => approve(request, context) : undefined;
  return await Orchestrator.create({
    cwd: config.cwd,
    rulesFiles: config.rules.map((r) => r.file),
    userRulesFile: config.userRulesFile,
    approvalPolicy: config.approvalPolicy,
    sandboxPolicy: config.sandboxPolicy,
    allowLoginShell: config.allowLoginShell,
    protectedPaths,
    ...(config.shellEnvironmentPolicy ? { shellEnvironmentPolicy: config.shellEnvironmentPolicy } : {}),
    ...(approvalHandler ? { approvalHandler } : {}),
    // "Run for this session" only where the orchestrator outlives the call (the MCP server), not for
    // `shellgate exec`, whose one command is the whole session.
    sessionApprovals: options.sessionApprovals ?? false,
    prewarmSandboxes: options.prewarmSandboxes === true,
    network: config.network,
    networkGrantHint: grantHint,
    // The weaker Landlock fallback only when asked; the Linux backend keeps its capability probe on
    // disk between CLI runs (see sandbox-backends.ts).
    sandboxBackends: await backends,
    // Bulk tunnels and bodies leave the proxy's JS path for the Linux helper's splice modes; the path
    // passed the backend's own trust check (the host runs it, as it runs the helper's probe). Found
    // when the first proxy starts: locating and checking it was ~1.5 ms of every `exec` start.
    networkTunnelSplicer: () => linuxTunnelSplicer(),
    // Allowed connections go through the host's own proxy (corporate networks), NO_PROXY honoured.
    ...(upstream ? { networkUpstream: upstream } : {}),
  });
}
