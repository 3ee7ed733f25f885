/**
 * Compiling policy sources: parse (or take the literal-calls fast path), evaluate, validate the
 * examples of each file. Kept apart from `load.ts` so that a compiled-policy cache hit never loads
 * this module, the chevrotain parser or the interpreter (see `compile-loader.ts`).
 */
import { InvalidArgumentError } from "../errors.js";
import { Interpreter } from "../lang/interpreter.js";
import { parseModule } from "../lang/parser.js";
import { SourceText } from "../lang/source.js";
import { ValueError } from "../lang/values.js";
import type { BuiltinValue } from "../lang/values.js";
import { policyBuiltins } from "./builtins.js";
import type { BuilderState, RuleCall } from "./builtins.js";
import { fallbackProgram } from "./evaluate.js";
import { literalCalls } from "./fast-path.js";
import { MAX_POLICY_FILE_BYTES } from "./load-types.js";
import type { ExampleResult, LoadOptions, PolicySource, RuleExampleReport } from "./load-types.js";
import { ruleMatches } from "./matcher.js";
import type { PolicyContents } from "./policy.js";
import { shlexQuote } from "./shlex.js";
import type { PrefixRule } from "./types.js";

function newState(): BuilderState {
  return { rules: [], hostExecutables: new Map(), networkRules: [], calls: [] };
}

function evaluateFile(src: SourceText, state: BuilderState, options: LoadOptions): void {
  if (src.text.length > MAX_POLICY_FILE_BYTES) {
    throw src.error("FILE_TOO_LARGE", `policy file is larger than ${MAX_POLICY_FILE_BYTES} bytes`, 1, 1);
  }
  state.calls = [];
  const builtins = policyBuiltins(src.file, state);
  const literal = options.fastPath === false ? null : literalCalls(src.text);
  if (literal) {
    for (const call of literal) {
      const fn = builtins.get(call.name) as BuiltinValue;
      try {
        fn.impl({
          args: call.args, kwargs: call.kwargs, pos: { line: call.line, column: 1 },
          invoke: () => null, charge: () => undefined,
        });
      } catch (e) {
        if (e instanceof ValueError) {
          // Same place as the interpreter reports it: the keyword argument an error is about, else the call.
          const k = e.keyword === undefined ? -1 : call.kwargs.findIndex(([name]) => name === e.keyword);
          if (k >= 0) throw src.error(e.code, e.message, call.line, call.kwargColumns[k]!, e.keyword!.length);
          throw src.error(e.code, e.message, call.line, 1, call.name.length);
        }
        throw e;
      }
    }
    return;
  }
  const module = parseModule(src);
  new Interpreter(src, builtins, { maxSteps: options.maxSteps }).run(module);
}

/** Match `argv` against only the rules of one call, with host-executable resolution on. */
function callMatches(call: RuleCall, host: ReadonlyMap<string, readonly string[]>, argv: readonly string[]): PrefixRule | undefined {
  const program = argv[0];
  if (program === undefined) return undefined;
  const direct = call.rules.find((r) => r.program === program && ruleMatches(r, argv));
  if (direct) return direct;
  const fb = fallbackProgram(program, host);
  return fb ? call.rules.find((r) => r.program === fb.base && ruleMatches(r, argv)) : undefined;
}

function describeRule(r: PrefixRule): string {
  const parts = [r.program, ...r.rest.map((alts) => (alts.length === 1 ? alts[0]! : `[${alts.join("|")}]`))];
  return `prefix_rule(${JSON.stringify(parts)}, decision=${r.decision})`;
}

function validateExamples(src: SourceText, state: BuilderState): void {
  for (const call of state.calls) {
    for (const ex of call.notMatch) {
      const hit = callMatches(call, state.hostExecutables, ex);
      if (hit) {
        throw src.error("EXAMPLE_UNEXPECTEDLY_MATCHED",
          `expected example to not match rule \`${describeRule(hit)}\`: ${ex.map(shlexQuote).join(" ")}`,
          call.source.line, call.source.column);
      }
    }
  }
  for (const call of state.calls) {
    const unmatched = call.match.filter((ex) => !callMatches(call, state.hostExecutables, ex));
    if (unmatched.length) {
      throw src.error("EXAMPLE_NOT_MATCHED",
        `expected every example to match at least one rule. rules: [${call.rules.map(describeRule).join(", ")}]; unmatched examples: [${unmatched.map((ex) => ex.map(shlexQuote).join(" ")).join(", ")}]`,
        call.source.line, call.source.column);
    }
  }
}

function checkSources(sources: unknown): asserts sources is PolicySource[] {
  if (!Array.isArray(sources)) throw new InvalidArgumentError("sources", "expected an array of { path, source }");
  sources.forEach((s, i) => {
    if (typeof s !== "object" || s === null || typeof (s as PolicySource).path !== "string" || typeof (s as PolicySource).source !== "string") {
      throw new InvalidArgumentError(`sources[${i}]`, "expected { path: string, source: string }");
    }
  });
}

/** Compile sources in order into policy contents (rules accumulate; examples checked per file). */
export function compileSources(sources: PolicySource[], options: LoadOptions): PolicyContents {
  checkSources(sources);
  const state = newState();
  for (const { path, source } of sources) {
    const src = new SourceText(path, source);
    evaluateFile(src, state, options);
    if (options.validateExamples !== false) validateExamples(src, state);
  }
  return { files: sources.map((s) => s.path), rules: state.rules, hostExecutables: state.hostExecutables, networkRules: state.networkRules };
}

/**
 * Run every `match`/`not_match` example of every `prefix_rule` call and report each outcome
 * instead of failing at the first one (for `policy-check test`). Syntax and evaluation errors
 * still throw.
 */
export function collectExampleResults(sources: PolicySource[], options: LoadOptions = {}): RuleExampleReport[] {
  checkSources(sources);
  const state = newState();
  const reports: RuleExampleReport[] = [];
  for (const { path, source } of sources) {
    const src = new SourceText(path, source);
    evaluateFile(src, state, options);
    for (const call of state.calls) {
      const first = call.rules[0]!;
      const programs = call.rules.map((r) => r.program);
      const pattern = [programs.length === 1 ? programs[0]! : `[${programs.join("|")}]`, ...first.rest.map((a) => (a.length === 1 ? a[0]! : `[${a.join("|")}]`))];
      const results: ExampleResult[] = [
        ...call.match.map((example) => ({ kind: "match" as const, example, passed: !!callMatches(call, state.hostExecutables, example) })),
        ...call.notMatch.map((example) => ({ kind: "not_match" as const, example, passed: !callMatches(call, state.hostExecutables, example) })),
      ];
      reports.push({ source: call.source, pattern, results });
    }
  }
  return reports;
}
