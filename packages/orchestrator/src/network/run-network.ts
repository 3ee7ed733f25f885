// `fs.promises` is read where it is used: importing node:fs/promises would load it on every CLI start.
import fs from "node:fs";
import path from "node:path";
import type { NetworkProxy, NetworkRequestEvent, ProxyRequest, ProxyVerdict, startNetworkProxy } from "@shellgate/network-proxy";
import type { NetworkProxyRoute, ProxyTransport } from "@shellgate/sandbox";
import { runFilesDir } from "@shellgate/user-paths";
import { OrchestratorConfigError } from "../errors.js";
import type { EventBus } from "../events.js";
import type { HostGrant } from "./grants.js";
import { describeVerdictSource, type NetworkHostPolicy, type HostVerdict } from "./host-policy.js";

/** A host the proxy refused during a run, as the model is told. */
export interface NetworkRefusal {
  host: string;
  port: number;
  /** Why, in words (`no rule or grant allows this host`, `forbidden by network_rule at f:3:1`…). */
  reason: string;
  /** How to grant it, when it can be granted. */
  hint?: string;
}

/** What a run's network needs from the session. */
export interface RunNetworkDeps {
  hostPolicy: NetworkHostPolicy;
  /** Ask a person about a `prompt` host; resolves true when it may be reached (cached by the caller). */
  askHost: (request: ProxyRequest, verdict: HostVerdict) => Promise<boolean>;
  events: EventBus;
  /** How the model is told to grant a refused host (the CLI says `--allow-domain HOST`). */
  grantHint: (host: string) => string;
  /** Where the per-run socket directory is made (default: see `pickSocketRoot`). */
  socketRoot?: string;
  /** Test seam for the proxy; default `startNetworkProxy`. */
  startProxy?: typeof startNetworkProxy;
  /** The upstream proxy allowed connections go through (see the orchestrator's `networkUpstream`). */
  upstream?: Parameters<typeof startNetworkProxy>[0]["upstream"];
  /** Test seam for name resolution in the proxy. */
  resolver?: Parameters<typeof startNetworkProxy>[0]["resolver"];
  /**
   * The proxy's `tunnelSplicer`, an absolute path the host runs for bulk tunnels (see the
   * orchestrator's `networkTunnelSplicer`), found when a run first starts a proxy; undefined: none.
   * A rejection fails the proxy's start.
   */
  tunnelSplicer?: () => Promise<string | undefined>;
}

/** Finds the tunnel splicer when it is first needed: an absolute path, or undefined for none. */
export type NetworkTunnelSplicerSource = () => string | undefined | Promise<string | undefined>;

/**
 * The session's tunnel splicer as its proxies ask for it (`RunNetworkDeps.tunnelSplicer`): a path as
 * given; a function asked when a proxy first starts and its answer kept. A function's answer must be
 * an absolute path or undefined, else that proxy does not start (OrchestratorConfigError naming the
 * option); a failure is not kept, so the next proxy start asks again.
 */
export function tunnelSplicerOnce(source: string | NetworkTunnelSplicerSource): () => Promise<string | undefined> {
  if (typeof source === "string") return () => Promise.resolve(source);
  let found: Promise<string | undefined> | undefined;
  const ask = async () => {
    const file = await source();
    if (file === undefined || (typeof file === "string" && path.isAbsolute(file))) return file;
    throw new OrchestratorConfigError("networkTunnelSplicer", `returned ${JSON.stringify(file)}, not an absolute path`);
  };
  return () =>
    (found ??= ask().catch((error: unknown) => {
      found = undefined;
      throw error;
    }));
}

/** The proxy of one run: its route for the sandbox, what it refused, and how it ended. */
export interface RunNetwork {
  readonly route: NetworkProxyRoute;
  /** Refused hosts so far, one entry per host and port, in the order first refused. */
  refusals(): NetworkRefusal[];
  /** Set once the proxy stopped on its own (the run then has no network): why, in words. */
  failure(): string | undefined;
  /** Stop the proxy and remove its sockets; idempotent. */
  stop(): Promise<void>;
}

/**
 * Start the proxy one run's network goes through. One per run, not per session: the proxy then knows
 * which call asks (events and refusals name it) and which command's rule grants apply, and it dies
 * with the run. Rejects when the proxy cannot start; the caller then runs the command without network.
 */
export async function startRunNetwork(
  deps: RunNetworkDeps,
  run: { callId: string; transport: ProxyTransport; commandGrants: readonly HostGrant[]; writableRoots?: readonly string[] },
): Promise<RunNetwork> {
  const refused = new Map<string, NetworkRefusal>();
  let dir: string | undefined;
  if (run.transport === "unix-socket") dir = await fs.promises.mkdtemp(path.join(deps.socketRoot ?? (await pickSocketRoot(run.writableRoots ?? [])), "shellgate-net-"));
  const decide = async (request: ProxyRequest): Promise<ProxyVerdict> => {
    const verdict = deps.hostPolicy.decide(request.host, run.commandGrants);
    const rule = verdict.source.kind === "rule" ? { rule: { ...verdict.source.rule.source } } : {};
    // A host allowed by name goes wherever its resolver says (a VPN's fake-IP or documentation
    // range included); loopback and link-local only for a host the configuration names.
    if (verdict.decision === "allow") return { decision: "allow", allowNamed: true, allowPrivate: verdict.explicit, reason: describeVerdictSource(verdict.source), ...rule };
    if (verdict.decision === "prompt" && (await deps.askHost(request, verdict))) {
      return { decision: "allow", allowNamed: true, reason: "approved by a person", ...rule };
    }
    const reason = verdict.decision === "prompt" ? `${describeVerdictSource(verdict.source)}, and it was not approved` : describeVerdictSource(verdict.source);
    return { decision: "deny", reason, ...(grantable(verdict) ? { hint: deps.grantHint(request.host) } : {}), ...rule };
  };
  const onRequest = (event: NetworkRequestEvent) => {
    deps.events.emit({ type: "network.request", callId: run.callId, ...event });
    if (event.decision !== "deny") return;
    const key = `${event.host}:${event.port}`;
    if (refused.has(key)) return;
    const hint = event.cause === "private-address" ? addressGrantable(event, deps.hostPolicy.decide(event.host, run.commandGrants)) : grantable(deps.hostPolicy.decide(event.host, run.commandGrants));
    refused.set(key, {
      host: event.host,
      port: event.port,
      reason: event.reason ?? event.cause,
      ...(hint ? { hint: deps.grantHint(event.host) } : {}),
    });
  };
  let proxy: NetworkProxy;
  try {
    // Loaded with the first proxy-routed run: most sessions never need the protocol libraries.
    const start = deps.startProxy ?? (await import("@shellgate/network-proxy")).startNetworkProxy;
    const tunnelSplicer = await deps.tunnelSplicer?.();
    proxy = await start({
      decide,
      onRequest,
      listen: dir !== undefined ? { transport: "unix-socket", directory: dir } : { transport: "loopback-tcp" },
      ...(deps.resolver ? { resolver: deps.resolver } : {}),
      ...(deps.upstream ? { upstream: deps.upstream } : {}),
      ...(tunnelSplicer ? { tunnelSplicer } : {}),
    });
  } catch (error) {
    if (dir !== undefined) await fs.promises.rm(dir, { recursive: true, force: true });
    throw error;
  }
  let failure: string | undefined;
  let stopping = false;
  void proxy.closed.then(({ error }) => {
    if (!stopping) failure = `the network proxy stopped during the run${error ? ` (${error.message})` : ""}; from then on the command had no network`;
  });
  const route = routeOf(proxy, run.transport);
  return {
    route,
    refusals: () => [...refused.values()],
    failure: () => failure,
    async stop() {
      stopping = true;
      await proxy.stop();
      if (dir !== undefined) await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Whether a refused host can be let through by granting it: refused by default or left unapproved
 * at a prompt. A forbidden rule or a deny entry is not overruled by a grant, so no hint is given.
 */
function grantable(verdict: HostVerdict): boolean {
  return verdict.source.kind === "default" || (verdict.source.kind === "rule" && verdict.source.rule.decision === "prompt");
}

/**
 * Whether granting the host by name would let a refused address through: only a loopback or
 * link-local address of a host that is not already granted (an approved prompt host). A host the
 * configuration already grants, or an address nothing opens, gets no hint: the reason says what
 * refused it, and repeating the grant given would lead nowhere.
 */
function addressGrantable(event: NetworkRequestEvent, verdict: HostVerdict): boolean {
  if (verdict.decision === "allow" || verdict.decision === "deny") return false;
  return event.refusedBy === "needs-explicit-grant";
}

function routeOf(proxy: NetworkProxy, transport: ProxyTransport): NetworkProxyRoute {
  const { http, socks } = proxy.endpoints;
  if (transport === "unix-socket") {
    if (!http.socketPath || !socks.socketPath) throw new Error("the proxy did not report its socket paths");
    return { transport, httpSocket: http.socketPath, socksSocket: socks.socketPath };
  }
  if (http.port === undefined || socks.port === undefined) throw new Error("the proxy did not report its ports");
  return { transport, httpPort: http.port, socksPort: socks.port };
}

/**
 * Where a run's socket directory goes: `$XDG_RUNTIME_DIR` (per user, 0700), else the user's cache,
 * else `/var/tmp` — the first that lies outside every writable root of the run (`/tmp`, `$TMPDIR` and
 * the workspace are writable roots, and a backend refuses sockets a sandboxed command could replace).
 * The directory made in it is private (mkdtemp, 0700).
 * @throws Error when every candidate lies in a writable root.
 */
export async function pickSocketRoot(writableRoots: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): Promise<string> {
  const runtime = env["XDG_RUNTIME_DIR"];
  const candidates = [
    ...(runtime && path.isAbsolute(runtime) ? [{ dir: runtime, make: false }] : []),
    { dir: runFilesDir(env), make: true },
    { dir: "/var/tmp", make: false },
  ];
  for (const { dir, make } of candidates) {
    if (make) await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 }).catch(() => undefined);
    let real: string;
    try {
      real = await fs.promises.realpath(dir);
      if (!(await fs.promises.stat(real)).isDirectory()) continue;
    } catch {
      continue;
    }
    if (!writableRoots.some((root) => real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep))) return real;
  }
  throw new Error(`every place for the proxy's sockets (${candidates.map((c) => c.dir).join(", ")}) lies inside a writable root`);
}
