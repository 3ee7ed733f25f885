// The CLI's building blocks, for integrators who want shellgate's configuration, approval prompt or
// MCP server inside their own program. The commands themselves live under `commands/`.
export {
  CliError,
  UsageError,
  InvalidDurationError,
  ConfigError,
  NotRegularFileError,
  UntrustedProjectConfigError,
  BroadWorkspaceError,
  NoTerminalError,
  UnknownMcpToolError,
  SandboxBackendPackageError,
  type BackendPackageProblem,
  type CliErrorCode,
  type ProjectWeakening,
  type BroadRoot,
  type BroadRootReason,
} from "./errors.js";
export { parseDuration, formatDuration, MAX_DURATION_MS } from "./duration.js";
export {
  loadConfig,
  findProjectConfig,
  DEFAULTS,
  type ConfigOverrides,
  type EffectiveConfig,
  type LoadConfigOptions,
  type ProjectConfigStatus,
  type WorkspaceCheck,
  approvalAtLeastAsStrict,
  sandboxModeAtLeastAsStrict,
  SANDBOX_MODE_STRICTNESS,
  isProjectTrusted,
  trustSnippet,
  findBroadRoots,
  TrustLevelSchema,
  type TrustLevel,
  type ShellEnvironmentSettings,
  userConfigDir,
  userRulesDir,
  codexRulesDir,
  PROJECT_DIR_NAME,
  CONFIG_FILE_NAME,
  ConfigFileSchema,
  ApprovalPolicyNameSchema,
  SandboxModeNameSchema,
  parseConfigText,
  readConfigFile,
  listRulesDir,
  type ConfigFile,
  type ApprovalPolicyName,
  type SandboxModeName,
  type RulesFileEntry,
  type RulesOrigin,
  type PathEnv,
} from "./config/index.js";
export {
  createTerminalPrompt,
  canPrompt,
  choicesFor,
  amendmentEffect,
  isOffered,
  displayArgv,
  amendmentRuleLine,
  renderHeader,
  renderMenu,
  type TerminalPromptOptions,
  type PromptRequest,
  type PromptDecision,
  type Choice,
} from "./approval/index.js";
export { startMcpServer, MCP_TOOLS, type ToolHost, type ToolHostFactory, type RunningMcpServer } from "./commands/mcp/server.js";
export { MCP_TOOL_NAMES, parseToolsOption, type McpToolName } from "./commands/mcp/tools.js";
export { MCP_LOG_LEVELS, DEFAULT_MCP_LOG_LEVEL, createMcpLog, type McpLog, type McpLogLevel } from "./commands/mcp/log.js";
export { TITLED_ENUM_PROTOCOL_VERSION, recordNegotiatedVersion, supportsTitledEnums, type NegotiatedVersion } from "./commands/mcp/protocol-version.js";
export { createElicitationApproval, clientSupportsElicitation, elicitationMessage } from "./commands/mcp/approval.js";
export { EXEC_EXIT, exitCodeForError } from "./commands/exec/exit-codes.js";
export { EXIT_TABLE, CONFIG_ERROR_EXIT, exitCodesHelp, exitCodesMarkdown, type ExitRow, type ExitTableCommand } from "./exit-table.js";
export { describeError } from "./error-text.js";
export { readPackageVersion } from "./version.js";
export {
  SANDBOX_BACKENDS,
  backendSource,
  platformBackendSources,
  createBackend,
  platformBackends,
  createSandboxManager,
  type BackendSource,
  type CliBackendOptions,
  type BackendWiringDeps,
  type PackageImporter,
  type PackageSource,
  type SandboxBackendName,
} from "./sandbox-backends.js";
