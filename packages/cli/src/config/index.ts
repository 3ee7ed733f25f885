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
  type SandboxModeName,
  SandboxModeNameSchema,
  type TrustLevel,
  TrustLevelSchema,
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
  type EffectiveConfig,
  type LoadConfigOptions,
  type ProjectConfigStatus,
  type ShellEnvironmentSettings,
  type WorkspaceCheck,
  findProjectConfig,
  loadConfig,
} from "./load.js";
export {
  SANDBOX_MODE_STRICTNESS,
  approvalAtLeastAsStrict,
  sandboxModeAtLeastAsStrict,
} from "./strictness.js";
export {
  isProjectTrusted,
  trustSnippet,
} from "./trust.js";
export {
  findBroadRoots,
} from "./broad-workspace.js";
