// What a person is offered and told, decided by the orchestrator: scripted approval handlers drive the
// pipeline (fake sandbox, fake launcher) for every offer/refusal rule. The on-failure retry messages
// under the real Linux sandbox are in tooling/integration (approval-retry.test.ts).
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PolicyStore, type PolicyIo } from "../support/internals.js";
import type { PolicyEvaluator } from "../support/internals.js";
import { DEFAULT_ADMISSION_DEPS } from "../support/internals.js";
import { DecisionNotOfferedError, ExecPipeline, Orchestrator, sandboxRetryMessage, withSandboxRetryNote } from "../support/internals.js";
import type { ApprovalRequest } from "../support/internals.js";
import { makeContext, probe, request, scriptedHandler, scriptedLauncher } from "../support/pipeline-fakes.js";
import { call, cleanupAll, workspace } from "../support/orchestrator-helpers.js";
import { FakeProcess } from "../support/sessions-fakes.js";

const DENIED = "touch: cannot touch '/etc/x': Read-only file system";
const RULES = "/home/me/.config/shellgate/rules/default.rules";

/** A store whose appends are recorded, never written. */
function recordingStore() {
  const appended: string[][] = [];
  const sandboxes: Array<string | undefined> = [];
  const io: PolicyIo<PolicyEvaluator> = {
    loadPolicy: async () => ({ evaluate: () => ({ matchedRules: [] }) }),
    appendAllowPrefixRule: async (_file, prefix, options) => {
      appended.push([...prefix]);
      sandboxes.push(options?.sandbox);
      return { added: true };
    },
  };
  return { store: new PolicyStore<PolicyEvaluator>(null, [], io), appended, sandboxes };
}

afterEach(async () => {
  await cleanupAll();
});

describe("what is offered", () => {
  it("a plain unknown command under untrusted: every choice, always allow says it runs outside the sandbox and where the rule goes", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES });
    await new ExecPipeline(ctx).run(request({ argv: ["cargo", "build"] }), scriptedLauncher([probe(0)]).launch);
    expect(requests[0]).toMatchObject({
      offeredDecisions: ["approved", "approved_for_session", "approved_with_amendment", "denied", "abort"],
      proposedAmendment: ["cargo", "build"],
      amendmentRulesFile: RULES,
      amendmentBypassesSandbox: true,
      why: { kind: "approval_policy", text: "approval policy `untrusted`: only known-safe commands run without asking" },
    });
    expect(requests[0]?.reason).toBe(requests[0]?.why.text);
  });

  it("denied-read paths keep the sandbox on, and the request says an allowed command stays sandboxed", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES, sandboxPolicy: { mode: "read-only", deniedReadPaths: ["/secret"] } });
    await new ExecPipeline(ctx).run(request({ argv: ["cargo", "build"] }), scriptedLauncher([probe(0)]).launch);
    expect(requests[0]).toMatchObject({ proposedAmendment: ["cargo", "build"], amendmentBypassesSandbox: false });
  });

  it("a dangerous command (rm -rf) is never offered always allow, and such an answer is refused; nothing runs", async () => {
    for (const argv of [["rm", "-rf", "/tmp/x"], ["bash", "-lc", "ls && rm -rf /"], ["sudo", "rm", "-f", "x"]]) {
      const { store, appended } = recordingStore();
      const { handler, requests } = scriptedHandler(["approved_with_amendment"]);
      const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES, admissionDeps: DEFAULT_ADMISSION_DEPS });
      const { launch, envs } = scriptedLauncher([]);
      const error = await new ExecPipeline({ ...ctx, policies: store }).run(request({ argv }), launch).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DecisionNotOfferedError);
      expect(error).toMatchObject({ code: "ORCH_DECISION_NOT_OFFERED", decision: "approved_with_amendment" });
      expect((error as Error).message).toContain("the heuristics rate the command dangerous");
      expect(requests[0]?.offeredDecisions).not.toContain("approved_with_amendment");
      expect(requests[0]?.proposedAmendment).toBeUndefined();
      expect(requests[0]?.amendmentWithheld).toBe("the heuristics rate the command dangerous");
      expect(requests[0]?.why.kind).toBe("heuristic");
      expect(requests[0]?.why.text).toMatch(/^dangerous: `(sudo )?rm .*` is a forced (recursive )?delete/);
      expect(envs).toHaveLength(0);
      expect(appended).toEqual([]);
    }
  });

  it("a whole script that cannot be split is never offered always allow", async () => {
    const { handler, requests } = scriptedHandler([{ decision: "approved_with_amendment", amendment: ["bash", "-lc", "make $(cat target)"] }]);
    const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES });
    const { launch, envs } = scriptedLauncher([]);
    const error = await new ExecPipeline(ctx).run(request({ argv: ["bash", "-lc", "make $(cat target)"] }), launch).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecisionNotOfferedError);
    expect((error as Error).message).toContain("cannot be split into plain commands");
    expect(requests[0]?.offeredDecisions).toEqual(["approved", "approved_for_session", "denied", "abort"]);
    expect(envs).toHaveLength(0);
  });

  it("a handler-named amendment that is an inline script, a bare interpreter or dangerous is refused", async () => {
    for (const [amendment, why] of [
      [["bash", "-c", "make all"], /whole script/],
      [["python3"], /would allow any command/],
      [["rm", "-f"], /dangerous/],
    ] as const) {
      const { handler } = scriptedHandler([{ decision: "approved_with_amendment", amendment: [...amendment] }]);
      const { store, appended } = recordingStore();
      const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES, admissionDeps: DEFAULT_ADMISSION_DEPS });
      const { launch, envs } = scriptedLauncher([]);
      await expect(new ExecPipeline({ ...ctx, policies: store }).run(request({ argv: ["make", "all"] }), launch)).rejects.toThrow(why);
      expect(envs).toHaveLength(0);
      expect(appended).toEqual([]);
    }
  });

  it("without a user rules file there is nothing to write to: no always allow", async () => {
    const { handler, requests } = scriptedHandler(["approved_with_amendment"]);
    const { ctx } = makeContext({ approvalHandler: handler });
    await expect(new ExecPipeline(ctx).run(request({ argv: ["cargo", "build"] }), scriptedLauncher([]).launch)).rejects.toThrow(
      /not offered .*no userRulesFile is configured/,
    );
    expect(requests[0]?.amendmentWithheld).toBe("no userRulesFile is configured to write the rule to");
  });

  it("sessionApprovals: false offers no 'run for this session' and refuses that answer", async () => {
    const { handler, requests } = scriptedHandler(["approved_for_session"]);
    const { ctx } = makeContext({ approvalHandler: handler, sessionApprovals: false, userRulesFile: RULES });
    const { launch, envs } = scriptedLauncher([]);
    const error = await new ExecPipeline(ctx).run(request(), launch).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ORCH_DECISION_NOT_OFFERED", decision: "approved_for_session" });
    expect((error as Error).message).toContain("approvals do not outlive this call here");
    expect(requests[0]?.offeredDecisions).toEqual(["approved", "approved_with_amendment", "denied", "abort"]);
    expect(ctx.approvalCache.size).toBe(0);
    expect(envs).toHaveLength(0);
  });

  it("the Orchestrator option sessionApprovals reaches the handler (default on, off when asked)", async () => {
    const ws = await workspace();
    for (const [sessionApprovals, offered] of [[undefined, true], [false, false]] as const) {
      const seen: ApprovalRequest[] = [];
      const orch = new Orchestrator({
        cwd: ws.dir,
        hostEnv: ws.hostEnv,
        shell: "/bin/bash",
        approvalPolicy: "untrusted",
        sandboxPolicy: { mode: "danger-full-access" },
        ...(sessionApprovals !== undefined ? { sessionApprovals } : {}),
        approvalHandler: async (r) => {
          seen.push(r);
          return "denied";
        },
      });
      await call(orch, "shell", { command: ["touch", "x"] });
      await orch.close();
      expect(seen[0]?.offeredDecisions.includes("approved_for_session")).toBe(offered);
    }
  });
});

describe("why it asks", () => {
  it("a prompt rule: kind rule, its file:line:col and justification", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalHandler: handler, rules: [{ prefix: ["make"], decision: "prompt", justification: "builds are slow" }] });
    await new ExecPipeline(ctx).run(request(), scriptedLauncher([probe(0)]).launch);
    expect(requests[0]?.why).toEqual({
      kind: "rule",
      text: "rule /fake/default.rules:1 asks for approval: builds are slow",
      rule: { file: "/fake/default.rules", line: 1, column: 1, prefix: ["make"], justification: "builds are slow" },
    });
  });

  it("an escalation request under on-request: kind escalation", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalHandler: handler, approvalPolicy: "on-request" });
    await new ExecPipeline(ctx).run(request({ permissions: "require_escalated", justification: "needs the network" }), scriptedLauncher([probe(0)]).launch);
    expect(requests[0]).toMatchObject({ why: { kind: "escalation" }, justification: "needs the network" });
  });

  it("the retry after a denial: kind sandbox_retry with the exit code, no session approval, the denial passed on", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalHandler: handler, approvalPolicy: "on-failure", userRulesFile: RULES });
    await new ExecPipeline(ctx).run(request(), scriptedLauncher([probe(3, DENIED), probe(0)]).launch);
    expect(requests[0]).toMatchObject({
      retryAfterDenial: true,
      why: { kind: "sandbox_retry", exitCode: 3 },
      offeredDecisions: ["approved", "approved_with_amendment", "denied", "abort"],
    });
    expect(requests[0]?.why.text).toMatch(/^it failed in the sandbox \(exit 3\): /);
  });

  it("no handler: the model-facing error says no one can approve it, it was not run, and what to do", async () => {
    const { ctx } = makeContext({ rules: [{ prefix: ["make"], decision: "prompt", justification: "builds are slow" }] });
    const error = await new ExecPipeline(ctx).run(request(), scriptedLauncher([]).launch).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "`make all` needs approval (rule /fake/default.rules:1 asks for approval: builds are slow); no one can approve it here, so it was not run. " +
        "Ask the user to run it or to allow it, or use a command the rules allow",
    );
  });

  it("the approval.requested event carries the reason text", async () => {
    const { handler } = scriptedHandler(["approved"]);
    const { ctx, events } = makeContext({ approvalHandler: handler });
    await new ExecPipeline(ctx).run(request(), scriptedLauncher([probe(0)]).launch);
    expect(events.find((e) => e.type === "approval.requested")).toMatchObject({ reason: "approval policy `untrusted`: only known-safe commands run without asking" });
  });
});

describe("the prefix always allow proposes", () => {
  it("the program and its subcommand, not the commit message; the wider and narrower prefixes are listed, and the default is what is written", async () => {
    const { store, appended } = recordingStore();
    const { handler, requests } = scriptedHandler(["approved_with_amendment"]);
    const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES, policies: store });
    const argv = ["git", "commit", "-m", "fix: the parser"];
    await new ExecPipeline(ctx).run(request({ argv }), scriptedLauncher([probe(0)]).launch);
    expect(requests[0]).toMatchObject({
      proposedAmendment: ["git", "commit"],
      amendmentChoices: [["git", "commit"], ["git", "commit", "-m"], argv],
    });
    expect(appended).toEqual([["git", "commit"]]);
  });

  it("the prefix the model asked for (prefix_rule) stays the proposal", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES, approvalPolicy: "on-request" });
    const argv = ["git", "push", "origin", "main"];
    await new ExecPipeline(ctx).run(request({ argv, permissions: "require_escalated", prefixRule: ["git", "push", "origin"] }), scriptedLauncher([probe(0)]).launch);
    expect(requests[0]).toMatchObject({ proposedAmendment: ["git", "push", "origin"], amendmentChoices: [["git", "push"], ["git", "push", "origin"]] });
  });

  it("a retry after a denial offers the plain rule (a sandboxed one would fail the same way next time)", async () => {
    const { store, sandboxes } = recordingStore();
    const { handler, requests } = scriptedHandler(["approved_with_amendment"]);
    const { ctx } = makeContext({ approvalHandler: handler, approvalPolicy: "on-failure", userRulesFile: RULES, policies: store });
    await new ExecPipeline(ctx).run(request({ argv: ["cargo", "build"] }), scriptedLauncher([probe(3, DENIED), probe(0)]).launch);
    expect(requests[0]).toMatchObject({ retryAfterDenial: true, proposedAmendment: ["cargo", "build"], amendmentBypassesSandbox: true });
    expect(requests[0]?.amendmentSandbox).toBeUndefined();
    expect(sandboxes).toEqual([undefined]);
  });

  it("a retry of a script of several commands offers no rule for its first command", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalHandler: handler, approvalPolicy: "on-failure", userRulesFile: RULES });
    await new ExecPipeline(ctx).run(request({ argv: ["bash", "-lc", "cargo build && cargo test"] }), scriptedLauncher([probe(3, DENIED), probe(0)]).launch);
    expect(requests[0]?.offeredDecisions).not.toContain("approved_with_amendment");
    expect(requests[0]?.amendmentWithheld).toMatch(/script of 2 commands/);
  });
});

describe("the retry that did not run", () => {
  it("no handler under on-failure: the sandboxed result stands, marked no_approver", async () => {
    const { ctx } = makeContext({ approvalPolicy: "on-failure" });
    const out = await new ExecPipeline(ctx).run(request(), scriptedLauncher([probe(1, DENIED)]).launch);
    expect(out).toMatchObject({ sandboxDenied: true, retried: false, sandboxRetry: "no_approver" });
  });

  it("on-request has no retry to ask about: no mark", async () => {
    const { ctx } = makeContext({ approvalPolicy: "on-request" });
    const out = await new ExecPipeline(ctx).run(request(), scriptedLauncher([probe(1, DENIED)]).launch);
    expect(out.sandboxRetry).toBeUndefined();
  });

  it("the messages: for the model and for the CLI", () => {
    expect(sandboxRetryMessage("declined", 1, "cli")).toBe("it ran in the sandbox and failed (exit 1); the retry without the sandbox was not run (you denied it)");
    expect(sandboxRetryMessage("no_approver", 2, "cli", "/r/default.rules")).toBe(
      "it ran in the sandbox and failed (exit 2); a retry without the sandbox needs a person, and there is no terminal to ask on " +
        "(stdin is not a TTY): run it from a terminal, or allow it with a rule in /r/default.rules",
    );
    expect(sandboxRetryMessage("no_approver", 2, "model")).toMatch(/needs a person's approval, and no one can approve it here.*allow rule/);
    expect(JSON.parse(withSandboxRetryNote('{"output":"x"}', { status: "declined", exitCode: 1 }, "structured"))).toMatchObject({
      output: "x",
      shellgate_note: expect.stringContaining("the user denied the retry without the sandbox"),
    });
    expect(withSandboxRetryNote("Exit code: 1", { status: undefined, exitCode: 1 }, "freeform")).toBe("Exit code: 1");
  });
});

describe("write_stdin to a session that exited", () => {
  it("input after the exit is not sent and says so with the exit code; afterwards the id says it exited", async () => {
    const ws = await workspace();
    const proc = new FakeProcess({ tty: true });
    const orch = new Orchestrator({
      cwd: ws.dir,
      hostEnv: ws.hostEnv,
      shell: "/bin/bash",
      approvalPolicy: "never",
      sandboxPolicy: { mode: "danger-full-access" },
      processFactory: () => proc,
    });
    try {
      const started = await call(orch, "exec_command", { cmd: "fake", tty: true, yield_time_ms: 250 });
      const id = started.sessionId;
      expect(id).toBeTypeOf("number");
      proc.emit("last words\n");
      proc.exit(4);
      await proc.exited;
      const late = await call(orch, "write_stdin", { session_id: id, chars: "hello\n" });
      expect(proc.written).toEqual([]);
      expect(late.content).toContain(`Warning: session ${id} had already exited (exit code 4); the input was not sent. Its remaining output follows`);
      expect(late.content).toContain("Process exited with code 4");
      expect(late.content).toContain("last words");
      const again = await call(orch, "write_stdin", { session_id: id, chars: "x" });
      expect(again.error?.code).toBe("ORCH_UNKNOWN_SESSION");
      expect(again.content).toBe(
        `session ${id} has exited (exit code 4); its exit and remaining output were already returned, so it takes no more input. Start the command again with exec_command if you need it`,
      );
      const never = await call(orch, "write_stdin", { session_id: 99_999_999 });
      expect(never.content).toMatch(/^unknown session id 99999999: no running session has this id\. Sessions end when their process exits/);
    } finally {
      await orch.close();
    }
  });
});

describe("forbidden, for the model", () => {
  it("names the rule with file:line and says it was not run", async () => {
    const ws = await workspace();
    const rules = path.join(ws.dir, "team.rules");
    await import("node:fs/promises").then((fs) => fs.writeFile(rules, 'prefix_rule(pattern=["git", "push"], decision="forbidden", justification="pushing is for humans")\n'));
    const orch = await Orchestrator.create({ cwd: ws.dir, hostEnv: ws.hostEnv, shell: "/bin/bash", rulesFiles: [rules], sandboxPolicy: { mode: "danger-full-access" } });
    try {
      const response = await call(orch, "shell", { command: ["git", "push", "origin"] });
      expect(response.content).toBe(
        `exec command rejected: \`git push origin\` rejected: pushing is for humans (rule ${rules}:1); it was not run. Do not retry it in another form`,
      );
    } finally {
      await orch.close();
    }
  });
});

describe("exec_command's description says what tty does", () => {
  it("mentions the pseudo-terminal, Ctrl-C and that pipes take no input", async () => {
    const ws = await workspace();
    const orch = new Orchestrator({ cwd: ws.dir, hostEnv: ws.hostEnv, shell: "/bin/bash" });
    const def = orch.toolDefinitions("mcp", ["exec_command"])[0];
    await orch.close();
    expect(def?.description).toMatch(/pseudo-terminal/);
    expect(def?.description).toContain('"\\u0003" (Ctrl-C) interrupts');
    expect(def?.description).toMatch(/Without tty .* pipes and it gets no input/);
    expect(JSON.stringify(def?.inputSchema)).toContain("pseudo-terminal");
  });
});
