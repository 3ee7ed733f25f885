export {
  ShellEnvironmentPolicySchema,
  parseShellEnvironmentPolicy,
  buildCommandEnv,
  DEFAULT_SECRET_EXCLUDES,
  CORE_ENV_VARS_UNIX,
  CORE_ENV_VARS_WINDOWS,
} from "./env-policy.js";
export type { ShellEnvironmentPolicy, ShellEnvironmentPolicyInput, BuildEnvOptions } from "./env-policy.js";
export { UNIFIED_EXEC_ENV, withUnifiedExecEnv } from "./unified-exec-env.js";
