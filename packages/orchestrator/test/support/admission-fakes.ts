// Hand-written stand-ins for the classifiers, so the mapping tables are tested independently of the
// packages that implement them. Real-package tests live in admission-real.test.ts.
import path from "node:path";
import type { AdmissionDeps, PolicyDecision, PolicyEvaluator, PolicyRuleMatch, SplitOutcome } from "./internals.js";
import type { DangerFullAccessPolicy, ExternalSandboxPolicy, ReadOnlyPolicy, WorkspaceWritePolicy } from "@shellgate/sandbox";

export interface FakeRule {
  prefix: string[];
  decision: PolicyDecision;
  justification?: string;
  sandbox?: "read-only" | "workspace-write";
  network?: string[];
}

/** A policy that matches literal prefixes, with the absolute-path basename fallback. */
export function fakePolicy(rules: FakeRule[], networkRules: PolicyEvaluator["networkRules"] = []): PolicyEvaluator {
  return {
    networkRules,
    evaluate(argv) {
      const matchedRules: PolicyRuleMatch[] = [];
      rules.forEach((rule, i) => {
        const [head, ...rest] = rule.prefix;
        const program = argv[0] ?? "";
        const headOk = program === head || (path.isAbsolute(program) && path.basename(program) === head);
        if (headOk && argv.length >= rule.prefix.length && rest.every((t, j) => argv[j + 1] === t)) {
          const m: PolicyRuleMatch = {
            kind: "prefix",
            matchedPrefix: [...rule.prefix],
            decision: rule.decision,
            source: { file: "/fake/default.rules", line: i + 1, column: 1 },
          };
          if (rule.justification) m.justification = rule.justification;
          if (rule.sandbox) m.sandbox = rule.sandbox;
          if (rule.network) m.network = rule.network;
          matchedRules.push(m);
        }
      });
      const order: PolicyDecision[] = ["forbidden", "prompt", "allow"];
      const decision = order.find((d) => matchedRules.some((m) => m.decision === d));
      return decision ? { decision, matchedRules } : { matchedRules };
    },
  };
}

const SAFE = new Set(["cat", "ls", "echo", "grep", "pwd", "wc", "head"]);

/** Whitespace-splitting "parser" for `bash|zsh|sh -c|-lc` scripts made of `&&`, `||`, `;`, `|`. */
export const fakeDeps: AdmissionDeps = {
  async splitShellCommand(argv): Promise<SplitOutcome> {
    if (argv.length !== 3 || !["bash", "zsh", "sh"].includes(argv[0] ?? "") || !["-c", "-lc"].includes(argv[1] ?? "")) {
      return { kind: "not-a-shell" };
    }
    const script = argv[2] ?? "";
    if (/[<>$()`]/.test(script)) return { kind: "not-plain", reason: "complex" };
    const commands = script
      .split(/&&|\|\||;|\|/)
      .map((c) => c.trim())
      .filter((c) => c.length > 0)
      .map((c) => c.split(/\s+/));
    return { kind: "plain", commands };
  },
  // Every command-looking run of words between operators, parentheses and backticks; quotes dropped.
  async literalCommands(argv) {
    if (argv.length !== 3 || !["bash", "zsh", "sh"].includes(argv[0] ?? "") || !["-c", "-lc"].includes(argv[1] ?? "")) {
      return undefined;
    }
    return (argv[2] ?? "")
      .split(/&&|\|\||;|\||\$\(|[()`\n]/)
      .map((c) => c.replace(/['"]/g, "").trim())
      .filter((c) => c.length > 0 && !c.startsWith("$"))
      .map((c) => c.split(/\s+/));
  },
  isKnownSafeArgv: (argv) => SAFE.has(path.basename(argv[0] ?? "")),
  isDangerousArgv: (argv) => path.basename(argv[0] ?? "") === "rm" && argv.some((a) => /^-[a-zA-Z]*f/.test(a) || a === "--force"),
};

/** The four sandbox modes with their defaults spelled out, as the requirement tables use them. */
export const readOnly: ReadOnlyPolicy = { mode: "read-only", deniedReadPaths: [] };
export const workspaceWrite: WorkspaceWritePolicy = {
  mode: "workspace-write",
  writableRoots: [],
  networkAccess: false,
  excludeTmpdirEnvVar: false,
  excludeSlashTmp: false,
  deniedReadPaths: [],
};
export const fullAccess: DangerFullAccessPolicy = { mode: "danger-full-access" };
export const external: ExternalSandboxPolicy = { mode: "external-sandbox", networkAccess: false };
