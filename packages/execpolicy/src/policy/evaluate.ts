/** Evaluation of one command against a set of rules: exact pass, then the host-executable fallback. */
import { basename, resolveProgramPath } from "./host-path.js";
import type { RawMatch } from "./matcher.js";
import { DECISION_RANK } from "./types.js";
import type { Decision, Evaluation, EvaluateOptions, RuleMatch } from "./types.js";

/** Finds the rules keyed on `program` that match `argv` (argv[0] stands for `program`). */
export type ProgramMatcher = (program: string, argv: readonly string[]) => RawMatch[] | undefined;

/**
 * Evaluate `argv`: exact pass, then (when enabled and the exact pass found nothing) basename fallback.
 * `otherSpellings` are other rule programs that name the same command (a PowerShell command in another
 * case, alias or qualification): their rules apply only to forbid or ask, never to allow, so a rule
 * allows exactly the spelling it names while no spelling escapes a rule that forbids.
 */
export function evaluateCommand(
  match: ProgramMatcher,
  hostExecutables: ReadonlyMap<string, readonly string[]>,
  argv: readonly string[],
  options: EvaluateOptions | undefined,
  otherSpellings: readonly string[] = [],
): Evaluation {
  const own = evaluateAsWritten(match, hostExecutables, argv, options);
  const stricter: RuleMatch[] = [];
  for (const spelling of otherSpellings) {
    const raw = match(spelling, argv)?.filter((m) => m.rule.decision !== "allow");
    if (raw && raw.length > 0) stricter.push(...build(raw, argv, spelling, undefined).matchedRules);
  }
  if (stricter.length === 0) return own;
  const matchedRules = [...own.matchedRules, ...stricter];
  return { decision: strictestDecision(matchedRules.map((m) => m.decision))!, matchedRules };
}

function evaluateAsWritten(
  match: ProgramMatcher,
  hostExecutables: ReadonlyMap<string, readonly string[]>,
  argv: readonly string[],
  options: EvaluateOptions | undefined,
): Evaluation {
  const program = argv[0];
  if (program === undefined) return { matchedRules: [] };
  const exact = match(program, argv);
  if (exact) return build(exact, argv, program, undefined);
  if (!options?.resolveHostExecutables) return { matchedRules: [] };
  const fb = fallbackProgram(program, hostExecutables, options.cwd);
  if (!fb) return { matchedRules: [] };
  const viaBase = match(fb.base, argv);
  if (!viaBase) return { matchedRules: [] };
  return build(viaBase, argv, fb.base, fb.resolved);
}

/**
 * The basename a program token may fall back to, or `null` when it may not: the token must be a
 * path (absolute, `~/`, or relative with a slash), and when `host_executable(base)` exists the
 * normalised path must be one of its listed paths.
 */
export function fallbackProgram(
  program: string,
  hostExecutables: ReadonlyMap<string, readonly string[]>,
  cwd: string = process.cwd(),
): { base: string; resolved: string } | null {
  const resolved = resolveProgramPath(program, cwd);
  if (resolved === null) return null;
  const base = basename(resolved);
  if (base === "") return null;
  const allowed = hostExecutables.get(base);
  if (allowed && !allowed.includes(resolved)) return null;
  return { base, resolved };
}

function build(raw: RawMatch[], argv: readonly string[], program: string, resolvedProgram: string | undefined): Evaluation {
  let rank = -1;
  let decision: Decision = "allow";
  const matchedRules: RuleMatch[] = new Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const { rule, length } = raw[i]!;
    const matchedPrefix = argv.slice(0, length) as string[];
    matchedPrefix[0] = program;
    const m: RuleMatch = { kind: "prefix", matchedPrefix, decision: rule.decision, source: rule.source };
    if (resolvedProgram !== undefined) m.resolvedProgram = resolvedProgram;
    if (rule.justification !== undefined) m.justification = rule.justification;
    if (rule.sandbox !== undefined) m.sandbox = rule.sandbox;
    if (rule.network !== undefined) m.network = rule.network;
    matchedRules[i] = m;
    const r = DECISION_RANK[rule.decision];
    if (r > rank) {
      rank = r;
      decision = rule.decision;
    }
  }
  return { decision, matchedRules };
}

/** The strictest decision among several evaluations (e.g. the segments of one shell script). */
export function strictestDecision(decisions: ReadonlyArray<Decision | undefined>): Decision | undefined {
  let best: Decision | undefined;
  for (const d of decisions) if (d !== undefined && (best === undefined || DECISION_RANK[d] > DECISION_RANK[best])) best = d;
  return best;
}
