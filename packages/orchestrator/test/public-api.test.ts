// The package's public names, pinned: a new export (or a lost one) fails here and shows up in review.
// Types are erased at run time, so they are pinned from the declarations (the TypeScript checker).
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src");

/** Every name (value or type) a module exports, sorted. */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`cannot read the exports of ${file}`);
  return checker.getExportsOfModule(symbol).map((s) => s.name).sort();
}

const ROOT = [
    "APPROVAL_POLICIES", "AbortedError", "AmendmentCandidates", "AmendmentOfferInput", "AmendmentPrefixChoice", "AnthropicTool", "ApprovalCache", "ApprovalHandler", "ApprovalPolicy",
    "ApprovalPolicySchema", "ApprovalReason", "ApprovalReasonKind", "ApprovalReasonRule", "ApprovalRequest",
    "ApprovalResponse", "ApprovalResponseSchema", "ApprovalUnavailableError", "CancelledError",
    "CommandNotFoundError", "CommandRuleGrant", "CommandTimeoutError", "DEFAULT_SPILL_LIMIT_BYTES",
    "DEFAULT_SPILL_MAX_AGE_MS", "DecisionNotOfferedError", "DecisionTrace", "DirectoryIdentity", "EnvDrop",
    "EnvDropReason", "EventBus", "EventListener", "ExecCommandArgs", "ExecCommandArgsSchema", "ExecPipeline",
    "ExecProbe", "ExecRequest", "ForbiddenError", "HostApprovals", "HostAskContext", "HostGrant", "HostRule",
    "HostRules", "HostVerdict", "HostVerdictSource", "InvalidToolArgumentsError", "JsonSchema", "LaunchResult",
    "Launcher", "MAX_AMENDMENT_CHOICES", "MAX_OUTPUT_DELTAS_PER_CALL", "McpTool", "NetworkGrants", "NetworkGrantsInput", "NetworkGrantsSchema",
    "NetworkHostPolicy", "NetworkRefusal", "NetworkReport", "NetworkTunnelSplicerSource", "OpenAIChatFunctionTool",
    "OpenAIFunctionTool", "Orchestrator", "OrchestratorConfigError", "OrchestratorError", "OrchestratorErrorCode",
    "OrchestratorEvent", "OrchestratorOptions", "OrchestratorOptionsSchema", "OutputSink", "ParsedToolCall",
    "PipeSpawner", "PipelineContext", "PipelineOutcome", "PolicyDecision", "PolicyEvaluator", "PolicyRuleMatch",
    "PolicyStore", "PrivateDir", "ProtectedPathsEnv", "ProtectedPathsInput", "RejectedError", "ReviewDecision",
    "ReviewDecisionSchema", "RunRepositoriesReport", "SandboxDeniedError", "SandboxKept", "SandboxPrepareFailedError", "SandboxRetryStatus",
    "SandboxWrittenCode", "SandboxWrittenKind", "SessionNetwork", "SessionNotTtyError", "SessionProcess",
    "SessionProcessFactory", "SessionSpawnSpec", "SessionStoreOptions", "ShellArgs", "ShellArgsSchema",
    "ShellCommandArgs", "ShellCommandArgsSchema", "ShellEnvironmentPolicy", "ShellEnvironmentPolicyInput",
    "ShellEnvironmentPolicySchema", "SpawnFailedError", "TRACE_OUTCOMES", "TerminalOutputFilter", "TerminalOutputFilterOptions", "ToolCall",
    "ToolCallSchema", "ToolContext", "ToolDefinition", "ToolDefinitionByFormat", "ToolDefinitionFormat",
    "ToolDefinitionFormatSchema", "ToolHandler", "ToolOutput", "ToolPayload", "ToolPayloadSchema", "ToolRegistry",
    "ToolResponse", "TraceOutcome", "UnfitDirectoryError", "UnifiedExecManager", "UnknownSessionError", "UnknownToolError",
    "WorkspaceChangedError", "WorkspaceIdentity", "WritableRootChangedError", "WritableRootIdentity",
    "WriteStdinArgs", "WriteStdinArgsSchema", "amendmentCandidates", "amendmentOffer", "checkPrivateDirSync", "commandRuleGrant", "defaultProtectedPaths", "defaultSpillDir",
    "describeEnvDropReason", "describeVerdictSource", "escapeForDisplay", "explainEnvScrub", "filterTerminalOutput",
    "hasHiddenCharacters", "personPrefixLength", "sandboxRetryMessage", "sessionProcessFromHandle", "spillMarker", "toAnthropicToolResult",
    "toMcpCallToolResult", "toOpenAIFunctionCallOutput",
];

const ADMISSION = [
    "APPROVAL_POLICIES", "Admission", "AdmissionInput", "ApprovalPolicy", "ApprovalPolicySchema", "ESCALATION_REASON",
    "ExecApprovalRequirement", "FileSystemKind", "HeuristicVerdict", "NEVER_ESCALATION_REASON", "NEVER_PROMPT_REASON",
    "PolicyDecision", "PolicyEvaluation", "PolicyEvaluator", "PolicyRuleMatch",
    "RequirementContext", "SandboxWrittenCode", "SandboxWrittenInput", "SandboxWrittenKind", "SegmentDetail", "SegmentFacts", "SegmentVerdict", "amendmentPrefixRefusal", "applyEscalationGuard", "assessCommand",
    "decideSegments", "fileSystemKind", "findSandboxWrittenCode", "hasDeniedReads", "isKnownSafeCommand", "isRefusedAmendmentPrefix",
    "mapToRequirement", "prefixCovers", "programControlled", "renderCommand", "retryAllowed", "sandboxKeptReason", "sandboxWritable",
    "withSandboxKept", "writableUnder",
];

const ENV = [
    "BuildEnvOptions", "CORE_ENV_VARS_UNIX", "CORE_ENV_VARS_WINDOWS", "DEFAULT_SECRET_EXCLUDES", "DEFAULT_SECRET_NAME_PARTS",
    "EnvDrop", "EnvDropReason", "ShellEnvironmentPolicy", "ShellEnvironmentPolicyInput", "ShellEnvironmentPolicySchema",
    "buildCommandEnv", "describeEnvDropReason", "explainEnvScrub", "parseShellEnvironmentPolicy",
];

describe("public API", () => {
  it("@shellgate/orchestrator exports exactly the listed names", () => {
    expect(exportedNames(path.join(SRC, "index.ts"))).toEqual(ROOT);
  });

  it("@shellgate/orchestrator/admission exports exactly the listed names", () => {
    expect(exportedNames(path.join(SRC, "admission", "index.ts"))).toEqual(ADMISSION);
  });

  it("@shellgate/orchestrator/env exports exactly the listed names", () => {
    expect(exportedNames(path.join(SRC, "env", "index.ts"))).toEqual(ENV);
  });

  it("keeps internals out of the root entry", () => {
    for (const internal of ["DEFAULT_ADMISSION_DEPS", "EXECPOLICY_IO", "judgeProbe", "assessWith", "writeStdin", "UnifiedExecManagerOptions"]) {
      expect(ROOT).not.toContain(internal);
    }
  });

  it("runs: every listed value is defined once the entries load (no import cycle left one undefined)", async () => {
    const root: Record<string, unknown> = await import("../src/index.js");
    const admission: Record<string, unknown> = await import("../src/admission/index.js");
    const env: Record<string, unknown> = await import("../src/env/index.js");
    for (const [name, value] of [...Object.entries(root), ...Object.entries(admission), ...Object.entries(env)]) expect(value, name).toBeDefined();
    expect(Object.keys(root).every((n) => ROOT.includes(n))).toBe(true);
  });
});
