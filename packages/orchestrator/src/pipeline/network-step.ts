import { errorMessage } from "../errors.js";
import { computeWritableRoots, policyAllowsNetwork, policyRequiresPlatformSandbox, type ExecEnv, type SandboxPolicy } from "@shellgate/sandbox";
import type { HostGrant } from "../network/grants.js";
import { startRunNetwork, type RunNetwork } from "../network/run-network.js";
import type { ExecRequest, NetworkReport, PipelineContext } from "./types.js";

/** A run's network as the pipeline set it up: the proxy (when it runs) and what the model will be told. */
export interface RoutedNetwork {
  run?: RunNetwork;
  report?: NetworkReport;
}

/**
 * Start the session proxy for one attempt when it is wanted: the run is confined, its network is off
 * by policy, and some host could be let through (a grant, an allowing or asking rule, the command's
 * own rule). Fails closed: when the backend cannot route through a proxy or the proxy cannot start,
 * the command runs without network, and the report says why.
 */
export async function routeNetwork(
  ctx: PipelineContext,
  request: ExecRequest,
  policy: SandboxPolicy,
  commandGrants: readonly HostGrant[],
): Promise<RoutedNetwork> {
  const net = ctx.network;
  if (!net || !policyRequiresPlatformSandbox(policy) || policyAllowsNetwork(policy)) return {};
  if (!net.hostPolicy.active && commandGrants.length === 0) return {};
  let backend;
  try {
    if (!ctx.sandboxManager.select) return { report: fixedReport("the sandbox manager cannot say which backend runs the command, so this command ran without network") };
    backend = await ctx.sandboxManager.select(policy);
  } catch {
    // No backend: preparing the sandbox fails next with the full reason; there is nothing to route.
    return {};
  }
  if (!backend) return {};
  if (!backend.proxyTransport) {
    return { report: fixedReport(`the sandbox backend "${backend.name}" cannot route a command's network through the proxy, so this command ran without network`) };
  }
  let run: RunNetwork;
  try {
    const writableRoots =
      backend.proxyTransport === "unix-socket" && net.socketRoot === undefined
        ? (await computeWritableRoots(policy, { cwd: ctx.sandboxPolicyCwd ?? request.cwd, env: request.env })).map((r) => r.root)
        : [];
    run = await startRunNetwork(
      { ...net, askHost: net.approvals.forRun({ callId: request.callId, tool: request.tool, argv: request.argv, cwd: request.cwd, ...(request.signal ? { signal: request.signal } : {}) }), events: ctx.events },
      { callId: request.callId, transport: backend.proxyTransport, commandGrants, writableRoots },
    );
  } catch (error) {
    return { report: fixedReport(`the network proxy could not start (${errorMessage(error)}), so this command ran without network`) };
  }
  return { run, report: { refusals: () => run.refusals(), note: () => run.failure() } };
}

function fixedReport(note: string): NetworkReport {
  return { refusals: () => [], note: () => note };
}

/** The run's env with the proxy stopped after the sandbox's own cleanup (once, whoever calls it first). */
export function withProxyCleanup(env: ExecEnv, run: RunNetwork): ExecEnv {
  const own = env.cleanup;
  let done: Promise<void> | undefined;
  return {
    ...env,
    cleanup: () =>
      (done ??= (async () => {
        try {
          await own?.();
        } finally {
          await run.stop();
        }
      })()),
  };
}
