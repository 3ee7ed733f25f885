export { createLinuxSandboxBackend, type LinuxSandboxBackendOptions } from "./backend.js";
export {
  probeLinuxSandbox,
  findBwrap,
  type LinuxCapabilityReport,
  type LayerStatus,
  type LinuxIsolation,
  type ProbeOptions,
} from "./probe.js";
export { planMounts, bwrapArgs, type MountPlan, type BwrapArgsOptions } from "./mount-plan.js";
export { checkCommand } from "./command.js";
export { LinuxSandboxError, type LinuxSandboxFailure } from "./errors.js";
export { locateHelper, HELPER_NAME } from "./helper-path.js";
export { defaultProbeCacheFile } from "./probe-cache.js";
