import { CommandNotFoundError } from "@shellgate/sandbox";
import { describe, expect, it } from "vitest";
import {
  AbortedError,
  ApprovalUnavailableError,
  CancelledError,
  ForbiddenError,
  OrchestratorConfigError,
  RejectedError,
  SpawnFailedError,
} from "../../src/errors.js";
import { TRACE_OUTCOMES, type DecisionTrace } from "../../src/events.js";
import { ExecPipeline } from "../support/internals.js";
import { makeContext, probe, request, scriptedHandler, scriptedLauncher } from "../support/pipeline-fakes.js";

const DENIED = "touch: cannot touch 'x': Read-only file system";

function traces(events: ReturnType<typeof makeContext>["events"]): DecisionTrace[] {
  return events.flatMap((e) => (e.type === "trace" ? [e.trace] : []));
}

describe("approval is not sandboxing: an approved command still runs in the sandbox", () => {
  it("NeedsApproval + approved + use_default keeps the sandbox on the first attempt", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx, manager } = makeContext({ approvalHandler: handler });
    const { launch, envs } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(requests).toHaveLength(1);
    expect(manager.calls[0]?.policy.mode).toBe("read-only");
    expect(envs[0]?.sandboxType).toBe("linux");
    expect(out.trace).toMatchObject({ approvalRequirement: "needs_approval", reviewed: true, reviewDecision: "approved", sandboxOverride: "none", initialSandbox: "linux", attempts: 1, outcome: "success" });
  });

  it("an explicit allow rule for every segment bypasses the sandbox even with use_default", async () => {
    const { ctx, manager } = makeContext({ rules: [{ prefix: ["make"], decision: "allow" }, { prefix: ["cat"], decision: "allow" }] });
    const { launch, envs } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(request({ argv: ["bash", "-lc", "make all && cat out"] }), launch);
    expect(manager.calls[0]?.policy.mode).toBe("danger-full-access");
    expect(envs[0]?.sandboxType).toBe("none");
    expect(out.trace).toMatchObject({ approvalRequirement: "skip", reviewed: false, sandboxOverride: "bypass_by_rule", initialSandbox: "none" });
  });

  it("an allow rule for only some segments keeps the sandbox", async () => {
    const { ctx, manager } = makeContext({ approvalPolicy: "on-request", rules: [{ prefix: ["make"], decision: "allow" }] });
    const { launch } = scriptedLauncher([probe(0)]);
    await new ExecPipeline(ctx).run(request({ argv: ["bash", "-lc", "make all && cat out"] }), launch);
    expect(manager.calls[0]?.policy.mode).toBe("read-only");
  });

  it("denied-read paths keep the sandbox for an explicit allow", async () => {
    const { ctx, manager } = makeContext({
      sandboxPolicy: { mode: "read-only", deniedReadPaths: ["/home/me/.ssh"] },
      rules: [{ prefix: ["make"], decision: "allow" }],
    });
    const { launch, envs } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(manager.calls[0]?.policy).toEqual({ mode: "read-only", deniedReadPaths: ["/home/me/.ssh"] });
    expect(envs[0]?.sandboxType).toBe("linux");
    expect(out.trace.sandboxOverride).toBe("none");
  });

  it("denied-read paths keep the sandbox for an approved escalation", async () => {
    const { handler } = scriptedHandler(["approved"]);
    const { ctx, manager } = makeContext({
      approvalPolicy: "on-request",
      approvalHandler: handler,
      sandboxPolicy: { mode: "read-only", deniedReadPaths: ["/home/me/.ssh"] },
    });
    const { launch } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(request({ permissions: "require_escalated" }), launch);
    expect(manager.calls[0]?.policy.mode).toBe("read-only");
    expect(out.trace.sandboxOverride).toBe("none");
  });

  it("an approved escalation request runs the first attempt outside the sandbox", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx, manager } = makeContext({ approvalPolicy: "on-request", approvalHandler: handler });
    const { launch } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(request({ permissions: "require_escalated", justification: "needs the network?" }), launch);
    expect(requests[0]?.justification).toBe("needs the network?");
    expect(requests[0]?.sandboxPermissions).toBe("require_escalated");
    expect(manager.calls[0]?.policy.mode).toBe("danger-full-access");
    expect(out.trace.sandboxOverride).toBe("escalation_approved");
  });

  it("a plain non-zero exit is a result, not a denial: no retry, no second prompt", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalHandler: handler });
    const { launch, envs } = scriptedLauncher([probe(1, "make: *** No rule to make target 'all'.  Stop.\n")]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(envs).toHaveLength(1);
    expect(requests).toHaveLength(1);
    expect(out).toMatchObject({ retried: false, sandboxDenied: false, sandboxType: "linux", value: "attempt 1" });
    expect(out.trace.outcome).toBe("nonzero_exit");
  });
});

describe("sandbox denial → fresh approval → one unsandboxed retry", () => {
  it("untrusted: asks again with the reason, then retries unsandboxed once", async () => {
    const { handler, requests } = scriptedHandler(["approved", "approved"]);
    const { ctx, manager, events } = makeContext({ approvalHandler: handler });
    const { launch, envs } = scriptedLauncher([probe(1, DENIED), probe(0, "done")]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(requests.map((r) => r.retryAfterDenial)).toEqual([false, true]);
    expect(requests[1]?.reason).toBe("it failed in the sandbox (exit 1): its output looks like the sandbox refused something");
    expect(requests.map((r) => r.sandboxPermissions)).toEqual(["use_default", "require_escalated"]);
    expect(manager.calls.map((c) => c.policy.mode)).toEqual(["read-only", "danger-full-access"]);
    expect(envs.map((e) => e.sandboxType)).toEqual(["linux", "none"]);
    expect(out).toMatchObject({ retried: true, sandboxType: "none", value: "attempt 2", sandboxDenied: false });
    expect(out.trace).toMatchObject({ attempts: 2, initialSandbox: "linux", outcome: "success" });
    expect(events.filter((e) => e.type === "approval.requested")).toHaveLength(2);
    expect(manager.cleanups).toBe(2);
  });

  it("on-failure: a skipped command is asked about only after the denial", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalPolicy: "on-failure", approvalHandler: handler });
    const { launch } = scriptedLauncher([probe(1, DENIED), probe(2, "make: error")]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.retryAfterDenial).toBe(true);
    expect(out.trace).toMatchObject({ approvalRequirement: "skip", reviewed: true, attempts: 2, outcome: "nonzero_exit" });
  });

  it("on-request never retries: the denial is returned", async () => {
    const { handler, requests } = scriptedHandler([]);
    const { ctx } = makeContext({ approvalPolicy: "on-request", approvalHandler: handler });
    const { launch, envs } = scriptedLauncher([probe(1, DENIED)]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(requests).toHaveLength(0);
    expect(envs).toHaveLength(1);
    expect(out).toMatchObject({ retried: false, sandboxDenied: true });
    expect(out.trace.outcome).toBe("sandbox_denied");
  });

  it("never never retries", async () => {
    const { ctx } = makeContext({ approvalPolicy: "never" });
    const { launch, envs } = scriptedLauncher([probe(1, DENIED)]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(envs).toHaveLength(1);
    expect(out.sandboxDenied).toBe(true);
  });

  it("denied-read paths block the retry", async () => {
    const { handler, requests } = scriptedHandler([]);
    const { ctx } = makeContext({ approvalPolicy: "on-failure", approvalHandler: handler, sandboxPolicy: { mode: "read-only", deniedReadPaths: ["/s"] } });
    const { launch } = scriptedLauncher([probe(1, DENIED)]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(requests).toHaveLength(0);
    expect(out.sandboxDenied).toBe(true);
  });

  it("a refused retry leaves the sandboxed result, marked declined", async () => {
    const { handler } = scriptedHandler(["denied"]);
    const { ctx, events } = makeContext({ approvalPolicy: "on-failure", approvalHandler: handler });
    const { launch, envs } = scriptedLauncher([probe(1, DENIED)]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(out).toMatchObject({ value: "attempt 1", sandboxDenied: true, retried: false, sandboxRetry: "declined" });
    expect(envs).toHaveLength(1);
    expect(traces(events).map((t) => t.outcome)).toEqual(["sandbox_denied"]);
  });

  it("the retry prompt neither reads nor writes the session cache", async () => {
    const { handler, requests } = scriptedHandler(["approved_for_session", "approved"]);
    const { ctx } = makeContext({ approvalPolicy: "on-failure", approvalHandler: handler });
    const pipeline = new ExecPipeline(ctx);
    await expect(pipeline.run(request(), scriptedLauncher([probe(1, DENIED)]).launch)).rejects.toMatchObject({ code: "ORCH_DECISION_NOT_OFFERED" });
    expect(ctx.approvalCache.size).toBe(0);
    await pipeline.run(request({ callId: "call-2" }), scriptedLauncher([probe(1, DENIED), probe(0)]).launch);
    expect(requests).toHaveLength(2);
  });

  it("a timeout is not a denial", async () => {
    const { handler, requests } = scriptedHandler([]);
    const { ctx } = makeContext({ approvalPolicy: "on-failure", approvalHandler: handler });
    const { launch } = scriptedLauncher([{ ...probe(124, "sandbox"), timedOut: true }]);
    const out = await new ExecPipeline(ctx).run(request(), launch);
    expect(requests).toHaveLength(0);
    expect(out.trace.outcome).toBe("timeout");
  });
});

describe("approval decisions", () => {
  it("approved_for_session skips the prompt for the identical call only", async () => {
    const { handler, requests } = scriptedHandler(["approved_for_session", "approved"]);
    const { ctx } = makeContext({ approvalHandler: handler });
    const pipeline = new ExecPipeline(ctx);
    await pipeline.run(request(), scriptedLauncher([probe(0)]).launch);
    const second = await pipeline.run(request({ callId: "call-2" }), scriptedLauncher([probe(0)]).launch);
    expect(requests).toHaveLength(1);
    expect(second.trace).toMatchObject({ reviewed: true, reviewDecision: "cached" });
    await pipeline.run(request({ callId: "call-3", cwd: "/elsewhere" }), scriptedLauncher([probe(0)]).launch);
    expect(requests).toHaveLength(2);
  });

  it("a session approval in the sandbox does not approve the escalated call", async () => {
    const { handler, requests } = scriptedHandler(["approved_for_session", "approved"]);
    const { ctx } = makeContext({ approvalHandler: handler });
    const pipeline = new ExecPipeline(ctx);
    await pipeline.run(request(), scriptedLauncher([probe(0)]).launch);
    await pipeline.run(request({ permissions: "require_escalated" }), scriptedLauncher([probe(0)]).launch);
    expect(requests).toHaveLength(2);
  });

  it("denied rejects and abort aborts; nothing runs", async () => {
    for (const [answer, error] of [["denied", RejectedError], ["abort", AbortedError]] as const) {
      const { handler } = scriptedHandler([answer]);
      const { ctx, events } = makeContext({ approvalHandler: handler });
      const { launch, envs } = scriptedLauncher([]);
      await expect(new ExecPipeline(ctx).run(request(), launch)).rejects.toBeInstanceOf(error);
      expect(envs).toHaveLength(0);
      expect(events.find((e) => e.type === "approval.decided")).toMatchObject({ decision: answer });
    }
  });

  it("without a handler a call that needs approval is rejected with a readable reason", async () => {
    const { ctx, events } = makeContext({ rules: [{ prefix: ["make"], decision: "prompt", justification: "builds are slow" }] });
    const { launch, envs } = scriptedLauncher([]);
    const error = await new ExecPipeline(ctx).run(request(), launch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalUnavailableError);
    expect(error).toBeInstanceOf(RejectedError);
    expect(error).toMatchObject({
      code: "ORCH_APPROVAL_UNAVAILABLE",
      command: "make all",
      message:
        "`make all` needs approval (rule /fake/default.rules:1 asks for approval: builds are slow); no one can approve it here, so it was not run. " +
        "Ask the user to run it or to allow it, or use a command the rules allow",
    });
    expect(envs).toHaveLength(0);
    expect(traces(events)[0]?.outcome).toBe("rejected");
  });

  it("forbidden commands never reach the handler or the launcher", async () => {
    const { handler, requests } = scriptedHandler([]);
    const { ctx, events } = makeContext({ approvalHandler: handler, rules: [{ prefix: ["make"], decision: "forbidden" }] });
    const { launch, envs } = scriptedLauncher([]);
    const error = await new ExecPipeline(ctx).run(request(), launch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenError);
    expect((error as ForbiddenError).reason).toBe("`make all` rejected: policy forbids commands starting with `make`");
    expect(requests).toHaveLength(0);
    expect(envs).toHaveLength(0);
    expect(traces(events)[0]).toMatchObject({ approvalRequirement: "forbidden", outcome: "forbidden", attempts: 0 });
  });

  it("an invalid handler answer is a configuration error", async () => {
    const { handler } = scriptedHandler(["yes please"]);
    const { ctx } = makeContext({ approvalHandler: handler });
    await expect(new ExecPipeline(ctx).run(request(), scriptedLauncher([]).launch)).rejects.toBeInstanceOf(OrchestratorConfigError);
  });

  it("an amendment without a user rules file is a configuration error, and a bare interpreter is refused", async () => {
    const { ctx } = makeContext({ approvalHandler: scriptedHandler(["approved_with_amendment"]).handler });
    await expect(new ExecPipeline(ctx).run(request(), scriptedLauncher([]).launch)).rejects.toThrow(/userRulesFile/);
    const refused = makeContext({
      userRulesFile: "/tmp/never-written.rules",
      approvalHandler: scriptedHandler([{ decision: "approved_with_amendment", amendment: ["bash"] }]).handler,
    });
    await expect(new ExecPipeline(refused.ctx).run(request(), scriptedLauncher([]).launch)).rejects.toThrow(/would allow any command/);
  });

  it("the handler sees the matched rules, the reason and the proposed amendment", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx, events } = makeContext({ approvalHandler: handler, rules: [{ prefix: ["cat"], decision: "allow" }], userRulesFile: "/tmp/never-written.rules" });
    await new ExecPipeline(ctx).run(request({ argv: ["bash", "-lc", "cat x && make all"] }), scriptedLauncher([probe(0)]).launch);
    expect(requests[0]).toMatchObject({ callId: "call-1", tool: "shell", cwd: "/work/project", retryAfterDenial: false, proposedAmendment: ["make", "all"] });
    expect(requests[0]?.matchedRules.map((m) => m.matchedPrefix)).toEqual([["cat"]]);
    expect(events.map((e) => e.type)).toEqual(["approval.requested", "approval.decided", "trace"]);
  });
});

describe("attempt lifecycle", () => {
  it("a still-running launch is not judged and keeps its sandbox files", async () => {
    const { ctx, manager } = makeContext({ approvalPolicy: "never" });
    const out = await new ExecPipeline(ctx).run(request(), scriptedLauncher([null]).launch);
    expect(out.trace.outcome).toBe("running");
    expect(manager.cleanups).toBe(0);
  });

  it("a launch failure becomes SpawnFailedError and cleans up", async () => {
    const { ctx, manager, events } = makeContext({ approvalPolicy: "never" });
    const launch = async () => {
      throw new Error("ENOENT: no such program");
    };
    await expect(new ExecPipeline(ctx).run(request(), launch)).rejects.toBeInstanceOf(SpawnFailedError);
    expect(manager.cleanups).toBe(1);
    expect(traces(events)[0]?.outcome).toBe("spawn_failed");
  });

  it("a missing program, found by the sandbox's check or by the launch, is one SpawnFailedError whose cause is the sandbox's CommandNotFoundError", async () => {
    const checked = makeContext({
      approvalPolicy: "never",
      sandboxManager: {
        prepare: async () => {
          throw new CommandNotFoundError("no-such\u001b[31m", { detail: "not an executable file" });
        },
      },
    });
    const fromCheck = await new ExecPipeline(checked.ctx).run(request(), scriptedLauncher([]).launch).catch((e: unknown) => e);
    expect(fromCheck).toBeInstanceOf(SpawnFailedError);
    expect(fromCheck).toMatchObject({ code: "ORCH_SPAWN_FAILED", message: "command not found: no-such\\x1b[31m (not an executable file)" });
    expect((fromCheck as Error).cause).toBeInstanceOf(CommandNotFoundError);

    const launched = makeContext({ approvalPolicy: "never" });
    const ptyMissing = Object.assign(new Error("spawn failed"), { code: "PTY_SPAWN_FAILED", errno: "ENOENT", program: "make" });
    const fromLaunch = await new ExecPipeline(launched.ctx)
      .run(request({ argv: ["make"] }), async () => {
        throw ptyMissing;
      })
      .catch((e: unknown) => e);
    expect(fromLaunch).toMatchObject({ code: "ORCH_SPAWN_FAILED", message: "command not found: make" });
    const cause = (fromLaunch as Error).cause;
    expect(cause).toBeInstanceOf(CommandNotFoundError);
    expect(cause).toMatchObject({ program: "make", cause: ptyMissing });
  });

  it("a sandbox that cannot be prepared becomes SpawnFailedError", async () => {
    const { ctx } = makeContext({
      approvalPolicy: "never",
      sandboxManager: {
        prepare: async () => {
          throw new Error("no sandbox backend is available");
        },
      },
    });
    await expect(new ExecPipeline(ctx).run(request(), scriptedLauncher([]).launch)).rejects.toThrow(/cannot prepare the sandbox: no sandbox backend/);
  });

  it("a cancelled call stops before running", async () => {
    const { ctx, events } = makeContext({ approvalPolicy: "never" });
    const controller = new AbortController();
    controller.abort();
    const { launch, envs } = scriptedLauncher([]);
    await expect(new ExecPipeline(ctx).run(request({ signal: controller.signal }), launch)).rejects.toBeInstanceOf(CancelledError);
    expect(envs).toHaveLength(0);
    expect(traces(events)[0]?.outcome).toBe("cancelled");
  });

  it("cancellation while waiting for approval", async () => {
    const controller = new AbortController();
    const { ctx } = makeContext({
      approvalHandler: async (_req, { signal }) => {
        controller.abort();
        expect(signal).toBe(controller.signal);
        return "approved";
      },
    });
    const { launch, envs } = scriptedLauncher([]);
    await expect(new ExecPipeline(ctx).run(request({ signal: controller.signal }), launch)).rejects.toBeInstanceOf(CancelledError);
    expect(envs).toHaveLength(0);
  });

  it("cancellation does not wait for a handler that ignores its signal", async () => {
    const controller = new AbortController();
    const { ctx, events } = makeContext({
      approvalHandler: () => {
        setTimeout(() => controller.abort(), 0);
        return new Promise(() => undefined); // never answers
      },
    });
    const { launch, envs } = scriptedLauncher([]);
    await expect(new ExecPipeline(ctx).run(request({ signal: controller.signal }), launch)).rejects.toBeInstanceOf(CancelledError);
    expect(envs).toHaveLength(0);
    expect(traces(events)[0]?.outcome).toBe("cancelled");
  });

  it("loaded rules files and the user rules file are protected inside the sandbox", async () => {
    const { ctx, manager } = makeContext({ approvalPolicy: "never", protectedPaths: ["/work/project/.codex"], userRulesFile: "/home/me/.codex/rules/default.rules" });
    await new ExecPipeline(ctx).run(request(), scriptedLauncher([probe(0)]).launch);
    expect(manager.calls[0]?.options).toEqual({
      sandboxPolicyCwd: "/work/project",
      protectedPaths: ["/work/project/.codex", "/home/me/.codex/rules/default.rules"],
    });
  });
});

describe("the decision trace", () => {
  it("is emitted once per call and never holds the command, cwd, env or output", async () => {
    const secret = "zq9-marker";
    const argv = ["bash", "-lc", `echo ${secret}-argv && make ${secret}-target`];
    const req = request({ argv, cwd: `/work/${secret}-cwd`, env: { TOKEN_ISH: `${secret}-env` }, justification: `${secret}-why`, prefixRule: ["make", `${secret}-target`] });
    const all: DecisionTrace[] = [];
    const scenarios: Array<() => Promise<unknown>> = [];
    for (const approvalPolicy of ["untrusted", "on-failure", "on-request", "never"] as const) {
      for (const answers of [["approved", "approved"], ["approved_for_session", "approved"], ["denied"], ["abort"]]) {
        for (const first of [probe(0, `${secret}-out`), probe(1, `${DENIED} ${secret}-out`), null]) {
          scenarios.push(async () => {
            const { handler } = scriptedHandler(answers);
            const { ctx, events } = makeContext({ approvalPolicy, approvalHandler: handler, rules: [{ prefix: ["rm"], decision: "forbidden", justification: `${secret}-rule` }] });
            await new ExecPipeline(ctx).run(req, scriptedLauncher([first, probe(0, `${secret}-retry-out`)]).launch).catch(() => undefined);
            const t = traces(events);
            expect(t).toHaveLength(1);
            all.push(...t);
          });
        }
      }
    }
    const forbidden = makeContext({ rules: [{ prefix: ["make"], decision: "forbidden", justification: `${secret}-rule` }] });
    await new ExecPipeline(forbidden.ctx).run(req, scriptedLauncher([]).launch).catch(() => undefined);
    all.push(...traces(forbidden.events));
    for (const s of scenarios) await s();
    expect(all.length).toBe(scenarios.length + 1);
    const text = JSON.stringify(all);
    expect(text).not.toContain(secret);
    expect(text).not.toContain("make");
    expect(text).not.toContain("/work");
    for (const t of all) expect(Object.keys(t).sort()).toEqual(expect.arrayContaining(["approvalRequirement", "attempts", "callId", "initialSandbox", "outcome", "reviewed", "sandboxOverride", "tool"]));
    expect(new Set(all.map((t) => t.outcome))).toEqual(new Set(["success", "sandbox_denied", "running", "rejected", "aborted", "forbidden", "error"]));
  });
});

describe("trace outcome of other failures", () => {
  it("a failing approval handler ends the call with outcome `error`, one of TRACE_OUTCOMES", async () => {
    const { ctx, events } = makeContext({
      approvalHandler: async () => {
        throw new Error("handler crashed");
      },
    });
    const { launch, envs } = scriptedLauncher([probe(0)]);
    await expect(new ExecPipeline(ctx).run(request(), launch)).rejects.toThrow("handler crashed");
    expect(envs).toHaveLength(0);
    expect(traces(events)).toEqual([expect.objectContaining({ outcome: "error", attempts: 0, reviewed: true })]);
    expect(TRACE_OUTCOMES).toContain("error");
  });
});
