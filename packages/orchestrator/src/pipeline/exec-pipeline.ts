import { applyToolCaches, CommandNotFoundError, DirectoryListingCache, type ExecEnv, type SandboxPolicy, type TransformOptions } from "@shellgate/sandbox";
import { normalizeNetworkHost } from "@shellgate/execpolicy";
import { assessCommand, isKnownSafeCommand, type Admission } from "../admission/assess.js";
import { fileSystemKind, hasDeniedReads } from "../admission/requirement.js";
import {
  findSandboxWrittenCode,
  programControlled,
  sandboxKeptReason,
  sandboxWritable,
  withSandboxKept,
  type SandboxWrittenCode,
} from "../admission/sandbox-written-code.js";
import { RepositoryWatch } from "./repository-watch.js";
import { AbortedError, ApprovalUnavailableError, CancelledError, commandNotFound, errorMessage, ForbiddenError, OrchestratorError, RejectedError, SandboxPrepareFailedError, SpawnFailedError } from "../errors.js";
import type { DecisionTrace } from "../events.js";
import { askApproval, checkCancelled, forbiddingRule } from "./approval-step.js";
import { explainAttempt, judgeProbe, releaseSandbox, retryAllowed, RETRY_REASON, verdictWithDenial } from "./decisions.js";
import type { HostGrant } from "../network/grants.js";
import { commandRuleGrant } from "../network/rule-grant.js";
import { firstAttemptOverride, firstAttemptPolicy, ruleGrantSandboxPolicy, UNSANDBOXED_POLICY } from "./run-sandbox-policy.js";
import { routeNetwork, withProxyCleanup } from "./network-step.js";
import type { ExecRequest, LaunchHooks, LaunchResult, Launcher, NetworkReport, PipelineContext, PipelineOutcome, RunRepositoriesReport } from "./types.js";

/**
 * The safety half of a tool call: admission → approval (session cache or the integrator's handler) →
 * an attempt under the sandbox the manager selects (or outside it when a rule or an approved escalation
 * allows) → on a likely sandbox denial, a fresh approval and at most one unsandboxed retry. Emits
 * `approval.*` events and exactly one `trace` event per call; throws the orchestrator's typed errors.
 */
export class ExecPipeline {
  readonly #ctx: PipelineContext;
  /** Directory listings kept between the runs of this session, for the search for new repositories. */
  readonly #listings = new DirectoryListingCache();

  constructor(ctx: PipelineContext) {
    this.#ctx = ctx;
  }

  /** Admit, approve and run `request` with `launch`; see the class comment. */
  async run<T>(request: ExecRequest, launch: Launcher<T>, hooks: LaunchHooks = {}): Promise<PipelineOutcome<T>> {
    const trace: DecisionTrace = {
      callId: request.callId,
      tool: request.tool,
      approvalRequirement: "skip",
      reviewed: false,
      sandboxOverride: "none",
      initialSandbox: "none",
      attempts: 0,
      outcome: "running",
    };
    let emitted = false;
    const finish = (outcome: DecisionTrace["outcome"]): DecisionTrace => {
      trace.outcome = outcome;
      if (!emitted) {
        emitted = true;
        this.#ctx.events.emit({ type: "trace", trace: { ...trace } });
      }
      return trace;
    };
    try {
      return await this.#run(request, launch, trace, finish, hooks);
    } catch (error) {
      finish(outcomeOf(error, request.signal));
      if (request.signal?.aborted && !(error instanceof OrchestratorError)) throw new CancelledError();
      throw error;
    }
  }

  async #run<T>(
    request: ExecRequest,
    launch: Launcher<T>,
    trace: DecisionTrace,
    finish: (outcome: DecisionTrace["outcome"]) => DecisionTrace,
    hooks: LaunchHooks,
  ): Promise<PipelineOutcome<T>> {
    const ctx = this.#ctx;
    checkCancelled(request.signal);
    // What a sandboxed command of this session could write, computed once per call and only when needed.
    let writable: Promise<(p: string) => boolean> | undefined;
    const sandboxWritableNow = () => (writable ??= this.#writable(request));
    const assessed = await assessCommand(
      {
        argv: request.argv,
        policy: ctx.policies.policy,
        approvalPolicy: ctx.approvalPolicy,
        sandboxPolicy: ctx.sandboxPolicy,
        permissions: request.permissions,
        ...(request.prefixRule ? { prefixRule: request.prefixRule, programWritable: programControlled(await sandboxWritableNow()) } : {}),
      },
      ctx.admissionDeps,
    );
    // A rule that names its own sandbox keeps the command in that one, with the rule's hosts.
    const grant = commandRuleGrant(assessed);
    const rulePolicy = grant ? ruleGrantSandboxPolicy(grant, ctx.sandboxPolicy) : undefined;
    const found = (): Promise<SandboxWrittenCode[]> => this.#sandboxWritten(request, assessed, sandboxWritableNow);
    const admission = await this.#guard(request, assessed, rulePolicy === undefined, found, sandboxWritableNow);
    if (admission.sandboxWritten?.kept) trace.sandboxKept = [...new Set(admission.sandboxWritten.found.map((f) => f.kind))];
    const sandboxKept = admission.sandboxWritten?.kept ? { reason: sandboxKeptReason(request.argv, admission.sandboxWritten.found), found: admission.sandboxWritten.found } : undefined;
    const requirement = admission.requirement;
    trace.approvalRequirement = requirement.kind;

    // 1. Approval.
    if (requirement.kind === "forbidden") throw new ForbiddenError(requirement.reason, forbiddingRule(admission));
    let approvedInCall = false;
    if (requirement.kind === "needs_approval") {
      const key = { argv: request.argv, cwd: request.cwd, permissions: request.permissions, extra: request.approvalKeyExtra };
      trace.reviewed = true;
      if (ctx.approvalCache.isApproved(key)) {
        trace.reviewDecision = "cached";
      } else {
        // Without a handler, askApproval throws ApprovalUnavailableError with the reason it would have shown.
        const granted = await askApproval(this.#ctx, request, admission, {
          ...(requirement.reason ? { reason: requirement.reason } : {}),
          ...(requirement.proposedAmendment ? { proposedAmendment: requirement.proposedAmendment } : {}),
          retryAfterDenial: false,
        });
        trace.reviewDecision = granted.decision;
        if (granted.decision === "approved_for_session") ctx.approvalCache.approveForSession(key);
      }
      approvedInCall = true;
    }

    // 2. First attempt, under the selected sandbox unless a rule or an approved escalation lifts it.
    const override = firstAttemptOverride({
      requirement,
      permissions: request.permissions,
      approvedInCall,
      sandboxPolicy: ctx.sandboxPolicy,
      ruleSandbox: rulePolicy !== undefined,
    });
    trace.sandboxOverride = override;
    const firstPolicy = firstAttemptPolicy(override, ctx.sandboxPolicy, rulePolicy);
    const first = await this.#attempt(request, firstPolicy, launch, override === "rule_sandbox" ? (grant?.hosts ?? []) : [], hooks);
    trace.initialSandbox = first.env.sandboxType;
    trace.attempts = 1;
    // The first attempt's explained denial; reported only while that attempt's result is the answer.
    const denial = first.result.probe
      ? await explainAttempt(first.policy, request, first.env, first.result.probe, first.options, canEscalate(ctx), hostAllowedIn(ctx, override === "rule_sandbox" ? (grant?.hosts ?? []) : []))
      : undefined;
    const done = (result: LaunchResult<T>, env: ExecEnv, retried: boolean, sandboxDenied: boolean): PipelineOutcome<T> => ({
      value: result.value,
      sandboxType: env.sandboxType,
      retried,
      sandboxDenied,
      ...(!retried && denial ? { sandboxDenial: denial } : {}),
      ...(!retried && first.network ? { network: first.network } : {}),
      ...(sandboxKept ? { sandboxKept } : {}),
      ...(!retried && first.repositories ? { runRepositories: first.repositories } : {}),
      admission,
      trace,
    });

    if (!first.result.probe) {
      finish("running");
      return done(first.result, first.env, false, false);
    }
    const verdict = verdictWithDenial(judgeProbe(first.result.probe, first.env), denial);
    if (verdict !== "sandbox_denied") {
      finish(verdict);
      return done(first.result, first.env, false, false);
    }

    // 3. Likely sandbox denial: a fresh approval, then one unsandboxed retry — only where allowed.
    if (!retryAllowed(ctx.approvalPolicy, ctx.sandboxPolicy)) {
      finish("sandbox_denied");
      return done(first.result, first.env, false, true);
    }
    // The policy would ask, but no one can: the sandboxed result stands, and says a person is needed.
    if (!ctx.approvalHandler) {
      finish("sandbox_denied");
      return { ...done(first.result, first.env, false, true), sandboxRetry: "no_approver" };
    }
    trace.reviewed = true;
    const proposed = requirement.proposedAmendment;
    // The person decides on running it outside the sandbox: with what it would run that a sandboxed
    // command (this one included) could have written, looked up now.
    const writtenNow = await found();
    let granted;
    try {
      granted = await askApproval(this.#ctx, request, admission, {
        reason: RETRY_REASON,
        ...(proposed ? { proposedAmendment: proposed } : {}),
        retryAfterDenial: true,
        exitCode: first.result.probe.exitCode,
        ...(denial ? { denial } : {}),
        ...(writtenNow.length > 0 ? { sandboxWritten: writtenNow } : {}),
      });
    } catch (error) {
      // A denied retry leaves the sandboxed attempt's result (its exit code and output) as the answer.
      if (!(error instanceof RejectedError) || error instanceof ApprovalUnavailableError) throw error;
      trace.reviewDecision = "denied";
      finish("sandbox_denied");
      return { ...done(first.result, first.env, false, true), sandboxRetry: "declined" };
    }
    trace.reviewDecision = granted.decision;
    const second = await this.#attempt(request, UNSANDBOXED_POLICY, launch, []);
    trace.attempts = 2;
    if (!second.result.probe) {
      finish("running");
      return done(second.result, second.env, true, false);
    }
    finish(judgeProbe(second.result.probe, second.env));
    return done(second.result, second.env, true, false);
  }

  /**
   * Admission, checked against what a sandboxed command could have written, wherever the command
   * could leave the sandbox: allow rules' bypass is withheld (see `withSandboxKept`) and an escalation
   * request carries the findings to its approval reason; an "always allow" for a program the sandbox
   * can write is not offered (it would never be honoured).
   */
  async #guard(
    request: ExecRequest,
    assessed: Admission,
    noRuleSandbox: boolean,
    found: () => Promise<SandboxWrittenCode[]>,
    writable: () => Promise<(p: string) => boolean>,
  ): Promise<Admission> {
    const policy = this.#ctx.sandboxPolicy;
    const restricted = fileSystemKind(policy) === "restricted";
    let requirement = assessed.requirement;
    if (requirement.kind === "forbidden") return assessed;
    const candidate = requirement.proposedAmendment?.[0];
    if (restricted && candidate?.startsWith("/") && programControlled(await writable())(candidate)) {
      const { proposedAmendment: _withheld, ...rest } = requirement;
      requirement = rest;
    }
    const bypassing = requirement.kind === "skip" && requirement.bypassSandbox;
    const liftable = restricted && !hasDeniedReads(policy) && noRuleSandbox;
    if (!liftable || !(bypassing || request.permissions === "require_escalated")) return { ...assessed, requirement };
    const written = await found();
    if (written.length === 0) return { ...assessed, requirement };
    return {
      ...assessed,
      requirement: bypassing ? withSandboxKept(requirement, written, this.#ctx.approvalPolicy, request.argv) : requirement,
      sandboxWritten: { found: written, kept: bypassing },
    };
  }

  /** The transform options' protected paths for this call (the session's, the loaded rules files, the user rules file). */
  #protectedPaths(): string[] {
    const ctx = this.#ctx;
    return [...new Set([...(ctx.protectedPaths ?? []), ...ctx.policies.files, ...(ctx.userRulesFile ? [ctx.userRulesFile] : [])])];
  }

  /**
   * Whether a sandboxed command of this session could write a path: the writable roots the backend
   * computes for this call's sandbox (same cwd, environment and protected paths). A layout the
   * sandbox would refuse is a failed preparation here too.
   */
  async #writable(request: ExecRequest): Promise<(p: string) => boolean> {
    try {
      return await sandboxWritable(this.#ctx.sandboxPolicy, {
        cwd: this.#ctx.sandboxPolicyCwd ?? request.cwd,
        env: request.env,
        protectedPaths: this.#protectedPaths(),
      });
    } catch (error) {
      throw new SandboxPrepareFailedError(`cannot tell what a sandboxed command could write: ${errorMessage(error)}`, { cause: error });
    }
  }

  /** What running `request` outside the sandbox would execute that a sandboxed command could have written. */
  async #sandboxWritten(request: ExecRequest, admission: Admission, writable: () => Promise<(p: string) => boolean>): Promise<SandboxWrittenCode[]> {
    if (fileSystemKind(this.#ctx.sandboxPolicy) !== "restricted") return [];
    return findSandboxWrittenCode({
      argv: request.argv,
      segments: admission.segments,
      script: admission.split === "plain" || admission.split === "heredoc",
      cwd: request.cwd,
      env: request.env,
      writable: await writable(),
    });
  }

  /**
   * Prepare the command for `policy` and launch it; cleans up the sandbox files once a probe says it
   * finished. A confined run whose network is off gets the session proxy when any host could be
   * granted (`commandGrants`: the hosts its own rule names); the proxy stops with the sandbox.
   */
  async #attempt<T>(
    request: ExecRequest,
    policy: SandboxPolicy,
    launch: Launcher<T>,
    commandGrants: readonly HostGrant[],
    hooks: LaunchHooks = {},
  ): Promise<{ env: ExecEnv; result: LaunchResult<T>; options: TransformOptions; policy: SandboxPolicy; network?: NetworkReport; repositories?: RunRepositoriesReport }> {
    checkCancelled(request.signal);
    const ctx = this.#ctx;
    // Again here, not only at the start of the call: an approval can wait for minutes, and the retry
    // after a denial comes after a sandboxed command had its turn at renaming things.
    await ctx.verifyWorkspace?.();
    const routed = await routeNetwork(ctx, request, policy, commandGrants);
    const options: TransformOptions = {
      sandboxPolicyCwd: ctx.sandboxPolicyCwd ?? request.cwd,
      protectedPaths: this.#protectedPaths(),
      ...(request.dedicatedTerminal ? { dedicatedTerminal: true } : {}),
      ...(routed.run ? { networkProxy: routed.run.route } : {}),
    };
    // A sandboxed run with writable roots gets its own tool caches; the unsandboxed retry keeps the host's.
    const run =
      policy.mode === "workspace-write"
        ? applyToolCaches({ policy, env: request.env, cwd: options.sandboxPolicyCwd, dir: ctx.toolCacheDir })
        : { policy, env: request.env };
    const spec = { argv: request.argv, cwd: request.cwd, env: run.env };
    let env: ExecEnv;
    try {
      // A sandbox set up ahead of time for exactly this attempt spares it the preparation (not for a
      // proxy-routed run, whose proxy is this attempt's own).
      const claimed = routed.run ? undefined : await hooks.claimSandbox?.(spec, run.policy, options);
      env = claimed ?? (await ctx.sandboxManager.prepare(spec, run.policy, options));
      if (routed.run) env = withProxyCleanup(env, routed.run);
    } catch (error) {
      await routed.run?.stop().catch(() => undefined);
      // A missing program is found by the backend's pre-spawn check; it is not a sandbox failure.
      if (error instanceof CommandNotFoundError) throw commandNotFound(error);
      throw new SandboxPrepareFailedError(`cannot prepare the sandbox: ${errorMessage(error)}`, { cause: error });
    }
    // A sandboxed run that could write may leave a repository behind whose hooks and config the
    // person's next git command there would run: noted before the launch, looked for after it. A
    // known-safe command (read-only by the heuristic that lets it run unasked) cannot make one, and
    // is spared the search, which reads every directory of the workspace.
    const watch = policy.mode === "workspace-write" && !(await isKnownSafeCommand(request.argv))
      ? RepositoryWatch.start(policy, env, options, request, this.#listings)
      : undefined;
    let result: LaunchResult<T>;
    try {
      result = await launch(env, routed.run ? {} : { prepareAgain: () => ctx.sandboxManager.prepare(spec, run.policy, options) });
    } catch (error) {
      await releaseSandbox(env);
      if (error instanceof OrchestratorError) throw error;
      if (request.signal?.aborted) throw new CancelledError();
      if (isProgramMissing(error, request.argv[0])) throw commandNotFound(new CommandNotFoundError(request.argv[0] ?? "", { cause: error }));
      throw new SpawnFailedError(`cannot start the command: ${errorMessage(error)}`, { cause: error });
    }
    if (result.probe) await releaseSandbox(env);
    const repositories = result.probe ? await watch?.finish() : undefined;
    if (repositories) ctx.events.emit({ type: "exec.repositories", callId: request.callId, ...repositories });
    return { env, result, options, policy: run.policy, ...(routed.report ? { network: routed.report } : {}), ...(repositories ? { repositories } : {}) };
  }
}

/**
 * Whether an unsandboxed launch failed because the program is missing: @shellgate/pty's pre-spawn
 * check reports it as a `SpawnError` with errno ENOENT for that program (a missing cwd is ENOENT too,
 * but names the working directory).
 */
function isProgramMissing(error: unknown, program: string | undefined): boolean {
  const e = error as { code?: unknown; errno?: unknown; program?: unknown; message?: unknown } | null;
  return (
    e !== null && typeof e === "object" && e.code === "PTY_SPAWN_FAILED" && e.errno === "ENOENT" && e.program === program &&
    typeof e.message === "string" && !e.message.includes("working directory")
  );
}

/** Whether a person could approve running a command outside the sandbox in this session. */
function canEscalate(ctx: PipelineContext): boolean {
  return ctx.approvalHandler !== undefined && ctx.approvalPolicy !== "never";
}

function outcomeOf(error: unknown, signal: AbortSignal | undefined): DecisionTrace["outcome"] {
  if (error instanceof ForbiddenError) return "forbidden";
  if (error instanceof RejectedError) return "rejected";
  if (error instanceof AbortedError) return "aborted";
  if (error instanceof CancelledError || signal?.aborted) return "cancelled";
  if (error instanceof SpawnFailedError || error instanceof SandboxPrepareFailedError) return "spawn_failed";
  return "error";
}

/** Whether the session (with the command's own rule grants) allows a host a denial names: its grant is then not suggested again. */
function hostAllowedIn(ctx: PipelineContext, commandGrants: readonly HostGrant[]): ((host: string) => boolean) | undefined {
  const policy = ctx.network?.hostPolicy;
  if (!policy) return undefined;
  return (host) => {
    let name: string;
    try {
      name = normalizeNetworkHost(host.replace(/:\d+$/u, ""));
    } catch {
      return false;
    }
    return policy.decide(name, commandGrants).decision === "allow";
  };
}
