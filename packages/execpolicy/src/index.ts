/**
 * @shellgate/execpolicy — the `.rules` / `.codexpolicy` policy language: parser, evaluator,
 * compiled matcher, amend, and (under `heuristics/`) command heuristics.
 */
export {
  type CommandStructure,
  type HeuristicsOptions,
  InvalidArgvError,
  arbitraryCodePrefix,
  commandStructure,
  hasKnownSubcommands,
  isDangerousArgv,
  isKnownSafeArgv,
  powerShellCommandKey,
  programName,
  workspaceCodeRunner,
  wrappedCommands,
} from "./heuristics/index.js";
export {
  PolicyError, PolicyDiagnosticError, PolicyReadError, NotRegularFileError, InvalidArgumentError, InvalidNetworkHostError, AmendError,
} from "./errors.js";
export type { PolicyErrorCode, SourceLocation } from "./errors.js";
export { Policy } from "./policy/policy.js";
export type { PolicyContents, HostEvaluation, PrefixRuleSandbox } from "./policy/policy.js";
export type { Decision, Evaluation, EvaluateOptions, RuleMatch, PrefixRule, NetworkRule, NetworkProtocol, RuleSandbox } from "./policy/types.js";
export { ruleSandboxGrant } from "./policy/sandbox-grant.js";
export type { RuleSandboxGrant } from "./policy/sandbox-grant.js";
export { DECISION_RANK } from "./policy/types.js";
export { strictestDecision } from "./policy/evaluate.js";
export { loadPolicy, parsePolicy, readPolicySources, collectExampleResults, MAX_POLICY_FILE_BYTES } from "./policy/load.js";
export type { LoadOptions, PolicySource, ExampleResult, RuleExampleReport } from "./policy/load.js";
export { defaultCacheDir as defaultPolicyCacheDir } from "./policy/cache.js";
export { evaluationToCodexJson } from "./policy/codex-json.js";
export type { CodexCheckJson, CodexPrefixRuleMatchJson } from "./policy/codex-json.js";
export { appendAllowPrefixRule, appendNetworkRule, formatAllowPrefixRule, formatNetworkRule, MAX_AMEND_FILE_BYTES } from "./amend/index.js";
export type { AppendAllowOptions, AllowRuleSandbox, NetworkRuleToAppend } from "./amend/index.js";
export type { LockOptions } from "./amend/lock.js";
export { shlexSplit, shlexQuote } from "./policy/shlex.js";
export { type HostSubject, normalizeNetworkHost } from "./policy/network-host.js";
export { MAX_BRACKET_DEPTH, MAX_BLOCK_DEPTH, MAX_EXPR_DEPTH, DEFAULT_MAX_STEPS, MAX_CALL_DEPTH } from "./limits.js";
