// The public API, name by name: anything not listed here is internal and may change in any release.
// Admission helpers (what `shellgate check` shows) are in the `@shellgate/orchestrator/admission`
// subpath. test/public-api.test.ts pins this list, so an accidental export shows up in review.

// The orchestrator and its options.
export { Orchestrator, OrchestratorOptionsSchema, type OrchestratorOptions } from "./orchestrator.js";
export type { NetworkTunnelSplicerSource } from "./network/run-network.js";
export { defaultProtectedPaths, type ProtectedPathsEnv, type ProtectedPathsInput } from "./workspace/protected-paths.js";
export type { WorkspaceIdentity } from "./workspace/identity.js";
export type { DirectoryIdentity, WritableRootIdentity } from "./workspace/root-identity.js";
export type { UnifiedExecManager } from "./sessions/manager.js";
// The attempt/retry state machine on its own, for an integrator that starts processes its own way
// (and the parts it is built from; the orchestrator's public fields have these types).
export { ExecPipeline } from "./pipeline/exec-pipeline.js";
export type { ExecProbe, ExecRequest, LaunchAttempt, LaunchResult, Launcher, NetworkReport, PipelineContext, PipelineOutcome, RunRepositoriesReport, SandboxKept, SessionNetwork } from "./pipeline/types.js";
export type { SandboxWrittenCode, SandboxWrittenKind } from "./admission/sandbox-written-code.js";
export { EventBus } from "./events.js";
export { ApprovalCache } from "./approval/cache.js";
export { amendmentCandidates, MAX_AMENDMENT_CHOICES, personPrefixLength, type AmendmentCandidates } from "./approval/prefix-candidates.js";
export { amendmentOffer, type AmendmentOfferInput, type AmendmentPrefixChoice } from "./approval/offers.js";

// Policies an integrator chooses.
export { APPROVAL_POLICIES, ApprovalPolicySchema, type ApprovalPolicy } from "./admission/approval-policy.js";
export type { PolicyDecision, PolicyEvaluator, PolicyRuleMatch } from "./admission/policy-types.js";
export { PolicyStore } from "./rules/policy-store.js";
export {
  ShellEnvironmentPolicySchema,
  describeEnvDropReason,
  explainEnvScrub,
  type EnvDrop,
  type EnvDropReason,
  type ShellEnvironmentPolicy,
  type ShellEnvironmentPolicyInput,
} from "./env/env-policy.js";

// Network by domain: how hosts are judged, and what a run's proxy refused.
export { NetworkGrantsSchema, type HostGrant, type NetworkGrants, type NetworkGrantsInput } from "./network/grants.js";
export { NetworkHostPolicy, describeVerdictSource, type HostRule, type HostRules, type HostVerdict, type HostVerdictSource } from "./network/host-policy.js";
export { HostApprovals, type HostAskContext } from "./network/host-approval.js";
export type { NetworkRefusal } from "./network/run-network.js";
export { commandRuleGrant, type CommandRuleGrant } from "./network/rule-grant.js";

// Tools: calls, the registry, handlers, definitions and responses.
export { ToolCallSchema, ToolPayloadSchema, type ToolCall, type ToolPayload } from "./tools/payload.js";
export { ToolRegistry, type OutputSink, type ParsedToolCall, type ToolContext, type ToolHandler, type ToolOutput } from "./tools/registry.js";
export {
  ToolDefinitionFormatSchema,
  type AnthropicTool,
  type JsonSchema,
  type McpTool,
  type OpenAIChatFunctionTool,
  type OpenAIFunctionTool,
  type ToolDefinition,
  type ToolDefinitionByFormat,
  type ToolDefinitionFormat,
} from "./tools/definitions.js";
export {
  ExecCommandArgsSchema,
  ShellArgsSchema,
  ShellCommandArgsSchema,
  WriteStdinArgsSchema,
  type ExecCommandArgs,
  type ShellArgs,
  type ShellCommandArgs,
  type WriteStdinArgs,
} from "./tools/schemas.js";
export { toAnthropicToolResult, toMcpCallToolResult, toOpenAIFunctionCallOutput, type ToolResponse } from "./tools/response.js";
export type { PipeSpawner, SessionProcessFactory, SessionSpawnSpec } from "./tools/handlers/runtime.js";
export type { SessionProcess } from "./sessions/session.js";
export type { SessionStoreOptions } from "./sessions/store.js";
export { sessionProcessFromHandle } from "./sessions/pty-adapter.js";

// Events and the decision trace.
export { MAX_OUTPUT_DELTAS_PER_CALL, TRACE_OUTCOMES, type DecisionTrace, type EventListener, type OrchestratorEvent, type TraceOutcome } from "./events.js";

// Approval: the integrator's handler and what it is asked.
export {
  ApprovalResponseSchema,
  ReviewDecisionSchema,
  type ApprovalHandler,
  type ApprovalRequest,
  type ApprovalResponse,
  type ReviewDecision,
} from "./approval/types.js";
export type { ApprovalReason, ApprovalReasonKind, ApprovalReasonRule } from "./approval/reason.js";

// Showing things to people.
export { escapeForDisplay, hasHiddenCharacters } from "./output/escape.js";
export { TerminalOutputFilter, filterTerminalOutput, type TerminalOutputFilterOptions } from "./output/terminal-filter.js";
export { sandboxRetryMessage, type SandboxRetryStatus } from "./approval/retry-message.js";
export { DEFAULT_SPILL_LIMIT_BYTES, DEFAULT_SPILL_MAX_AGE_MS, defaultSpillDir, spillMarker } from "./output/spill.js";
export { checkPrivateDirSync, UnfitDirectoryError, type PrivateDir } from "./output/private-dir.js";

// Errors (one hierarchy, stable `code`s).
export {
  AbortedError,
  ApprovalUnavailableError,
  CancelledError,
  CommandTimeoutError,
  DecisionNotOfferedError,
  ForbiddenError,
  InvalidToolArgumentsError,
  OrchestratorConfigError,
  OrchestratorError,
  RejectedError,
  SandboxDeniedError,
  SandboxPrepareFailedError,
  SessionNotTtyError,
  SpawnFailedError,
  UnknownSessionError,
  UnknownToolError,
  WorkspaceChangedError,
  WritableRootChangedError,
  type OrchestratorErrorCode,
} from "./errors.js";
