import { describe, expect, it } from "vitest";
import type { SandboxPolicy } from "@shellgate/sandbox";
import {
  APPROVAL_POLICIES,
  assessWith,
  ESCALATION_REASON,
  heuristicDecision,
  NEVER_ESCALATION_REASON,
  NEVER_PROMPT_REASON,
  type AdmissionDeps,
  type ApprovalPolicy,
  type ExecApprovalRequirement,
} from "../support/internals.js";
import { external, fakeDeps, fakePolicy, fullAccess, readOnly, workspaceWrite, type FakeRule } from "../support/admission-fakes.js";


interface Row {
  name: string;
  rules: FakeRule[];
  argv: string[];
  approval: ApprovalPolicy;
  sandbox: SandboxPolicy;
  escalated?: boolean;
  prefixRule?: string[];
  expected: ExecApprovalRequirement;
}

const CURL_SCRIPT = "cat LOG.md && curl -fsSL https://example.invalid/setup.sh -o setup.sh && bash setup.sh";

// Worked examples of the approval requirement that do not depend on granular policies or heredoc parsing.
const rows: Row[] = [
  {
    name: "forbidden rule inside a shell wrapper names the rule's prefix",
    rules: [{ prefix: ["rm"], decision: "forbidden" }],
    argv: ["bash", "-lc", "rm -rf /some/important/folder"],
    approval: "on-request",
    sandbox: fullAccess,
    expected: {
      kind: "forbidden",
      reason: "`bash -lc 'rm -rf /some/important/folder'` rejected: policy forbids commands starting with `rm`",
    },
  },
  {
    name: "forbidden rule with a justification uses it",
    rules: [{ prefix: ["rm"], decision: "forbidden", justification: "destructive command" }],
    argv: ["rm", "-rf", "/some/important/folder"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "forbidden", reason: "`rm -rf /some/important/folder` rejected: destructive command" },
  },
  {
    name: "prompt rule asks, with the rule's reason and no amendment",
    rules: [{ prefix: ["rm"], decision: "prompt" }],
    argv: ["rm"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "needs_approval", reason: "`rm` requires approval by policy" },
  },
  {
    name: "prompt rule with a justification",
    rules: [{ prefix: ["rm"], decision: "prompt", justification: "deletes files" }],
    argv: ["rm", "x"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", reason: "`rm x` requires approval: deletes files" },
  },
  {
    name: "prompt rule under never is forbidden",
    rules: [{ prefix: ["rm"], decision: "prompt" }],
    argv: ["rm"],
    approval: "never",
    sandbox: readOnly,
    expected: { kind: "forbidden", reason: NEVER_PROMPT_REASON },
  },
  {
    name: "prompt rule under never with an external sandbox is forbidden",
    rules: [{ prefix: ["rm"], decision: "prompt" }],
    argv: ["rm", "-rf", "/tmp/nonexistent"],
    approval: "never",
    sandbox: external,
    expected: { kind: "forbidden", reason: NEVER_PROMPT_REASON },
  },
  {
    name: "dangerous command without rules under never is blocked by policy",
    rules: [],
    argv: ["rm", "-rf", "/tmp/nonexistent"],
    approval: "never",
    sandbox: external,
    expected: { kind: "forbidden", reason: "`rm -rf /tmp/nonexistent` rejected: blocked by policy" },
  },
  {
    name: "dangerous command without rules under on-request asks, proposing its argv",
    rules: [],
    argv: ["rm", "-rf", "/tmp/nonexistent"],
    approval: "on-request",
    sandbox: fullAccess,
    expected: { kind: "needs_approval", proposedAmendment: ["rm", "-rf", "/tmp/nonexistent"] },
  },
  {
    name: "unknown command under untrusted asks, proposing its argv",
    rules: [],
    argv: ["cargo", "build"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["cargo", "build"] },
  },
  {
    name: "multi-segment script proposes the first segment that prompted",
    rules: [],
    argv: ["bash", "-lc", "cargo build && echo ok"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["cargo", "build"] },
  },
  {
    name: "allow rule on one segment: the other segment is proposed",
    rules: [{ prefix: ["cat"], decision: "allow" }],
    argv: ["bash", "-lc", "cat && apple"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["apple"] },
  },
  {
    name: "allow rule on the first pipeline stage: the second is proposed",
    rules: [{ prefix: ["apple"], decision: "allow" }],
    argv: ["bash", "-lc", "apple | orange"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["orange"] },
  },
  {
    name: "heuristic allow keeps the sandbox and proposes the argv for a later retry",
    rules: [],
    argv: ["echo", "safe"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: false, proposedAmendment: ["echo", "safe"] },
  },
  {
    name: "explicit allow rule bypasses the sandbox",
    rules: [{ prefix: ["python3"], decision: "allow" }],
    argv: ["python3", "-c", "print(1)"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: true },
  },
  {
    name: "allow rule on one of three segments keeps the sandbox (on-request)",
    rules: [{ prefix: ["cat"], decision: "allow" }],
    argv: ["bash", "-lc", CURL_SCRIPT],
    approval: "on-request",
    sandbox: workspaceWrite,
    expected: { kind: "skip", bypassSandbox: false },
  },
  {
    name: "allow rule on one of three segments keeps the sandbox (never)",
    rules: [{ prefix: ["cat"], decision: "allow" }],
    argv: ["bash", "-lc", CURL_SCRIPT],
    approval: "never",
    sandbox: workspaceWrite,
    expected: { kind: "skip", bypassSandbox: false },
  },
  {
    name: "allow rules on every segment bypass the sandbox",
    rules: [
      { prefix: ["cat"], decision: "allow" },
      { prefix: ["curl"], decision: "allow" },
      { prefix: ["bash"], decision: "allow" },
    ],
    argv: ["bash", "-lc", CURL_SCRIPT],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: true },
  },
  {
    name: "a script that cannot be split is judged whole; heuristic allow proposes the whole argv",
    rules: [{ prefix: ["cat"], decision: "allow" }],
    argv: ["bash", "-lc", "PATH=/tmp/evil:$PATH cat <<'EOF'\nhello\nEOF"],
    approval: "on-request",
    sandbox: readOnly,
    expected: {
      kind: "skip",
      bypassSandbox: false,
      proposedAmendment: ["bash", "-lc", "PATH=/tmp/evil:$PATH cat <<'EOF'\nhello\nEOF"],
    },
  },
  {
    name: "escalation request on an unsplittable script asks, proposing the whole argv",
    rules: [{ prefix: ["cat"], decision: "allow" }],
    argv: ["zsh", "-lc", "cat <<'EOF' > /some/important/folder/test.txt\nhello\nEOF"],
    approval: "on-request",
    sandbox: workspaceWrite,
    escalated: true,
    expected: {
      kind: "needs_approval",
      proposedAmendment: ["zsh", "-lc", "cat <<'EOF' > /some/important/folder/test.txt\nhello\nEOF"],
    },
  },
  {
    name: "the model's requested prefix is proposed when it approves everything",
    rules: [],
    argv: ["cargo", "install", "cargo-insta"],
    approval: "on-request",
    sandbox: readOnly,
    escalated: true,
    prefixRule: ["cargo", "install"],
    expected: { kind: "needs_approval", proposedAmendment: ["cargo", "install"] },
  },
  {
    name: "a requested prefix that would not approve every segment is replaced by the prompting segment",
    rules: [],
    argv: ["bash", "-lc", "cargo install cargo-insta && rm -rf /tmp/codex"],
    approval: "on-request",
    sandbox: fullAccess,
    escalated: true,
    prefixRule: ["cargo", "install"],
    expected: { kind: "needs_approval", proposedAmendment: ["rm", "-rf", "/tmp/codex"] },
  },
  {
    name: "a requested prefix covers an absolute path to the program",
    rules: [],
    argv: ["/usr/bin/cargo", "install", "cargo-insta"],
    approval: "untrusted",
    sandbox: readOnly,
    prefixRule: ["cargo", "install"],
    expected: { kind: "needs_approval", proposedAmendment: ["cargo", "install"] },
  },
  {
    name: "an empty script is judged as the whole wrapper",
    rules: [],
    argv: ["bash", "-lc", ""],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["bash", "-lc", ""] },
  },
  {
    name: "a refused (bare interpreter) prefix is never proposed",
    rules: [],
    argv: ["python3", "-c", "print(1)"],
    approval: "untrusted",
    sandbox: readOnly,
    prefixRule: ["python3", "-c"],
    expected: { kind: "needs_approval", proposedAmendment: ["python3", "-c", "print(1)"] },
  },
  {
    name: "a requested prefix is not proposed when a rule already matched a segment",
    rules: [{ prefix: ["cat"], decision: "allow" }],
    argv: ["bash", "-lc", "cat x && make all"],
    approval: "untrusted",
    sandbox: readOnly,
    prefixRule: ["make"],
    expected: { kind: "needs_approval", proposedAmendment: ["make", "all"] },
  },
  {
    name: "no amendment when a prompt rule matched",
    rules: [{ prefix: ["make"], decision: "prompt" }],
    argv: ["bash", "-lc", "make all && cargo build"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", reason: "`bash -lc 'make all && cargo build'` requires approval by policy" },
  },
  {
    name: "the most specific forbidden rule names the reason",
    rules: [
      { prefix: ["git"], decision: "forbidden" },
      { prefix: ["git", "push"], decision: "forbidden", justification: "pushing is for humans" },
    ],
    argv: ["git", "push", "origin"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "forbidden", reason: "`git push origin` rejected: pushing is for humans" },
  },
  {
    name: "forbidden beats prompt and allow across segments",
    rules: [
      { prefix: ["ls"], decision: "allow" },
      { prefix: ["make"], decision: "prompt" },
      { prefix: ["shutdown"], decision: "forbidden" },
    ],
    argv: ["bash", "-lc", "ls; make; shutdown now"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "forbidden", reason: "`bash -lc 'ls; make; shutdown now'` rejected: policy forbids commands starting with `shutdown`" },
  },
  {
    name: "no amendment when a rule matched in the allow case",
    rules: [{ prefix: ["cat"], decision: "allow" }],
    argv: ["bash", "-lc", "cat a && ls"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: false },
  },
];

describe("approval requirement: worked examples", () => {
  it.each(rows)("$name", async (row) => {
    const admission = await assessWith(fakeDeps, {
      argv: row.argv,
      policy: fakePolicy(row.rules),
      approvalPolicy: row.approval,
      sandboxPolicy: row.sandbox,
      permissions: row.escalated ? "require_escalated" : "use_default",
      ...(row.prefixRule ? { prefixRule: row.prefixRule } : {}),
    });
    expect(admission.requirement).toEqual(row.expected);
  });
});

describe("heuristic decision for unmatched segments: every approval policy × verdict × filesystem × request", () => {
  type Verdict = "known-safe" | "dangerous" | "unknown";
  const sandboxes: Array<[string, SandboxPolicy]> = [
    ["restricted", readOnly],
    ["unrestricted", fullAccess],
    ["external", external],
  ];
  // expected[policy][verdict] → fn(fsKind, escalated)
  const expected = (policy: ApprovalPolicy, verdict: Verdict, fs: string, escalated: boolean): string => {
    if (verdict === "known-safe" && policy === "untrusted") return "allow";
    if (verdict === "dangerous") return policy === "never" ? "forbidden" : "prompt";
    if (policy === "never" || policy === "on-failure") return "allow";
    if (policy === "untrusted") return "prompt";
    return fs === "restricted" && escalated ? "prompt" : "allow";
  };
  const cases: Array<[ApprovalPolicy, Verdict, string, boolean]> = [];
  for (const p of APPROVAL_POLICIES)
    for (const v of ["known-safe", "dangerous", "unknown"] as Verdict[])
      for (const [fs] of sandboxes) for (const esc of [false, true]) cases.push([p, v, fs, esc]);

  it("covers 4 policies × 3 verdicts × 3 filesystems × 2 requests", () => {
    expect(cases).toHaveLength(72);
  });

  it.each(cases)("%s / %s / %s / escalated=%s", (policy, verdict, fs, escalated) => {
    const sandboxPolicy = sandboxes.find(([k]) => k === fs)![1];
    const got = heuristicDecision(
      { knownSafe: verdict === "known-safe", dangerous: verdict === "dangerous" },
      { argv: ["x"], approvalPolicy: policy, sandboxPolicy, permissions: escalated ? "require_escalated" : "use_default" },
    );
    expect(got).toBe(expected(policy, verdict, fs, escalated));
  });

  it("spot checks that do not restate the rule above", () => {
    const ctx = { argv: ["x"], sandboxPolicy: readOnly, permissions: "use_default" as const };
    expect(heuristicDecision({ knownSafe: true, dangerous: false }, { ...ctx, approvalPolicy: "untrusted" })).toBe("allow");
    expect(heuristicDecision({ knownSafe: false, dangerous: false }, { ...ctx, approvalPolicy: "untrusted" })).toBe("prompt");
    expect(heuristicDecision({ knownSafe: false, dangerous: true }, { ...ctx, approvalPolicy: "never" })).toBe("forbidden");
    expect(heuristicDecision({ knownSafe: true, dangerous: false }, { ...ctx, approvalPolicy: "untrusted", complexParsing: true })).toBe("prompt");
  });
});

describe("approval requirement for every approval policy × rule decision", () => {
  const decisions = ["allow", "prompt", "forbidden", "none"] as const;
  const want: Record<ApprovalPolicy, Record<(typeof decisions)[number], ExecApprovalRequirement["kind"]>> = {
    untrusted: { allow: "skip", prompt: "needs_approval", forbidden: "forbidden", none: "needs_approval" },
    "on-failure": { allow: "skip", prompt: "needs_approval", forbidden: "forbidden", none: "skip" },
    "on-request": { allow: "skip", prompt: "needs_approval", forbidden: "forbidden", none: "skip" },
    never: { allow: "skip", prompt: "forbidden", forbidden: "forbidden", none: "skip" },
  };
  const cases = APPROVAL_POLICIES.flatMap((p) => decisions.map((d) => [p, d] as const));
  it.each(cases)("%s + rule %s", async (policy, decision) => {
    const rules: FakeRule[] = decision === "none" ? [] : [{ prefix: ["make"], decision }];
    const admission = await assessWith(fakeDeps, {
      argv: ["make", "all"],
      policy: fakePolicy(rules),
      approvalPolicy: policy,
      sandboxPolicy: workspaceWrite,
      permissions: "use_default",
    });
    expect(admission.requirement.kind).toBe(want[policy][decision]);
    if (admission.requirement.kind === "skip") expect(admission.requirement.bypassSandbox).toBe(decision === "allow");
  });
});

describe("escalation requests are never approvals", () => {
  const base = { argv: ["ls"], policy: null, sandboxPolicy: workspaceWrite, permissions: "require_escalated" as const };
  it("untrusted: a known-safe command that asks to leave the sandbox needs approval", async () => {
    const a = await assessWith(fakeDeps, { ...base, approvalPolicy: "untrusted" });
    expect(a.requirement).toEqual({ kind: "needs_approval", reason: ESCALATION_REASON, proposedAmendment: ["ls"] });
  });
  it("on-failure: needs approval", async () => {
    const a = await assessWith(fakeDeps, { ...base, approvalPolicy: "on-failure" });
    expect(a.requirement.kind).toBe("needs_approval");
  });
  it("never: forbidden", async () => {
    const a = await assessWith(fakeDeps, { ...base, approvalPolicy: "never" });
    expect(a.requirement).toEqual({ kind: "forbidden", reason: NEVER_ESCALATION_REASON });
  });
  it("an explicit allow rule pre-authorises the escalation", async () => {
    const a = await assessWith(fakeDeps, { ...base, policy: fakePolicy([{ prefix: ["ls"], decision: "allow" }]), approvalPolicy: "never" });
    expect(a.requirement).toEqual({ kind: "skip", bypassSandbox: true });
  });
  it("with denied-read paths the request cannot take effect, so it is left alone", async () => {
    const sandboxPolicy: SandboxPolicy = { ...readOnly, deniedReadPaths: ["/secret"] };
    const a = await assessWith(fakeDeps, { ...base, sandboxPolicy, approvalPolicy: "never" });
    expect(a.requirement.kind).toBe("skip");
  });
  it("unrestricted policies have no sandbox to leave", async () => {
    const a = await assessWith(fakeDeps, { ...base, sandboxPolicy: fullAccess, approvalPolicy: "never" });
    expect(a.requirement).toEqual({ kind: "skip", bypassSandbox: false, proposedAmendment: ["ls"] });
  });
});

describe("admission report", () => {
  it("lists segments, matched rules and heuristic verdicts", async () => {
    const a = await assessWith(fakeDeps, {
      argv: ["bash", "-lc", "cat a | grep b && rm -rf c && make"],
      policy: fakePolicy([{ prefix: ["cat"], decision: "allow" }]),
      approvalPolicy: "on-request",
      sandboxPolicy: readOnly,
      permissions: "use_default",
    });
    expect(a.split).toBe("plain");
    expect(a.segments).toEqual([["cat", "a"], ["grep", "b"], ["rm", "-rf", "c"], ["make"]]);
    expect(a.matchedRules.map((m) => m.matchedPrefix)).toEqual([["cat"]]);
    expect(a.unmatched).toEqual([
      { segment: ["grep", "b"], verdict: "known-safe" },
      { segment: ["rm", "-rf", "c"], verdict: "dangerous" },
      { segment: ["make"], verdict: "unknown" },
    ]);
    expect(a.requirement).toEqual({ kind: "needs_approval", proposedAmendment: ["rm", "-rf", "c"] });
  });
  it("a non-wrapper argv is one segment", async () => {
    const a = await assessWith(fakeDeps, { argv: ["ls", "-la"], policy: null, approvalPolicy: "untrusted", sandboxPolicy: readOnly, permissions: "use_default" });
    expect(a.split).toBe("not-a-shell");
    expect(a.segments).toEqual([["ls", "-la"]]);
    expect(a.requirement).toEqual({ kind: "skip", bypassSandbox: false, proposedAmendment: ["ls", "-la"] });
  });
});

describe("dangerous commands hidden in a wrapper that cannot be split", () => {
  const hidden = ["bash", "-lc", 'rm -rf "$X" >/dev/null'];
  const assess = (approvalPolicy: ApprovalPolicy, argv: string[] = hidden, deps: AdmissionDeps = fakeDeps) =>
    assessWith(deps, { argv, policy: null, approvalPolicy, sandboxPolicy: workspaceWrite, permissions: "use_default" });

  it.each([
    ["never", { kind: "forbidden", reason: `\`bash -lc 'rm -rf "$X" >/dev/null'\` rejected: blocked by policy` }],
    ["on-request", { kind: "needs_approval", proposedAmendment: hidden }],
    ["on-failure", { kind: "needs_approval", proposedAmendment: hidden }],
    ["untrusted", { kind: "needs_approval", proposedAmendment: hidden }],
  ] as const)("%s", async (approvalPolicy, expected) => {
    const a = await assess(approvalPolicy);
    expect(a.split).toBe("not-plain");
    expect(a.hiddenDangerous).toEqual([["rm", "-rf", "$X", ">/dev/null"]]);
    expect(a.unmatched).toEqual([{ segment: hidden, verdict: "dangerous" }]);
    expect(a.requirement).toEqual(expected);
  });

  it("asks the literal-command scan only when the plain split fails", async () => {
    const seen: string[][] = [];
    const spy: AdmissionDeps = {
      ...fakeDeps,
      literalCommands: async (argv) => {
        seen.push([...argv]);
        return fakeDeps.literalCommands(argv);
      },
    };
    await assess("on-request", ["bash", "-lc", "ls && pwd"], spy);
    await assess("on-request", ["rm", "-rf", "x"], spy);
    expect(seen).toEqual([]);
    await assess("on-request", hidden, spy);
    expect(seen).toEqual([hidden]);
  });

  it("a not-plain script without a dangerous literal command keeps the ordinary heuristics", async () => {
    const a = await assess("on-request", ["bash", "-lc", "echo hi > out.txt"]);
    expect(a.hiddenDangerous).toBeUndefined();
    expect(a.requirement.kind).toBe("skip");
  });

  it("an explicit rule for the whole wrapper still decides (rules before heuristics)", async () => {
    const a = await assessWith(fakeDeps, {
      argv: hidden,
      policy: fakePolicy([{ prefix: ["bash", "-lc"], decision: "allow" }]),
      approvalPolicy: "never",
      sandboxPolicy: workspaceWrite,
      permissions: "use_default",
    });
    expect(a.requirement).toEqual({ kind: "skip", bypassSandbox: true });
  });
});
