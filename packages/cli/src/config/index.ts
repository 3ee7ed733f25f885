export {
  CONFIG_FILE_NAME,
  PROJECT_DIR_NAME,
  type PathEnv,
  codexRulesDir,
  userConfigDir,
  userRulesDir,
} from "./paths.js";
export {
  type ApprovalPolicyName,
  ApprovalPolicyNameSchema,
  type ConfigFile,
  ConfigFileSchema,
  NetworkTableSchema,
  ProjectTrustTableSchema,
  type SandboxModeName,
  SandboxModeNameSchema,
  ShellEnvironmentTableSchema,
  type TrustLevel,
  TrustLevelSchema,
  WorkspaceWriteTableSchema,
} from "./schema.js";
export {
  parseConfigText,
  readConfigFile,
} from "./file.js";
export {
  type RulesFileEntry,
  type RulesOrigin,
  listRulesDir,
} from "./rules-files.js";
export {
  type ConfigOverrides,
  DEFAULTS,
  type DomainEntry,
  type EffectiveConfig,
  type LoadConfigOptions,
  type ProjectConfigStatus,
  type ShellEnvironmentSettings,
  type WorkspaceCheck,
  findProjectConfig,
  hostProblem,
  loadConfig,
  loadShellEnvironmentPolicy,
} from "./load.js";
export {
  type Baseline,
  type FlagsGiven,
  SANDBOX_MODE_STRICTNESS,
  approvalAtLeastAsStrict,
  findWeakenings,
  sandboxModeAtLeastAsStrict,
} from "./strictness.js";
export {
  canonicalPath,
  isProjectTrusted,
  trustSnippet,
} from "./trust.js";
export {
  findBroadRoots,
  homeDirectories,
} from "./broad-workspace.js";
