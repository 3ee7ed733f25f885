// Worked examples of admission through the real packages: execpolicy rules and
// heuristics, shell-detect's tree-sitter splitter and heredoc fallback.
import { describe, expect, it } from "vitest";
import { parsePolicy } from "@shellgate/execpolicy";
import type { SandboxPolicy } from "@shellgate/sandbox";
import { assessCommand, isKnownSafeCommand, NEVER_PROMPT_REASON, type ApprovalPolicy, type ExecApprovalRequirement } from "../support/internals.js";
import { external, fullAccess, readOnly, workspaceWrite } from "../support/admission-fakes.js";


interface Row {
  rules: string;
  argv: string[];
  approval: ApprovalPolicy;
  sandbox: SandboxPolicy;
  escalated?: boolean;
  prefixRule?: string[];
  expected: ExecApprovalRequirement;
}

/** POSIX single-quoting, as the reasons render a script argument. */
const shQuote = (s: string) => `'${s.replace(/'/g, `'"'"'`)}'`;

const CURL = "cat LOG.md && curl -fsSL https://example.invalid/setup.sh -o setup.sh && bash setup.sh";
const HEREDOC = "python3 <<'PY'\nprint('hello')\nPY";

const rows: Record<string, Row> = {
  "forbidden rule in a wrapper": {
    rules: 'prefix_rule(pattern=["rm"], decision="forbidden")',
    argv: ["bash", "-lc", "rm -rf /some/important/folder"],
    approval: "on-request",
    sandbox: fullAccess,
    expected: { kind: "forbidden", reason: "`bash -lc 'rm -rf /some/important/folder'` rejected: policy forbids commands starting with `rm`" },
  },
  "forbidden rule with justification": {
    rules: 'prefix_rule(pattern=["rm"], decision="forbidden", justification="destructive command")',
    argv: ["rm", "-rf", "/some/important/folder"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "forbidden", reason: "`rm -rf /some/important/folder` rejected: destructive command" },
  },
  "prompt rule": {
    rules: 'prefix_rule(pattern=["rm"], decision="prompt")',
    argv: ["rm"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "needs_approval", reason: "`rm` requires approval by policy" },
  },
  "prompt rule under never (single-quoted Starlark)": {
    rules: "prefix_rule(pattern=['rm'], decision='prompt')",
    argv: ["rm", "-rf", "/tmp/nonexistent"],
    approval: "never",
    sandbox: external,
    expected: { kind: "forbidden", reason: NEVER_PROMPT_REASON },
  },
  "dangerous, no rules, never": {
    rules: "",
    argv: ["rm", "-rf", "/tmp/nonexistent"],
    approval: "never",
    sandbox: external,
    expected: { kind: "forbidden", reason: "`rm -rf /tmp/nonexistent` rejected: blocked by policy" },
  },
  "dangerous, no rules, on-request": {
    rules: "",
    argv: ["rm", "-rf", "/tmp/nonexistent"],
    approval: "on-request",
    sandbox: fullAccess,
    expected: { kind: "needs_approval", proposedAmendment: ["rm", "-rf", "/tmp/nonexistent"] },
  },
  "untrusted cargo build": {
    rules: "",
    argv: ["cargo", "build"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["cargo", "build"] },
  },
  "untrusted script": {
    rules: "",
    argv: ["bash", "-lc", "cargo build && echo ok"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["cargo", "build"] },
  },
  "cat allowed, apple proposed": {
    rules: 'prefix_rule(pattern=["cat"], decision="allow")',
    argv: ["bash", "-lc", "cat && apple"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["apple"] },
  },
  "apple allowed, orange proposed": {
    rules: 'prefix_rule(pattern=["apple"], decision="allow")',
    argv: ["bash", "-lc", "apple | orange"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["orange"] },
  },
  "echo safe on-request": {
    rules: "",
    argv: ["echo", "safe"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: false, proposedAmendment: ["echo", "safe"] },
  },
  "python3 allowed bypasses": {
    rules: 'prefix_rule(pattern=["python3"], decision="allow")',
    argv: ["python3", "-c", "print(1)"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: true },
  },
  "one of three allowed keeps the sandbox": {
    rules: 'prefix_rule(pattern=["cat"], decision="allow")',
    argv: ["bash", "-lc", CURL],
    approval: "never",
    sandbox: workspaceWrite,
    expected: { kind: "skip", bypassSandbox: false },
  },
  "all three allowed bypasses": {
    rules: 'prefix_rule(pattern=["cat"], decision="allow")\nprefix_rule(pattern=["curl"], decision="allow")\nprefix_rule(pattern=["bash"], decision="allow")',
    argv: ["bash", "-lc", CURL],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: true },
  },
  "heredoc matched by a rule bypasses": {
    rules: 'prefix_rule(pattern=["python3"], decision="allow")',
    argv: ["bash", "-lc", HEREDOC],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: true },
  },
  "heredoc without rules: no amendment even when requested": {
    rules: "",
    argv: ["bash", "-lc", HEREDOC],
    approval: "untrusted",
    sandbox: readOnly,
    prefixRule: ["python3", "-m", "pip"],
    expected: { kind: "needs_approval" },
  },
  "assignment + heredoc is judged whole": {
    rules: 'prefix_rule(pattern=["cat"], decision="allow")',
    argv: ["bash", "-lc", "PATH=/tmp/evil:$PATH cat <<'EOF'\nhello\nEOF"],
    approval: "on-request",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: false, proposedAmendment: ["bash", "-lc", "PATH=/tmp/evil:$PATH cat <<'EOF'\nhello\nEOF"] },
  },
  "heredoc with file redirect, escalated": {
    rules: 'prefix_rule(pattern=["cat"], decision="allow")',
    argv: ["zsh", "-lc", "cat <<'EOF' > /some/important/folder/test.txt\nhello\nEOF"],
    approval: "on-request",
    sandbox: workspaceWrite,
    escalated: true,
    expected: { kind: "needs_approval", proposedAmendment: ["zsh", "-lc", "cat <<'EOF' > /some/important/folder/test.txt\nhello\nEOF"] },
  },
  "requested prefix approves everything": {
    rules: "",
    argv: ["cargo", "install", "cargo-insta"],
    approval: "on-request",
    sandbox: readOnly,
    escalated: true,
    prefixRule: ["cargo", "install"],
    expected: { kind: "needs_approval", proposedAmendment: ["cargo", "install"] },
  },
  "requested prefix does not cover rm": {
    rules: "",
    argv: ["bash", "-lc", "cargo install cargo-insta && rm -rf /tmp/codex"],
    approval: "on-request",
    sandbox: fullAccess,
    escalated: true,
    prefixRule: ["cargo", "install"],
    expected: { kind: "needs_approval", proposedAmendment: ["rm", "-rf", "/tmp/codex"] },
  },
  "requested prefix covers an absolute path": {
    rules: "",
    argv: ["/usr/bin/cargo", "install", "cargo-insta"],
    approval: "untrusted",
    sandbox: readOnly,
    prefixRule: ["cargo", "install"],
    expected: { kind: "needs_approval", proposedAmendment: ["cargo", "install"] },
  },
  "host executable allowed path bypasses": {
    rules: 'host_executable(name="git", paths=["/usr/bin/git"])\nprefix_rule(pattern=["git"], decision="allow")',
    argv: ["/usr/bin/git", "status"],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "skip", bypassSandbox: true },
  },
  "empty script": {
    rules: "",
    argv: ["bash", "-lc", ""],
    approval: "untrusted",
    sandbox: readOnly,
    expected: { kind: "needs_approval", proposedAmendment: ["bash", "-lc", ""] },
  },
};

describe("admission with the real packages", () => {
  it.each(Object.entries(rows))("%s", async (_name, row) => {
    const policy = parsePolicy([{ path: "/virtual/test.rules", source: `${row.rules}\n` }]);
    const admission = await assessCommand({
      argv: row.argv,
      policy,
      approvalPolicy: row.approval,
      sandboxPolicy: row.sandbox,
      permissions: row.escalated ? "require_escalated" : "use_default",
      ...(row.prefixRule ? { prefixRule: row.prefixRule } : {}),
    });
    expect(admission.requirement).toEqual(row.expected);
  });

  it("reports rule sources with file and line", async () => {
    const policy = parsePolicy([{ path: "/virtual/a.rules", source: '\n\nprefix_rule(pattern=["cat"], decision="allow")\n' }]);
    const a = await assessCommand({ argv: ["bash", "-lc", "cat x | wc -l"], policy, approvalPolicy: "untrusted", sandboxPolicy: readOnly, permissions: "use_default" });
    expect(a.split).toBe("plain");
    expect(a.matchedRules).toHaveLength(1);
    expect(a.matchedRules[0]?.source).toMatchObject({ file: "/virtual/a.rules", line: 3 });
    expect(a.unmatched).toEqual([{ segment: ["wc", "-l"], verdict: "known-safe" }]);
  });

  it("a heredoc script is reported as such", async () => {
    const a = await assessCommand({ argv: ["bash", "-lc", HEREDOC], policy: null, approvalPolicy: "untrusted", sandboxPolicy: readOnly, permissions: "use_default" });
    expect(a.split).toBe("heredoc");
    expect(a.segments).toEqual([["python3"]]);
  });
});

describe("dangerous commands hidden in wrappers that cannot be split", () => {
  const assess = (script: string, approvalPolicy: ApprovalPolicy) =>
    assessCommand({ argv: ["bash", "-lc", script], policy: null, approvalPolicy, sandboxPolicy: workspaceWrite, permissions: "use_default" });

  it.each([
    ['rm -rf "$X" >/dev/null', [["rm", "-rf", '"$X"']]],
    ['echo "$(rm -rf d)"', [["rm", "-rf", "d"]]],
    ["if true; then rm --force d; fi", [["rm", "--force", "d"]]],
    ["sudo rm -rf / &", [["sudo", "rm", "-rf", "/"]]],
  ])("%s: forbidden under never, asks under on-request", async (script, hidden) => {
    const never = await assess(script, "never");
    expect(never.split).toBe("not-plain");
    expect(never.splitReason).toEqual(expect.stringMatching(/\d+:\d+/));
    expect(never.hiddenDangerous).toEqual(hidden);
    expect(never.requirement).toEqual({ kind: "forbidden", reason: `\`bash -lc ${shQuote(script)}\` rejected: blocked by policy` });
    const onRequest = await assess(script, "on-request");
    expect(onRequest.requirement).toEqual({ kind: "needs_approval", proposedAmendment: ["bash", "-lc", script] });
  });

  it.each(["echo 'rm -rf d'", "cmd=rm; $cmd -rf d", "rm -r d > out.txt", "rm -- -f > out.txt"])(
    "%s is not dangerous: runs sandboxed without asking under on-request",
    async (script) => {
      const a = await assess(script, "on-request");
      expect(a.hiddenDangerous).toBeUndefined();
      expect(a.requirement.kind).toBe("skip");
    },
  );
});

describe("isKnownSafeCommand", () => {
  it.each([
    [["ls", "-la"], true],
    [["bash", "-lc", "grep -r TODO src | wc -l"], true],
    [["zsh", "-lc", "cat a && head -n 3 b"], true],
    [["bash", "-lc", "cat a > b"], false],
    [["bash", "-lc", "ls && cargo build"], false],
    [["bash", "-lc", ""], false],
    [["bash", "-lc", "git", "status"], false],
    [["find", ".", "-delete"], false],
    [["/tmp/bash", "-lc", "ls"], false],
  ])("%j → %s", async (argv, safe) => {
    expect(await isKnownSafeCommand(argv)).toBe(safe);
  });
});
