import path from "node:path";
import { isDangerousArgv, isKnownSafeArgv } from "@shellgate/execpolicy";
import type { SandboxPermissions, SandboxPolicy } from "@shellgate/sandbox";
import { literalCommands, splitHeredocCommand, splitShellCommand, type ScriptDialect } from "@shellgate/shell-detect";
import type { ApprovalPolicy } from "./approval-policy.js";
import { prefixCovers } from "./amendments.js";
import { applyEscalationGuard } from "./escalation.js";
import type { PolicyEvaluator, PolicyRuleMatch } from "./policy-types.js";
import type { SandboxWrittenCode } from "./sandbox-written-code.js";
import type { PolicyDecision } from "./policy-types.js";
import {
  decideSegments,
  mapToRequirement,
  type ExecApprovalRequirement,
  type RequirementContext,
  type SegmentFacts,
} from "./requirement.js";

/**
 * The language a command's words come from (shell-detect's own type): `powershell` for a command of a
 * `pwsh`/`powershell` script, judged by PowerShell's names and parameter rules; absent for a POSIX shell's.
 */
export type { ScriptDialect };

/** What the heuristics are told about a command besides its words. */
export interface HeuristicCallOptions {
  dialect?: ScriptDialect;
}

/** How a shell wrapper was split: the shape of `@shellgate/shell-detect`'s `SplitResult`. */
export type SplitOutcome =
  | {
      kind: "plain";
      commands: string[][];
      /** Per command: an unquoted glob expands to file names the workspace chose; such a command is never known-safe. */
      globbed?: boolean[];
      /** The script's language when it is not a POSIX shell's: its commands are judged in it. */
      dialect?: ScriptDialect;
    }
  | { kind: "not-plain"; reason: string; dialect?: ScriptDialect }
  | { kind: "not-a-shell" };

/** The heredoc fallback's result: the shape of `@shellgate/shell-detect`'s `HeredocSplit`. */
export type HeredocOutcome =
  | { kind: "heredoc-command"; command: string[] }
  | { kind: "not-plain"; reason: string }
  | { kind: "not-a-shell" };

/** The classifiers admission uses; the defaults are the real packages, tests may substitute. */
export interface AdmissionDeps {
  splitShellCommand(argv: readonly string[]): Promise<SplitOutcome>;
  /** The "complex parsing" fallback for one command fed by heredocs; absent means no fallback. */
  splitHeredocCommand?(argv: readonly string[]): Promise<HeredocOutcome>;
  /**
   * Every literal command anywhere in a `bash|zsh|sh -c/-lc` wrapper's script (inside pipelines,
   * control flow, redirected statements, `$(...)`), or `undefined` when argv is no such wrapper or the
   * script does not parse: the shape of `@shellgate/shell-detect`'s `literalCommands` (for a PowerShell
   * script, its commands, judged in the language the split names). Consulted only when the plain split
   * fails, so a dangerous command cannot hide behind a redirect or a substitution.
   */
  literalCommands(argv: readonly string[]): Promise<string[][] | undefined>;
  /** Judges one command; `opts.dialect` names the script language it came from (POSIX when absent). */
  isKnownSafeArgv(argv: readonly string[], opts?: HeuristicCallOptions): boolean;
  isDangerousArgv(argv: readonly string[], opts?: HeuristicCallOptions): boolean;
}

/** What admission needs to know about a call. */
export interface AdmissionInput {
  argv: readonly string[];
  /** The loaded rules; `null` when there are none (every segment goes to the heuristics). */
  policy: PolicyEvaluator | null;
  approvalPolicy: ApprovalPolicy;
  sandboxPolicy: SandboxPolicy;
  permissions: SandboxPermissions;
  /** The model's suggested "always allow" prefix (`prefix_rule`). */
  prefixRule?: readonly string[];
  /**
   * Whether a sandboxed command of this session could write the program at this absolute path (a
   * symlink on the way counts). A suggested prefix never covers such a program through the
   * host-executable fallback. Absent: only relative paths are refused that way.
   */
  programWritable?: (absolutePath: string) => boolean;
}

/** The heuristic verdict for a segment no rule matched. */
export type HeuristicVerdict = "known-safe" | "dangerous" | "unknown";

/** Everything admission decided, and why: enough for `shellgate check` to explain it. */
export interface Admission {
  /** The command segments that were judged (the whole argv when the wrapper could not be split). */
  segments: string[][];
  /**
   * How the argv was split: `plain` script commands; `heredoc` = the one command of a heredoc script
   * (rule matching only: no known-safe shortcut, no amendments); otherwise judged whole.
   */
  split: "plain" | "heredoc" | "not-plain" | "not-a-shell";
  /**
   * Why a shell wrapper's script was judged whole (`split` is `not-plain`): the construct and where it
   * is (`command substitution at 1:6`), or that the shell's scripts are not parsed (`cmd.exe`).
   */
  splitReason?: string;
  /** Every rule that matched any segment, in segment order. */
  matchedRules: PolicyRuleMatch[];
  /** Segments no rule matched, with their heuristic verdict. */
  unmatched: Array<{ segment: string[]; verdict: HeuristicVerdict }>;
  /** Per segment, in order: its rules (or heuristic verdict) and the decision they gave. */
  details: SegmentDetail[];
  /**
   * Dangerous commands found inside a wrapper that could not be split plainly (`bash -lc 'rm -rf "$X"
   * >/dev/null'`); when present, every judged segment counts as dangerous. Absent when none were found.
   */
  hiddenDangerous?: string[][];
  /**
   * Segments the dangerous-command heuristic flags, whether or not a rule matched them (a rule may
   * decide, but "always allow" is never offered for them). Absent when none.
   */
  dangerousSegments?: string[][];
  requirement: ExecApprovalRequirement;
  /**
   * What a run outside the sandbox would execute that a sandboxed command could have written; set by
   * the pipeline when such a run was on the table (allow rules, an escalation request). `kept`: the
   * allow rules' bypass was withheld for it, and `requirement` is the withheld one.
   */
  sandboxWritten?: { found: SandboxWrittenCode[]; kept: boolean };
  /**
   * The language of the script the segments (or, for a script that is not plain, its literal commands)
   * came from, when it is not a POSIX shell's; anything judging a segment again (the "always allow"
   * offer) judges it in this language. Absent for POSIX shells and commands that are no script.
   */
  dialect?: ScriptDialect;
}

/** How one segment was judged. */
export interface SegmentDetail {
  segment: string[];
  source: "rule" | "heuristic";
  decision: PolicyDecision;
  matchedRules: PolicyRuleMatch[];
  /** Present when no rule matched. */
  verdict?: HeuristicVerdict;
}

function verdictOf(f: SegmentFacts): HeuristicVerdict {
  return f.dangerous ? "dangerous" : f.knownSafe ? "known-safe" : "unknown";
}

/**
 * Decide what must happen before `argv` may run: split shell wrappers into segments, evaluate each
 * against the rules (host-executable resolution on), send unmatched segments through the heuristics,
 * and map the result to an approval requirement. Runs nothing.
 */
export async function assessWith(deps: AdmissionDeps, input: AdmissionInput): Promise<Admission> {
  const split = await deps.splitShellCommand(input.argv);
  let splitKind: Admission["split"] = split.kind;
  let segments: string[][] =
    split.kind === "plain" && split.commands.length > 0 ? split.commands.map((c) => [...c]) : [[...input.argv]];
  if (split.kind === "not-plain" && deps.splitHeredocCommand) {
    const heredoc = await deps.splitHeredocCommand(input.argv);
    if (heredoc.kind === "heredoc-command") {
      splitKind = "heredoc";
      segments = [[...heredoc.command]];
    }
  }
  const complexParsing = splitKind === "heredoc";
  // A script that is not plain is judged whole, and the plain split cannot see into it; look at every
  // literal command instead: any literal command anywhere in the script counts, so none can hide.
  const dialect = split.kind === "plain" || split.kind === "not-plain" ? split.dialect : undefined;
  const hiddenDangerous = split.kind === "not-plain" ? await hiddenDangerousCommands(deps, input.argv, dialectOptions(dialect)) : [];
  // Only the plain split's commands are in the script's language; a script judged whole is the wrapper's argv.
  const segmentOptions = splitKind === "plain" ? dialectOptions(dialect) : {};

  // A glob's words come from the directory's file names (`sed -n 1p *` with a file `-e1e touch X`),
  // so the arguments seen here are not the ones the program gets: never known-safe.
  const globbed = (i: number) => split.kind === "plain" && split.globbed?.[i] === true;
  const facts: SegmentFacts[] = segments.map((segment, i) => {
    const evaluation = input.policy?.evaluate(segment, { resolveHostExecutables: true, ...segmentOptions }) ?? { matchedRules: [] };
    return {
      segment,
      evaluation,
      knownSafe: !complexParsing && hiddenDangerous.length === 0 && !globbed(i) && deps.isKnownSafeArgv(segment, segmentOptions),
      dangerous: hiddenDangerous.length > 0 || deps.isDangerousArgv(segment, segmentOptions),
    };
  });

  const ctx: RequirementContext = {
    argv: input.argv,
    approvalPolicy: input.approvalPolicy,
    sandboxPolicy: input.sandboxPolicy,
    permissions: input.permissions,
  };
  if (complexParsing) ctx.complexParsing = true;
  if (input.prefixRule) ctx.prefixRule = input.prefixRule;
  const policy = input.policy;
  const programWritable = input.programWritable ?? (() => false);
  if (input.programWritable) ctx.programWritable = input.programWritable;
  if (policy?.withPrefixRule) {
    // The real matcher, host-executable resolution included, with the candidate rule added; but the
    // basename fallback never lets `npm test` cover `./npm test` or a program the sandbox can write.
    ctx.covers = (prefix, segment) => {
      const evaluation = policy.withPrefixRule?.(prefix, "allow").evaluate(segment, { resolveHostExecutables: true });
      if (evaluation?.decision !== "allow") return false;
      if (!evaluation.matchedRules.some((m) => m.resolvedProgram !== undefined)) return true;
      const program = segment[0] ?? "";
      return path.isAbsolute(program) && !programWritable(program);
    };
  } else {
    ctx.covers = (prefix, segment) => prefixCovers(prefix, segment, programWritable);
  }
  const requirement = applyEscalationGuard(mapToRequirement(facts, ctx), ctx);
  const details: SegmentDetail[] = decideSegments(facts, ctx).map((v, i) =>
    v.source === "rule" ? { ...v } : { ...v, verdict: verdictOf(facts[i]!) },
  );

  const dangerousSegments = [...hiddenDangerous, ...facts.filter((f) => deps.isDangerousArgv(f.segment, segmentOptions)).map((f) => [...f.segment])];
  return {
    segments,
    split: splitKind,
    ...(splitKind === "not-plain" && split.kind === "not-plain" ? { splitReason: split.reason } : {}),
    matchedRules: facts.flatMap((f) => f.evaluation.matchedRules),
    unmatched: facts
      .filter((f) => f.evaluation.matchedRules.length === 0)
      .map((f) => ({ segment: f.segment, verdict: verdictOf(f) })),
    details,
    ...(hiddenDangerous.length > 0 ? { hiddenDangerous } : {}),
    ...(dangerousSegments.length > 0 ? { dangerousSegments } : {}),
    requirement,
    ...(dialect ? { dialect } : {}),
  };
}

/** The options that tell a heuristic a command's language (none for POSIX). */
export function dialectOptions(dialect: ScriptDialect | undefined): HeuristicCallOptions {
  return dialect ? { dialect } : {};
}

/** The literal commands of a wrapper's script that the dangerous-command heuristic flags. */
async function hiddenDangerousCommands(deps: AdmissionDeps, argv: readonly string[], opts: HeuristicCallOptions): Promise<string[][]> {
  const literal = await deps.literalCommands(argv);
  return (literal ?? []).filter((command) => command.length > 0 && deps.isDangerousArgv(command, opts)).map((c) => [...c]);
}

/** Whether every segment of `argv` (a shell wrapper is split first) is a known-safe read-only command. */
export async function isKnownSafeWith(deps: AdmissionDeps, argv: readonly string[]): Promise<boolean> {
  const normalised = argv.map((a) => (a === "zsh" ? "bash" : a));
  if (deps.isKnownSafeArgv(normalised)) return true;
  const split = await deps.splitShellCommand(normalised);
  return (
    split.kind === "plain" &&
    split.commands.length > 0 &&
    split.commands.every((c, i) => split.globbed?.[i] !== true && deps.isKnownSafeArgv(c, dialectOptions(split.dialect)))
  );
}

/** The real classifiers: shell-detect's splitters and literal-command scan, execpolicy's heuristics. */
export const DEFAULT_ADMISSION_DEPS: AdmissionDeps = Object.freeze({
  splitShellCommand,
  splitHeredocCommand,
  literalCommands,
  isKnownSafeArgv: (argv: readonly string[], opts?: HeuristicCallOptions) => isKnownSafeArgv(argv, dialectOptions(opts?.dialect)),
  isDangerousArgv: (argv: readonly string[], opts?: HeuristicCallOptions) => isDangerousArgv(argv, dialectOptions(opts?.dialect)),
});

/**
 * Decide what must happen before `input.argv` may run, with the real classifiers (shell-detect's
 * splitters, execpolicy's heuristics) unless `deps` substitutes them. Runs nothing.
 */
export async function assessCommand(input: AdmissionInput, deps: AdmissionDeps = DEFAULT_ADMISSION_DEPS): Promise<Admission> {
  return assessWith(deps, input);
}

/**
 * Whether `argv` is a known-safe read-only command; a `bash|zsh|sh -c/-lc` wrapper (or a PowerShell
 * one, judged in PowerShell's terms) is safe when its script splits into plain commands that are all
 * safe. Used to mark tool calls as non-mutating.
 */
export async function isKnownSafeCommand(argv: readonly string[], deps: AdmissionDeps = DEFAULT_ADMISSION_DEPS): Promise<boolean> {
  return isKnownSafeWith(deps, argv);
}
