// Admission of PowerShell scripts: the split is substituted (a whitespace splitter standing in for
// shell-detect's PowerShell parser, which reports `dialect: "powershell"`), the heuristics and the
// rules are the real execpolicy ones, so what is tested is that every judgement is made in PowerShell's terms.
import { describe, expect, it } from "vitest";
import { parsePolicy } from "@shellgate/execpolicy";
import {
  assessCommand,
  DEFAULT_ADMISSION_DEPS,
  DecisionNotOfferedError,
  ExecPipeline,
  isKnownSafeCommand,
  PolicyStore,
  type PolicyEvaluator,
  type AdmissionDeps,
  type ApprovalPolicy,
  type SplitOutcome,
} from "../support/internals.js";
import { readOnly, workspaceWrite } from "../support/admission-fakes.js";
import { makeContext, probe, request, scriptedHandler, scriptedLauncher } from "../support/pipeline-fakes.js";

const pwsh = (script: string) => ["pwsh", "-NoProfile", "-Command", script];
const scriptOf = (argv: readonly string[]) => (argv[0] === "pwsh" && argv[2] === "-Command" && argv.length === 4 ? argv[3] : undefined);
/** What this stand-in cannot see through: variables, sub-expressions, script blocks, the call operator, redirections. */
const DYNAMIC = /[$(){}@&>]/;

/** The substituted split, with or without the dialect (without it, the commands are judged as POSIX ones). */
function depsFor(dialect: "powershell" | undefined): AdmissionDeps {
  const tag = dialect ? { dialect } : {};
  return {
    ...DEFAULT_ADMISSION_DEPS,
    async splitShellCommand(argv): Promise<SplitOutcome> {
      const script = scriptOf(argv);
      if (script === undefined) return { kind: "not-a-shell" };
      if (DYNAMIC.test(script)) return { kind: "not-plain", reason: "dynamic", ...tag };
      const commands = script.split(/[;|]/).map((c) => c.trim().split(/\s+/)).filter((c) => c[0] !== "");
      return { kind: "plain", commands, ...tag };
    },
    async literalCommands(argv) {
      const script = scriptOf(argv);
      if (script === undefined) return undefined;
      return script.split(/[;|(){}]/).map((c) => c.trim()).filter((c) => c !== "").map((c) => c.split(/\s+/));
    },
  };
}
const deps = depsFor("powershell");

function assess(script: string, approvalPolicy: ApprovalPolicy, rules = "", d: AdmissionDeps = deps) {
  const policy = rules === "" ? null : parsePolicy([{ path: "/virtual/ps.rules", source: `${rules}\n` }]);
  return assessCommand({ argv: pwsh(script), policy, approvalPolicy, sandboxPolicy: workspaceWrite, permissions: "use_default" }, d);
}

describe("PowerShell scripts are judged per segment, in PowerShell's terms", () => {
  it.each(["Get-Content foo.rs | Select-Object -Skip 200", "Get-ChildItem -Path .", "gci -Recurse src | sls TODO; Get-Location"])(
    "%s: known-safe segments run without asking under untrusted",
    async (script) => {
      const a = await assess(script, "untrusted");
      expect(a.split).toBe("plain");
      expect(a.dialect).toBe("powershell");
      expect(a.unmatched.every((u) => u.verdict === "known-safe")).toBe(true);
      expect(a.requirement).toEqual({ kind: "skip", bypassSandbox: false, proposedAmendment: a.segments[0] });
      expect(await isKnownSafeCommand(pwsh(script), deps)).toBe(true);
      // The same segments judged as POSIX commands are unknown: the dialect is what makes them safe.
      const posix = await assess(script, "untrusted", "", depsFor(undefined));
      expect(posix.requirement.kind).toBe("needs_approval");
      expect(await isKnownSafeCommand(pwsh(script), depsFor(undefined))).toBe(false);
    },
  );

  it("a Set-Content segment asks, the known-safe one beside it does not change that", async () => {
    const a = await assess("Get-Content a.txt | Set-Content b.txt", "untrusted");
    expect(a.unmatched).toEqual([
      { segment: ["Get-Content", "a.txt"], verdict: "known-safe" },
      { segment: ["Set-Content", "b.txt"], verdict: "unknown" },
    ]);
    expect(a.requirement.kind).toBe("needs_approval");
    expect(await isKnownSafeCommand(pwsh("Get-Content a.txt | Set-Content b.txt"), deps)).toBe(false);
  });

  it("Remove-Item -Recurse -Force is dangerous: asks under on-request, forbidden under never, never offered always allow", async () => {
    const script = "Remove-Item -Recurse -Force C:\\";
    const onRequest = await assess(script, "on-request");
    expect(onRequest.dangerousSegments).toEqual([["Remove-Item", "-Recurse", "-Force", "C:\\"]]);
    expect(onRequest.unmatched).toEqual([{ segment: ["Remove-Item", "-Recurse", "-Force", "C:\\"], verdict: "dangerous" }]);
    expect(onRequest.requirement.kind).toBe("needs_approval");
    expect((await assess(script, "never")).requirement.kind).toBe("forbidden");
    // As a POSIX command, `-Force` is no rm -f: not dangerous, runs in the sandbox.
    expect((await assess(script, "on-request", "", depsFor(undefined))).requirement.kind).toBe("skip");
  });

  it("a rule for `git status` decides that segment of a PowerShell script", async () => {
    const allow = await assess("git status; Get-Content README.md", "untrusted", 'prefix_rule(pattern=["git", "status"], decision="allow")');
    expect(allow.matchedRules.map((m) => m.matchedPrefix)).toEqual([["git", "status"]]);
    expect(allow.details.map((d) => d.source)).toEqual(["rule", "heuristic"]);
    expect(allow.requirement).toEqual({ kind: "skip", bypassSandbox: false });
    const forbid = await assess("git status", "on-request", 'prefix_rule(pattern=["git", "status"], decision="forbidden")');
    expect(forbid.requirement.kind).toBe("forbidden");
    // Without the rule, git is not known-safe (a repository's config can run programs): it asks.
    expect((await assess("git status", "untrusted")).requirement.kind).toBe("needs_approval");
  });

  it.each([
    ["$d = 'x'; rm -r -fo $d", [["rm", "-r", "-fo", "$d"]]],
    ["if ($true) { Remove-Item -Recurse -Force $env:TEMP }", [["Remove-Item", "-Recurse", "-Force", "$env:TEMP"]]],
    ["Get-ChildItem > out.txt; del /s /q build", [["del", "/s", "/q", "build"]]],
  ])("a script that is not plain, hiding %s, is flagged dangerous", async (script, hidden) => {
    const a = await assess(script, "on-request");
    expect(a.split).toBe("not-plain");
    expect(a.dialect).toBe("powershell");
    expect(a.hiddenDangerous).toEqual(hidden);
    expect(a.requirement.kind).toBe("needs_approval");
    expect((await assess(script, "never")).requirement.kind).toBe("forbidden");
  });

  it("a POSIX script's split carries no dialect, and its admission none", async () => {
    const a = await assessCommand({ argv: ["bash", "-lc", "ls"], policy: null, approvalPolicy: "untrusted", sandboxPolicy: readOnly, permissions: "use_default" });
    expect(a.dialect).toBeUndefined();
  });
});

describe("PowerShell segments and always allow", () => {
  const RULES = "/home/me/.config/shellgate/rules/default.rules";

  it("a dangerous PowerShell segment is never offered always allow, and the reason says why in PowerShell's terms", async () => {
    for (const script of ["Get-Location; Remove-Item -Recurse -Force C:\\", "rd /s /q build", "Format-Volume -DriveLetter D"]) {
      const { handler, requests } = scriptedHandler(["approved_with_amendment"]);
      const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES, admissionDeps: deps });
      const { launch, envs } = scriptedLauncher([]);
      const error = await new ExecPipeline(ctx).run(request({ argv: pwsh(script) }), launch).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DecisionNotOfferedError);
      expect(requests[0]?.offeredDecisions).not.toContain("approved_with_amendment");
      expect(requests[0]?.amendmentWithheld).toBe("the heuristics rate the command dangerous");
      expect(requests[0]?.why.text).toMatch(/^dangerous: .*\(PowerShell\)/);
      expect(envs).toHaveLength(0);
    }
  });

  it("a PowerShell removal that is not dangerous is offered only as the whole command", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES, admissionDeps: deps });
    await new ExecPipeline(ctx).run(request({ argv: pwsh("Remove-Item old.log") }), scriptedLauncher([probe(0)]).launch);
    expect(requests[0]?.proposedAmendment).toEqual(["Remove-Item", "old.log"]);
    expect(requests[0]?.amendmentChoices).toEqual([["Remove-Item", "old.log"]]);
  });

  it("a handler's own amendment is judged in the script's language: a forced PowerShell removal is refused", async () => {
    const appended: string[][] = [];
    const store = new PolicyStore<PolicyEvaluator>(null, [], {
      loadPolicy: async () => ({ evaluate: () => ({ matchedRules: [] }) }),
      appendAllowPrefixRule: async (_file, prefix) => {
        appended.push([...prefix]);
        return { added: true };
      },
    });
    const { handler } = scriptedHandler([{ decision: "approved_with_amendment", amendment: ["Remove-Item", "-r", "-fo"] }]);
    const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: RULES, admissionDeps: deps });
    const { launch, envs } = scriptedLauncher([]);
    await expect(new ExecPipeline({ ...ctx, policies: store }).run(request({ argv: pwsh("Remove-Item old.log") }), launch)).rejects.toThrow(/dangerous/);
    expect(appended).toEqual([]);
    expect(envs).toHaveLength(0);
  });
});
