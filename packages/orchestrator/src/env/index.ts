export {
  ShellEnvironmentPolicySchema,
  parseShellEnvironmentPolicy,
  buildCommandEnv,
  explainEnvScrub,
  defaultSecretReason,
  describeEnvDropReason,
  DEFAULT_SECRET_EXCLUDES,
  DEFAULT_SECRET_NAME_PARTS,
  CORE_ENV_VARS_UNIX,
  CORE_ENV_VARS_WINDOWS,
} from "./env-policy.js";
export type { ShellEnvironmentPolicy, ShellEnvironmentPolicyInput, BuildEnvOptions, EnvDrop, EnvDropReason } from "./env-policy.js";
export { UNIFIED_EXEC_ENV, withUnifiedExecEnv } from "./unified-exec-env.js";
