// `@shellgate/orchestrator/env`: how a command's environment is derived from the host's, for runners
// that start commands without an orchestrator (`shellgate sandbox`) and must apply the same policy.
// It loads the policy and its error class only, not the orchestrator. An explicit list, pinned by
// test/public-api.test.ts; nothing inside the package imports this file.
export {
  buildCommandEnv,
  CORE_ENV_VARS_UNIX,
  CORE_ENV_VARS_WINDOWS,
  DEFAULT_SECRET_EXCLUDES,
  DEFAULT_SECRET_NAME_PARTS,
  describeEnvDropReason,
  explainEnvScrub,
  parseShellEnvironmentPolicy,
  ShellEnvironmentPolicySchema,
  type BuildEnvOptions,
  type EnvDrop,
  type EnvDropReason,
  type ShellEnvironmentPolicy,
  type ShellEnvironmentPolicyInput,
} from "./env-policy.js";
