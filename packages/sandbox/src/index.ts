export {
  type BackendUnavailableReason,
  CommandNotFoundError,
  type GitConfigOrigin,
  GitConfigUnreadableError,
  InvalidCommandSpecError,
  InvalidDenialEvidenceError,
  InvalidSandboxBackendError,
  InvalidSandboxPathError,
  InvalidSandboxPolicyError,
  SandboxBackendConflictError,
  SandboxBackendError,
  SandboxBackendNotFoundError,
  SandboxError,
  type SandboxErrorCode,
  SandboxNotRegularFileError,
  SandboxProxyUnsupportedError,
  SandboxTransformError,
  SandboxUnavailableError,
  UnpinnableProtectedPathError,
} from "./errors.js";
export {
  type DangerFullAccessPolicy,
  DangerFullAccessPolicySchema,
  type ExternalSandboxPolicy,
  ExternalSandboxPolicySchema,
  type ReadOnlyPolicy,
  ReadOnlyPolicySchema,
  type SandboxMode,
  type SandboxPermissionRequest,
  SandboxPermissionRequestSchema,
  type SandboxPermissions,
  SandboxPermissionsSchema,
  type SandboxPolicy,
  type SandboxPolicyInput,
  SandboxPolicySchema,
  type WorkspaceWritePolicy,
  WorkspaceWritePolicySchema,
  parseSandboxPermissionRequest,
  parseSandboxPolicy,
  policyAllowsNetwork,
  policyRequiresPlatformSandbox,
} from "./policy.js";
export {
  type BackendAvailability,
  type CommandSpec,
  DEFAULT_DENIAL_SIGNALS,
  type DeferredLaunch,
  type DeferredStandIn,
  type DenialSignals,
  type ExecEnv,
  type RefusalErrno,
  type SandboxBackend,
  type SandboxPlan,
  type SandboxType,
  type TransformOptions,
  UNSANDBOXED,
} from "./backend.js";
export { CommandSpecSchema, parseCommandSpec } from "./command-spec.js";
export { checkCommand, type CheckCommandOptions } from "./check-command.js";
export { computeWritableRoots, type WritableRoot, type WritableRootsOptions } from "./writable-roots.js";
export { PROTECTED_METADATA_NAMES, readGitdirPointer } from "./carve-outs.js";
export { parseGitConfig, type GitConfigEntry } from "./git-config-parse.js";
export { gitConfigKey, gitConfigReferences, type GitConfigReference } from "./git-config-refs.js";
export {
  findRunRepositories,
  DirectoryListingCache,
  DEFAULT_SCAN_MAX_DIRECTORIES,
  NEW_REPOSITORY_SLACK_MS,
  COARSE_TIMESTAMP_SLACK_MS,
  type RunRepository,
  type RepositoryScan,
  type RepositoryScanOptions,
} from "./new-repositories.js";
export {
  OPEN_FLAGS,
  type ObservedEntry,
  type ObservedFile,
  ObservedStats,
  type Observations,
  observationsHold,
  observedFs,
  recordObservations,
} from "./observed-fs.js";
export { isPathWithin, readRegularFileSync, traceSymlinks, type LstatCache, type TracedPath } from "./paths.js";
export { SandboxManager, type BackendChoice, type BackendReport, type SandboxManagerOptions } from "./manager.js";
export {
  isLikelySandboxDenied,
  SANDBOX_DENIAL_KEYWORDS,
  NON_DENIAL_EXIT_CODES,
  type DenialCheckInput,
  type DenialRun,
} from "./denial.js";
export {
  explainSandboxDenial,
  denialForAudience,
  sandboxDenialNote,
  suggestWritableRoot,
  DenialEvidenceSchema,
  SandboxDenialSchema,
  SandboxDenialKindSchema,
  SandboxDenialCauseSchema,
  SandboxDenialGrantSchema,
  type DenialEvidence,
  type SandboxDenial,
  type SandboxDenialKind,
  type SandboxDenialCause,
  type SandboxDenialGrant,
  type ExplainOptions,
} from "./denial-explain.js";
export type { DenialAudience } from "./denial-text.js";
export { sandboxEnvMarkers, SANDBOX_ENV_VAR, NETWORK_DISABLED_ENV_VAR } from "./env-markers.js";
export {
  networkModeOf,
  proxyEnvironment,
  PROXY_ENV_NAMES,
  type NetworkMode,
  type NetworkProxyRoute,
  type ProxyTransport,
  type ProxyUrls,
} from "./network-route.js";
export {
  applyToolCaches,
  sandboxToolCacheDir,
  toolCacheVariables,
  SANDBOX_TOOL_CACHES,
  SANDBOX_TOOL_CACHE_DIR_NAME,
  type ApplyToolCachesInput,
  type ToolCacheEntry,
  type ToolCacheRun,
  type ToolCacheStatus,
  type ToolCacheVariable,
} from "./tool-caches.js";
export {
  homeCredentialPaths,
  homeStartupPaths,
  TOOL_HOMES,
  toolHomeCarveOuts,
  toolHomeOf,
  type HomeCredentialPath,
  type ToolHomeEntry,
  type ToolHomeLocation,
} from "./tool-homes.js";
