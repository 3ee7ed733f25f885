import { shlexQuote } from "@shellgate/execpolicy";
import type { SandboxPermissions, SandboxPolicy } from "@shellgate/sandbox";
import { escapeForDisplay } from "../output/escape.js";
import type { ApprovalPolicy } from "./approval-policy.js";
import { isRefusedAmendmentPrefix, prefixCovers } from "./amendments.js";
import { stricter, type PolicyDecision, type PolicyEvaluation, type PolicyRuleMatch } from "./policy-types.js";

/**
 * What must happen before a command may run:
 * - `skip`: run without asking (the approval step is skipped, not the command; the value is Codex's
 *   `ExecApprovalRequirement::Skip`, kept so that the two read alike); `bypassSandbox` only when every
 *   segment matched an explicit allow rule;
 * - `needs_approval`: ask first (`reason` only when a rule asked for it);
 * - `forbidden`: never run.
 * `proposedAmendment` is the prefix an "always allow" answer would append to the user's rules.
 */
export type ExecApprovalRequirement =
  | { kind: "skip"; bypassSandbox: boolean; proposedAmendment?: string[] }
  | { kind: "needs_approval"; reason?: string; proposedAmendment?: string[] }
  | { kind: "forbidden"; reason: string };

/** How much the filesystem is restricted: drives the `on-request` heuristic. */
export type FileSystemKind = "restricted" | "unrestricted" | "external";

/** The filesystem kind of a sandbox policy. */
export function fileSystemKind(policy: SandboxPolicy): FileSystemKind {
  switch (policy.mode) {
    case "read-only":
    case "workspace-write":
      return "restricted";
    case "danger-full-access":
      return "unrestricted";
    case "external-sandbox":
      return "external";
  }
}

/** Whether the policy has paths only a sandbox can keep unreadable (they keep the sandbox on, always). */
export function hasDeniedReads(policy: SandboxPolicy): boolean {
  return (policy.mode === "read-only" || policy.mode === "workspace-write") && policy.deniedReadPaths.length > 0;
}

/** Everything about the call, other than its segments, that the requirement depends on. */
export interface RequirementContext {
  /** The command as the model gave it; rendered (quoted) in reasons. */
  argv: readonly string[];
  approvalPolicy: ApprovalPolicy;
  sandboxPolicy: SandboxPolicy;
  permissions: SandboxPermissions;
  /** The prefix the model suggested for "always allow" (`prefix_rule`). */
  prefixRule?: readonly string[];
  /** The segments came from a lossy parse (heredoc form): no amendments, no known-safe shortcut. */
  complexParsing?: boolean;
  /** Whether an allow rule for `prefix` would match `segment`; defaults to `prefixCovers`. */
  covers?: (prefix: readonly string[], segment: readonly string[]) => boolean;
  /** Whether a sandboxed command could write the program at this absolute path: such a segment is never proposed as an amendment. */
  programWritable?: (absolutePath: string) => boolean;
}

/** The facts about one segment the mapping needs. */
export interface SegmentFacts {
  segment: string[];
  /** The rule evaluation of the segment (no matches when no rule applies). */
  evaluation: PolicyEvaluation;
  knownSafe: boolean;
  dangerous: boolean;
}

/** How one segment was decided. */
export interface SegmentVerdict {
  segment: string[];
  source: "rule" | "heuristic";
  decision: PolicyDecision;
  matchedRules: PolicyRuleMatch[];
}

/**
 * The decision for a segment no rule matched (the newest behaviour;
 * `on-failure` keeps the older "allow": the sandbox is tried first and failures are asked about).
 */
export function heuristicDecision(facts: Pick<SegmentFacts, "knownSafe" | "dangerous">, ctx: RequirementContext): PolicyDecision {
  if (facts.knownSafe && !ctx.complexParsing && ctx.approvalPolicy === "untrusted") return "allow";
  if (facts.dangerous) return ctx.approvalPolicy === "never" ? "forbidden" : "prompt";
  switch (ctx.approvalPolicy) {
    case "never":
    case "on-failure":
      return "allow";
    case "untrusted":
      return "prompt";
    case "on-request":
      if (fileSystemKind(ctx.sandboxPolicy) !== "restricted") return "allow";
      return ctx.permissions === "require_escalated" ? "prompt" : "allow";
  }
}

/** Each segment's decision: the strictest rule match, or the heuristic when no rule matched. */
export function decideSegments(segments: readonly SegmentFacts[], ctx: RequirementContext): SegmentVerdict[] {
  return segments.map((s) => {
    const rules = s.evaluation.matchedRules;
    if (rules.length > 0) {
      const decision = s.evaluation.decision ?? rules.map((r) => r.decision).reduce(stricter);
      return { segment: s.segment, source: "rule", decision, matchedRules: rules };
    }
    return { segment: s.segment, source: "heuristic", decision: heuristicDecision(s, ctx), matchedRules: [] };
  });
}

function longest(matches: readonly PolicyRuleMatch[]): PolicyRuleMatch | undefined {
  let best: PolicyRuleMatch | undefined;
  for (const m of matches) if (!best || m.matchedPrefix.length > best.matchedPrefix.length) best = m;
  return best;
}

/** The text Codex uses when `never` meets something that would need approval. */
export const NEVER_PROMPT_REASON = "approval required by policy, but AskForApproval is set to Never";

/**
 * Map per-segment facts to the approval requirement by these rules:
 * strictest segment wins; forbidden carries a reason naming the most specific forbidding rule;
 * prompt becomes `needs_approval` (or `forbidden` under `never`); allow becomes `skip`, bypassing the
 * sandbox only when every segment matched an explicit allow rule.
 */
export function mapToRequirement(segments: readonly SegmentFacts[], ctx: RequirementContext): ExecApprovalRequirement {
  const verdicts = decideSegments(segments, ctx);
  const overall = verdicts.map((v) => v.decision).reduce<PolicyDecision>(stricter, "allow");
  const allMatches = verdicts.flatMap((v) => v.matchedRules);

  if (overall === "forbidden") {
    const cmd = renderCommand(ctx.argv);
    const rule = longest(allMatches.filter((m) => m.decision === "forbidden"));
    if (!rule) return { kind: "forbidden", reason: `\`${cmd}\` rejected: blocked by policy` };
    if (rule.justification) return { kind: "forbidden", reason: `\`${cmd}\` rejected: ${rule.justification}` };
    return { kind: "forbidden", reason: `\`${cmd}\` rejected: policy forbids commands starting with \`${renderCommand(rule.matchedPrefix)}\`` };
  }

  if (overall === "prompt") {
    if (ctx.approvalPolicy === "never") return { kind: "forbidden", reason: NEVER_PROMPT_REASON };
    const promptRule = longest(allMatches.filter((m) => m.decision === "prompt"));
    const requirement: ExecApprovalRequirement = { kind: "needs_approval" };
    if (promptRule) {
      // Rendered only for a message: escaping compiles a Unicode-property regex (~1 ms on first use),
      // which a command that is simply allowed never needs.
      const cmd = renderCommand(ctx.argv);
      requirement.reason = promptRule.justification
        ? `\`${cmd}\` requires approval: ${promptRule.justification}`
        : `\`${cmd}\` requires approval by policy`;
    }
    const amendment = promptAmendment(verdicts, segments, ctx, promptRule !== undefined);
    if (amendment) requirement.proposedAmendment = amendment;
    return requirement;
  }

  const bypassSandbox = verdicts.every((v) => v.source === "rule" && v.decision === "allow");
  const requirement: ExecApprovalRequirement = { kind: "skip", bypassSandbox };
  if (!ctx.complexParsing && allMatches.length === 0) {
    const first = verdicts.find((v) => v.source === "heuristic" && v.decision === "allow");
    if (first && proposable(first.segment, ctx)) requirement.proposedAmendment = [...first.segment];
  }
  return requirement;
}

function promptAmendment(
  verdicts: readonly SegmentVerdict[],
  segments: readonly SegmentFacts[],
  ctx: RequirementContext,
  promptRuleMatched: boolean,
): string[] | undefined {
  if (ctx.complexParsing) return undefined;
  const requested = ctx.prefixRule;
  const anyRuleMatched = verdicts.some((v) => v.source === "rule");
  if (requested && requested.length > 0 && !isRefusedAmendmentPrefix(requested) && !anyRuleMatched) {
    // Would allowing the requested prefix approve the whole command? Segments it covers become
    // allow; the others keep their heuristic decision.
    const covers = ctx.covers ?? prefixCovers;
    const approvesAll = segments.every((s) => covers(requested, s.segment) || heuristicDecision(s, ctx) === "allow");
    if (approvesAll) return [...requested];
  }
  if (!promptRuleMatched) {
    const first = verdicts.find((v) => v.source === "heuristic" && v.decision === "prompt");
    // Beyond Codex (which filters only the model's request): a segment that lets any code through
    // (`python3 -q`, `env -i`) is not proposed either, nor a program the sandbox could have written.
    if (first && proposable(first.segment, ctx)) return [...first.segment];
  }
  return undefined;
}

/** Whether a segment may be offered as its own "always allow" prefix. */
function proposable(segment: readonly string[], ctx: RequirementContext): boolean {
  if (isRefusedAmendmentPrefix(segment)) return false;
  const program = segment[0] ?? "";
  return !(program.startsWith("/") && ctx.programWritable?.(program) === true);
}

/**
 * An argv rendered as one shell-quoted line, for messages (never executed). Control and invisible
 * characters are escaped visibly: these lines reach people (refusals, approval reasons).
 */
export function renderCommand(argv: readonly string[]): string {
  return escapeForDisplay(argv.map(shlexQuote).join(" "));
}
