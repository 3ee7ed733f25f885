export {
  createLinuxSandboxBackend,
  type LinuxSandboxBackendOptions,
} from "./backend.js";
export { PLAN_REUSE_ENV, type PlanReuse } from "./plan-reuse.js";
export {
  LinuxSandboxError,
  type LinuxSandboxFailure,
} from "./errors.js";
export {
  HELPER_NAME,
  HELPER_TARGETS,
  helperTarget,
  LinuxHelperArchitectureError,
  locateHelper,
  type HelperTarget,
} from "./helper-path.js";
export {
  LINUX_DENIAL_SIGNALS,
} from "./launch-argv.js";
export {
  findBwrap,
  probeLinuxSandbox,
  type LayerStatus,
  type LinuxCapabilityReport,
  type LinuxIsolation,
  type ProbeOptions,
} from "./probe.js";
export {
  defaultProbeCacheFile,
} from "./probe-cache.js";
export {
  DEFAULT_PROCESS_LIMIT,
} from "./process-limit.js";
export {
  BWRAP_LOCATIONS,
  checkHostBinary,
  type TrustOptions,
  type TrustVerdict,
} from "./trusted-path.js";
