import { setMaxListeners } from "node:events";
import { createPipeLauncher } from "@shellgate/pty";
import path from "node:path";
import { parseSandboxPolicy, policyRequiresPlatformSandbox, SandboxManager, sandboxToolCacheDir } from "@shellgate/sandbox";
import type { SandboxBackend, SandboxPolicy, SandboxPolicyInput } from "@shellgate/sandbox";
import { detectUserShell, resolveShell } from "@shellgate/shell-detect";
import type { Shell } from "@shellgate/shell-detect";
import { z } from "zod";
import { randomUuid } from "./ids.js";
import { ApprovalPolicySchema } from "./admission/approval-policy.js";
import type { ApprovalPolicy } from "./admission/approval-policy.js";
import { isKnownSafeCommand } from "./admission/assess.js";
import type { PolicyEvaluator } from "./admission/policy-types.js";
import { ApprovalCache } from "./approval/cache.js";
import type { ApprovalHandler } from "./approval/types.js";
import { buildCommandEnv, parseShellEnvironmentPolicy } from "./env/env-policy.js";
import type { ShellEnvironmentPolicy, ShellEnvironmentPolicyInput } from "./env/env-policy.js";
import { withUnifiedExecEnv } from "./env/unified-exec-env.js";
import { PolicyStore } from "./rules/policy-store.js";
import { CancelledError, OrchestratorConfigError } from "./errors.js";
import { EventBus } from "./events.js";
import type { EventListener } from "./events.js";
import { DEFAULT_SPILL_LIMIT_BYTES, OutputSpill } from "./output/spill.js";
import { budgetBytes } from "./output/truncate.js";
import { ExecPipeline } from "./pipeline/exec-pipeline.js";
import { UnifiedExecManager } from "./sessions/manager.js";
import type { SessionStoreOptions } from "./sessions/store.js";
import type { ToolDefinitionByFormat, ToolDefinitionFormat } from "./tools/definitions.js";
import { defaultSessionFactory, defaultSpawnPipe } from "./tools/handlers/defaults.js";
import type { PipeSpawner, SessionProcessFactory, ToolRuntime } from "./tools/handlers/runtime.js";
import { SparePool, trackedPipes, trackedSessions } from "./tools/handlers/spare-pool.js";
import { createShellCommandHandler, createShellHandler } from "./tools/handlers/shell.js";
import { createExecCommandHandler, createWriteStdinHandler } from "./tools/handlers/unified-exec.js";
import type { ToolCall } from "./tools/payload.js";
import { ToolRegistry } from "./tools/registry.js";
import type { OutputSink } from "./tools/registry.js";
import { errorResponse } from "./tools/response.js";
import type { ToolResponse } from "./tools/response.js";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "./tools/schemas.js";
import { captureWorkspaceIdentity, verifyWorkspaceIdentity } from "./workspace/identity.js";
import type { WorkspaceIdentity } from "./workspace/identity.js";
import { holdWritableRoots, verifyWritableRoots } from "./workspace/root-identity.js";
import type { WritableRootIdentity } from "./workspace/root-identity.js";
import { defaultProtectedPaths } from "./workspace/protected-paths.js";
import { NetworkGrantsSchema, normalizeGrants } from "./network/grants.js";
import { HostApprovals } from "./network/host-approval.js";
import { NetworkHostPolicy } from "./network/host-policy.js";
import { tunnelSplicerOnce, type NetworkTunnelSplicerSource } from "./network/run-network.js";
import type { SessionNetwork } from "./pipeline/types.js";
import type { ProxyResolver } from "@shellgate/network-proxy";

/** The default way a refused host is said to be granted: the rules-file line that would allow it. */
function defaultGrantHint(host: string): string {
  return `add network_rule(host=${JSON.stringify(host)}, protocol="https", decision="allow") to a rules file, or grant it in the orchestrator's \`network.allow\``;
}

const isFunction = (v: unknown) => typeof v === "function";
const absolute = (what: string) =>
  z.string().min(1, "must not be empty").refine((p) => path.isAbsolute(p), { message: `${what} must be an absolute path` });

// One schema per kind of field, shared by the fields of that kind (a schema is immutable, so a field
// cannot change it for the others): every zod instance is built at each start of a CLI process, ~20 µs
// apiece there, and this object alone needed ~100 of them written out field by field.
const nonEmpty = z.string().min(1);
const positiveInt = z.number().int().positive();
const defaultTrue = z.boolean().default(true);
const unchecked = z.custom<unknown>(() => true).optional();
const optionalFunction = z.custom<(...args: never[]) => unknown>(isFunction, { message: "must be a function" }).optional();
/** `unchecked` as the type of the field it validates (another package validates the value). */
const uncheckedAs = <T>() => unchecked as unknown as z.ZodOptional<z.ZodCustom<T, T>>;
/** `optionalFunction` as the function type of the field. */
const functionAs = <T>() => optionalFunction as unknown as z.ZodOptional<z.ZodCustom<T, T>>;

/** Options of an `Orchestrator`; validated with zod, errors name the field. */
export const OrchestratorOptionsSchema = z.strictObject({
  /** The session's working directory (absolute). Default: `process.cwd()`. */
  cwd: absolute("cwd").optional(),
  /** Rules files to load, lowest precedence first (only `Orchestrator.create` loads them). */
  rulesFiles: z.array(nonEmpty).default([]),
  /** Where `approved_with_amendment` appends its allow rule. */
  userRulesFile: nonEmpty.optional(),
  approvalPolicy: ApprovalPolicySchema.default("on-request"),
  /** Default: `{ mode: "workspace-write" }` (cwd and temp dirs writable, no network). Validated by @shellgate/sandbox. */
  sandboxPolicy: uncheckedAs<SandboxPolicyInput>(),
  /** Which host variables commands see; by default secret-looking names are dropped. */
  shellEnvironmentPolicy: uncheckedAs<ShellEnvironmentPolicyInput>(),
  /** Whether tools may run login shells (default true). When false, `login` defaults to false and `login: true` is refused. */
  allowLoginShell: defaultTrue,
  /** Asked whenever a command needs approval; without one such commands are rejected. */
  approvalHandler: functionAs<ApprovalHandler>(),
  /**
   * Whether the handler is offered "run for this session" (`approved_for_session`). Default true: an
   * orchestrator serves many calls. Set false where it runs one call and exits (a CLI running one
   * command), since such an approval would die with it.
   */
  sessionApprovals: defaultTrue,
  /**
   * Backends to register (preferred first). None is registered by default: the orchestrator names no
   * backend; the integrator picks them (a platform backend package's factory, or its own).
   */
  sandboxBackends: z.array(z.custom<SandboxBackend>((v) => typeof v === "object" && v !== null && "transform" in v)).optional(),
  /** A ready manager (overrides `sandboxBackends`). */
  sandboxManager: z.custom<SandboxManager>((v) => v instanceof SandboxManager, { message: "must be a SandboxManager" }).optional(),
  /**
   * Extra paths kept read-only inside writable roots (loaded rules files always are; `create` adds
   * `defaultProtectedPaths` too unless `defaultProtectedPaths: false`).
   */
  protectedPaths: z.array(absolute("protectedPaths entry")).optional(),
  /**
   * Whether `create` holds `defaultProtectedPaths({ cwd })` (shellgate's and Codex's configuration,
   * policy-check's cache, the workspace's `.shellgate`) read-only as well. Default true; turning it
   * off is for tests and integrators that keep their configuration elsewhere.
   */
  defaultProtectedPaths: defaultTrue,
  /**
   * Where full outputs of truncated results go; `false` disables spilling. Default: a private
   * directory per session in `defaultSpillDir()` (shellgate's cache directory). Either way it must be
   * this user's own and writable by nobody else, and it is held read-only in every sandbox.
   * `Orchestrator.create` makes a named directory before any command runs (a sandbox's placeholder
   * in its place would be removed when the run ends).
   */
  spillDir: z.union([z.literal(false), nonEmpty]).optional(),
  /**
   * Bytes of one output saved at most (default 64 MiB, `DEFAULT_SPILL_LIMIT_BYTES`): one call's
   * output, or one session's. Past it the file ends with a marker line and the model is told.
   */
  spillLimitBytes: positiveInt.default(DEFAULT_SPILL_LIMIT_BYTES),
  /** Token budget of one-shot outputs shown to the model. */
  outputTokenLimit: positiveInt.default(DEFAULT_MAX_OUTPUT_TOKENS),
  /** Ceiling of an empty `write_stdin` poll (default 300 000 ms; floored at 5 000). */
  maxEmptyPollMs: positiveInt.optional(),
  /** The environment commands derive theirs from (default `process.env`). */
  hostEnv: z.record(z.string(), z.string().optional()).optional(),
  /** Use this shell instead of the user's default (name or path). */
  shell: nonEmpty.optional(),
  /** Pre-loaded rules (otherwise `create` loads `rulesFiles`). */
  policies: z.custom<PolicyStore<PolicyEvaluator>>((v) => v instanceof PolicyStore, { message: "must be a PolicyStore" }).optional(),
  /** Starts session processes (default: @shellgate/pty). For tests and remote execution. */
  processFactory: functionAs<SessionProcessFactory>(),
  /** Starts one-shot processes (default: @shellgate/pty spawnPipe). */
  spawnPipe: functionAs<PipeSpawner>(),
  /**
   * Keep one sandbox of the session's policy set up ahead of the next one-shot command (where the
   * backend can start a run in two steps, `ExecEnv.deferred`): prepared in the background after a
   * sandboxed one-shot run, used by the next one whose sandbox would be the same, when nothing else
   * ran in between. Each command still gets a sandbox no command used before. Default false; ignored
   * with a custom `spawnPipe`.
   */
  prewarmSandboxes: z.boolean().default(false),
  /**
   * Hosts commands may (`allow`) or may never (`deny`) reach through the session's network proxy, on
   * top of the rules files' `network_rule`s. Whenever a host could be let through (an allow here, an
   * allowing or asking rule, a command's own rule grant), confined commands whose network is off get
   * proxy-routed network: the proxy is all they can reach. `networkAccess: true` still means the whole
   * network, without the proxy.
   */
  network: NetworkGrantsSchema.optional(),
  /** How a refused host is said to be granted (default: a `network_rule` line to add); the CLI names `--allow-domain`. */
  networkGrantHint: functionAs<(host: string) => string>(),
  /**
   * Where per-run proxy sockets are made. Default: the first of `$XDG_RUNTIME_DIR`,
   * `~/.cache/shellgate/run` and `/var/tmp` outside every writable root of the run; a directory
   * inside one is refused by the backend.
   */
  networkSocketDir: absolute("networkSocketDir").optional(),
  /** Name resolution of the proxy (default the system's); tests map names to loopback servers. */
  networkResolver: functionAs<ProxyResolver>(),
  /**
   * An executable implementing the proxy's `--splice` and `--splice-body` contracts (the Linux
   * sandbox helper does), to which bulk CONNECT and SOCKS5 tunnels and large plain-HTTP bodies are
   * handed (absolute path). The host runs it with this process's rights: pass only a file that is as
   * trusted as a sandbox backend's own binaries. Without it every byte is relayed in JS. A function
   * is asked when the session's first proxy starts, and its answer kept (a session that never routes
   * network never looks for one); undefined means no splicer, and a rejection or an answer that is not
   * an absolute path fails that proxy's start, as a proxy that cannot start does (the run says so),
   * and is asked again at the next.
   */
  networkTunnelSplicer: z
    .custom<string | NetworkTunnelSplicerSource>((v) => isFunction(v) || (typeof v === "string" && path.isAbsolute(v)), {
      message: "must be an absolute path or a function that returns one",
    })
    .optional(),
  /**
   * An upstream proxy for the connections the session proxy allows: the host environment's proxy
   * variables as `upstreamSettingsFromEnv` of @shellgate/network-proxy reads them (the CLI passes the
   * host's `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY`). Hosts are judged first: a refused
   * one never reaches it. A setting the proxy cannot use fails each proxy's start (the run then has no
   * network and says why, naming the variable). Default: none, every allowed connection goes direct.
   */
  networkUpstream: z
    .strictObject({
      http: z.strictObject({ url: z.string().min(1), variable: z.string().min(1) }).optional(),
      https: z.strictObject({ url: z.string().min(1), variable: z.string().min(1) }).optional(),
      all: z.strictObject({ url: z.string().min(1), variable: z.string().min(1) }).optional(),
      noProxy: z.strictObject({ value: z.string(), variable: z.string().min(1) }).optional(),
    })
    .optional(),
  /**
   * Where sandboxed runs keep their own npm, pip, Go, cargo and yarn caches
   * (`SANDBOX_TOOL_CACHES` of @shellgate/sandbox): a `workspace-write` run gets the directory as a
   * writable root and the tools' variables pointing into it, replacing the host's values, so no
   * cache the host's own tools use becomes writable. Default: `sandboxToolCacheDir(process.env)`
   * (`$XDG_CACHE_HOME/shellgate-sandbox`); `false`: none (the tools then find their host caches
   * read-only).
   */
  sandboxToolCaches: z.union([z.literal(false), absolute("sandboxToolCaches")]).optional(),
  /** Session store limits (defaults: 64 sessions, warning at 60, 8 protected) and id source. */
  sessionStore: z.custom<SessionStoreOptions>((v) => typeof v === "object" && v !== null).optional(),
});
/** Options as a caller writes them. */
export type OrchestratorOptions = z.input<typeof OrchestratorOptionsSchema>;

type ParsedOptions = z.output<typeof OrchestratorOptionsSchema>;

// Options `Orchestrator.create` has validated, for the constructor it calls next (synchronously, so
// nothing else can construct in between): parsing them a second time cost ~0.2 ms of every CLI start.
let validatedByCreate: ParsedOptions | undefined;

function parseOptions(options: unknown): ParsedOptions {
  const result = OrchestratorOptionsSchema.safeParse(options ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(options)";
    const message = issue?.code === "unrecognized_keys" ? `unknown option ${issue.keys.join(", ")}` : (issue?.message ?? "invalid");
    throw new OrchestratorConfigError(field, message, { cause: result.error });
  }
  return result.data;
}

function wrapConfig<T>(field: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof OrchestratorConfigError) throw error;
    const detail = error as { field?: unknown; message?: unknown };
    const sub = typeof detail.field === "string" ? `${field}.${detail.field}` : field;
    throw new OrchestratorConfigError(sub, String(detail.message ?? error), { cause: error });
  }
}

/**
 * The embeddable product: hand it a model's tool call, get back what to show the model. Every
 * safety decision (admission, approval, sandbox, retry) goes through the pipeline; processes run
 * through @shellgate/pty; interactive sessions live until they exit, are pruned, or `close()`.
 */
export class Orchestrator {
  readonly registry: ToolRegistry;
  readonly events: EventBus;
  readonly sessions: UnifiedExecManager;
  readonly pipeline: ExecPipeline;
  readonly policies: PolicyStore<PolicyEvaluator>;
  readonly sandboxManager: SandboxManager;
  readonly approvalCache: ApprovalCache;
  readonly cwd: string;
  /** The workspace's identity when the session started; every call re-checks it. */
  readonly workspace: WorkspaceIdentity;
  /**
   * The writable roots (and the commands' `$TMPDIR` when it is one) as they were when the session
   * started; every call re-checks them. `sandboxPolicy` names them by these real paths.
   */
  readonly writableRoots: readonly WritableRootIdentity[];
  readonly approvalPolicy: ApprovalPolicy;
  readonly sandboxPolicy: SandboxPolicy;
  readonly shellEnvironmentPolicy: ShellEnvironmentPolicy;
  /** How the session treats hosts (rules files' `network_rule`s and the `network` grants); see `judge`. */
  readonly network: NetworkHostPolicy;
  readonly #spill: OutputSpill | undefined;
  #shell: Shell | undefined;
  readonly #closing = new AbortController();
  readonly #spares: SparePool | undefined;

  /**
   * Build synchronously; records the workspace's identity (real path, device, inode). Rules files need `Orchestrator.create` (or a ready `policies` store);
   * without `sandboxManager`/`sandboxBackends` no platform sandbox is registered, and a call whose
   * policy needs one fails with `SandboxUnavailableError` (`create` refuses such a setup up front).
   * The constructor adds no `defaultProtectedPaths`; `create` does.
   * @throws OrchestratorConfigError naming the bad option (`cwd` when it is not an existing directory).
   */
  constructor(options: OrchestratorOptions = {}) {
    const o = validatedByCreate ?? parseOptions(options);
    validatedByCreate = undefined;
    // Every in-flight call listens on the closing signal (waits, approvals, processes); dozens of
    // concurrent sessions are normal, not a leak.
    setMaxListeners(0, this.#closing.signal);
    if (o.rulesFiles.length > 0 && !o.policies) {
      throw new OrchestratorConfigError("rulesFiles", "rules files are loaded by Orchestrator.create(); use it, or pass `policies`");
    }
    this.cwd = o.cwd ?? process.cwd();
    this.workspace = captureWorkspaceIdentity(this.cwd);
    this.approvalPolicy = o.approvalPolicy;
    const sandboxPolicy = wrapConfig("sandboxPolicy", () => parseSandboxPolicy(o.sandboxPolicy ?? { mode: "workspace-write" }));
    this.shellEnvironmentPolicy = parseShellEnvironmentPolicy(o.shellEnvironmentPolicy ?? {}, "shellEnvironmentPolicy");
    const baseEnv = buildCommandEnv(this.shellEnvironmentPolicy, o.hostEnv ?? process.env);
    // Resolved once: the sandbox gets the real paths, and every call checks they are still the same directories.
    const held = holdWritableRoots(sandboxPolicy, baseEnv);
    this.sandboxPolicy = held.policy;
    this.writableRoots = Object.freeze(held.roots);
    this.policies = o.policies ?? new PolicyStore(null, []);
    this.sandboxManager = o.sandboxManager ?? new SandboxManager();
    if (!o.sandboxManager) {
      for (const backend of o.sandboxBackends ?? []) wrapConfig("sandboxBackends", () => this.sandboxManager.register(backend));
    }
    this.events = new EventBus();
    this.approvalCache = new ApprovalCache();
    const grants = wrapConfig("network", () => normalizeGrants(o.network ?? { allow: [], deny: [] }, "the orchestrator's network grants"));
    this.network = new NetworkHostPolicy(() => this.policies.policy ?? {}, grants);
    const sessionNetwork: SessionNetwork = {
      hostPolicy: this.network,
      approvals: new HostApprovals({
        approvalPolicy: this.approvalPolicy,
        sessionApprovals: o.sessionApprovals,
        events: this.events,
        ...(o.approvalHandler ? { approvalHandler: o.approvalHandler } : {}),
      }),
      grantHint: o.networkGrantHint ?? defaultGrantHint,
      ...(o.networkSocketDir ? { socketRoot: o.networkSocketDir } : {}),
      ...(o.networkResolver ? { resolver: o.networkResolver } : {}),
      ...(o.networkUpstream ? { upstream: o.networkUpstream } : {}),
      ...(o.networkTunnelSplicer ? { tunnelSplicer: tunnelSplicerOnce(o.networkTunnelSplicer) } : {}),
    };
    this.#spill =
      o.spillDir === false
        ? undefined
        : new OutputSpill({ limitBytes: o.spillLimitBytes, ...(o.spillDir !== undefined ? { dir: o.spillDir } : {}) });
    this.sessions = new UnifiedExecManager({
      events: this.events,
      ...(this.#spill ? { spill: this.#spill, spillMemoryBytes: budgetBytes({ kind: "tokens", limit: o.outputTokenLimit }) } : {}),
      ...(o.sessionStore ? { store: o.sessionStore } : {}),
      ...(o.maxEmptyPollMs !== undefined ? { maxEmptyPollMs: o.maxEmptyPollMs } : {}),
    });
    this.pipeline = new ExecPipeline({
      policies: this.policies,
      approvalPolicy: this.approvalPolicy,
      sandboxPolicy: this.sandboxPolicy,
      sandboxManager: this.sandboxManager,
      network: sessionNetwork,
      approvalCache: this.approvalCache,
      events: this.events,
      sandboxPolicyCwd: this.cwd,
      ...(o.sandboxToolCaches === false ? {} : { toolCacheDir: o.sandboxToolCaches ?? sandboxToolCacheDir(process.env) }),
      verifyWorkspace: () => this.#verifyIdentities(),
      ...(o.approvalHandler ? { approvalHandler: o.approvalHandler } : {}),
      sessionApprovals: o.sessionApprovals,
      // Where the host saves outputs is held read-only too: a command may read a saved output, but
      // never rename that directory or put a link in its place.
      ...(o.protectedPaths || this.#spill ? { protectedPaths: [...(o.protectedPaths ?? []), ...(this.#spill ? [this.#spill.location] : [])] } : {}),
      ...(o.userRulesFile ? { userRulesFile: path.resolve(this.cwd, o.userRulesFile) } : {}),
    });

    // Spares are spawned by a launcher process, not by this one: see `createPipeLauncher`.
    const spares = o.prewarmSandboxes && !o.spawnPipe ? new SparePool(createPipeLauncher()) : undefined;
    this.#spares = spares;
    const sessionEnv = withUnifiedExecEnv(baseEnv);
    const requestedShell = o.shell;
    const runtime: ToolRuntime = {
      cwd: this.cwd,
      userShell: () => (this.#shell ??= requestedShell ? resolveShell(requestedShell) : detectUserShell()),
      resolveShell: (requested) => resolveShell(requested),
      commandEnv: (kind) => ({ ...(kind === "session" ? sessionEnv : baseEnv) }),
      pipeline: this.pipeline,
      events: this.events,
      spill: this.#spill,
      oneShotOutputPolicy: { kind: "tokens", limit: o.outputTokenLimit },
      allowLoginShell: o.allowLoginShell,
      isKnownSafe: (argv) => isKnownSafeCommand(argv),
      spawnPipe: spares ? trackedPipes(spares, defaultSpawnPipe) : (o.spawnPipe ?? defaultSpawnPipe),
      spawnSession: spares ? trackedSessions(spares, o.processFactory ?? defaultSessionFactory) : (o.processFactory ?? defaultSessionFactory),
      ...(spares ? { spares } : {}),
      sessions: this.sessions,
    };
    const shell = createShellHandler(runtime);
    this.registry = new ToolRegistry()
      .register("shell", shell)
      .alias("container.exec", "shell")
      .register("shell_command", createShellCommandHandler(runtime))
      .register("exec_command", createExecCommandHandler(runtime))
      .register("write_stdin", createWriteStdinHandler(runtime));
  }

  /**
   * Build with everything loaded: the rules files (through execpolicy), the backends given in
   * `sandboxBackends` (or a ready `sandboxManager`; none is registered by default), and
   * `defaultProtectedPaths` on top of `protectedPaths`. When the sandbox policy needs a platform
   * sandbox and no registered backend can provide one here, it rejects instead of building an
   * orchestrator whose every call would fail (it never runs commands unsandboxed for lack of a backend).
   * @throws OrchestratorConfigError for bad options; execpolicy's diagnostics for bad rules files;
   * @shellgate/sandbox's `SandboxUnavailableError` (with every registered backend's reason) when no
   * backend is available for the policy.
   */
  static async create(options: OrchestratorOptions = {}): Promise<Orchestrator> {
    const o = parseOptions(options);
    const cwd = o.cwd ?? process.cwd();
    const protectedPaths = [...(o.protectedPaths ?? [])];
    if (o.defaultProtectedPaths) {
      // Both environments count: the host's decides where this process reads configuration from,
      // the commands' (`hostEnv`) where a shellgate or Codex started inside them would.
      protectedPaths.push(...defaultProtectedPaths({ cwd, env: process.env }));
      if (o.hostEnv) protectedPaths.push(...defaultProtectedPaths({ cwd, env: o.hostEnv }));
    }
    const policies = o.policies ?? (await PolicyStore.load(o.rulesFiles.map((f) => path.resolve(cwd, f))));
    // The defaults come from environment variables (HOME, XDG_*, CODEX_HOME), which may be relative:
    // the list is checked by the options schema's own `protectedPaths` field.
    const unique = parseOptions({ protectedPaths: [...new Set(protectedPaths)] }).protectedPaths;
    // Taken (and cleared) by the constructor's first statement, before anything there can throw.
    validatedByCreate = { ...o, rulesFiles: [], policies, protectedPaths: unique };
    const orchestrator = new Orchestrator(options);
    await orchestrator.#spill?.prepare();
    if (policyRequiresPlatformSandbox(orchestrator.sandboxPolicy)) {
      try {
        // Throws SandboxUnavailableError naming every backend's reason (or that none was registered).
        await orchestrator.sandboxManager.select(orchestrator.sandboxPolicy);
      } catch (error) {
        await orchestrator.close();
        throw error;
      }
    }
    return orchestrator;
  }

  /**
   * Run one tool call from a model. Never throws for the model's mistakes or refusals: the response
   * carries the text for the model and, on failure, the typed error (`error.code`). Every call first
   * checks that the workspace is still the directory the session started in (`ORCH_WORKSPACE_CHANGED`
   * otherwise; nothing runs) and that every writable root is too (`ORCH_WRITABLE_ROOT_CHANGED`), and
   * the pipeline checks again right before each sandbox is prepared.
   * `onOutput` receives every chunk of a one-shot command's output, uncapped (output delta events stop
   * at `MAX_OUTPUT_DELTAS_PER_CALL`).
   */
  async handleToolCall(call: ToolCall, options: { signal?: AbortSignal; onOutput?: OutputSink } = {}): Promise<ToolResponse> {
    const envelope = (typeof call === "object" && call !== null ? call : {}) as Partial<ToolCall>;
    const callId = typeof envelope.callId === "string" && envelope.callId !== "" ? envelope.callId : `call_${randomUuid()}`;
    const tool = typeof envelope.name === "string" ? envelope.name : "(unknown)";
    if (this.#closing.signal.aborted) return errorResponse(callId, tool, new CancelledError("the orchestrator is closed"));
    // close() cancels in-flight calls too: pending approvals, running one-shot processes, session waits.
    const signal = options.signal ? AbortSignal.any([options.signal, this.#closing.signal]) : this.#closing.signal;
    try {
      await this.#verifyIdentities();
      const output = await this.registry.dispatch(call, { callId, signal, ...(options.onOutput ? { onOutput: options.onOutput } : {}) });
      return { callId, tool, ...output };
    } catch (error) {
      return errorResponse(callId, tool, error);
    }
  }

  /** The workspace, then every held writable root: still the directories the session started with. */
  async #verifyIdentities(): Promise<void> {
    await verifyWorkspaceIdentity(this.workspace);
    verifyWritableRoots(this.writableRoots);
  }

  /** Whether a call may change the machine (known-safe read-only commands do not). */
  isMutating(call: ToolCall): Promise<boolean> {
    return this.registry.isMutating(call);
  }

  /** Definitions of the advertised tools (or the named ones) for OpenAI, Anthropic or MCP. */
  toolDefinitions<F extends ToolDefinitionFormat>(format: F, names?: readonly string[]): Array<ToolDefinitionByFormat[F]> {
    return this.registry.definitions(format, names);
  }

  /** Subscribe to lifecycle events and decision traces; returns the unsubscribe function. */
  on(listener: EventListener): () => void {
    return this.events.on(listener);
  }

  /** Kill every session and the pre-warmed sandbox, and remove the spill directory the orchestrator created. Idempotent. */
  async close(): Promise<void> {
    this.#closing.abort();
    await this.sessions.terminateAll();
    await this.#spares?.close();
    await this.#spill?.dispose();
  }
}
