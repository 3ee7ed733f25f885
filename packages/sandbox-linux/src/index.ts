export { createLinuxSandboxBackend, type LinuxSandboxBackendOptions } from "./backend.js";
export { LINUX_DENIAL_SIGNALS } from "./launch-argv.js";
export {
  probeLinuxSandbox,
  findBwrap,
  type LinuxCapabilityReport,
  type LayerStatus,
  type LinuxIsolation,
  type ProbeOptions,
} from "./probe.js";
export { planMounts, type MountPlan } from "./mount-plan.js";
export { bwrapArgs, DEFAULT_PRIVATE_TMP_SIZE_BYTES, PROC_READ_ONLY_ENTRIES, type BwrapArgsOptions } from "./bwrap-args.js";
export { checkCommand } from "./command.js";
export { LinuxSandboxError, type LinuxSandboxFailure } from "./errors.js";
export { locateHelper, helperTarget, HELPER_NAME, HELPER_TARGETS, LinuxHelperArchitectureError, type HelperTarget } from "./helper-path.js";
export { defaultProbeCacheFile } from "./probe-cache.js";
export { checkHostBinary, BWRAP_LOCATIONS, type TrustOptions, type TrustVerdict } from "./trusted-path.js";
export { DEFAULT_PROCESS_LIMIT } from "./process-limit.js";
export { defaultPlaceholderLockDir, PLACEHOLDER_MODE } from "./placeholders.js";
