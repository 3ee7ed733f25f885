// `@shellgate/sandbox-linux/testing`: the mount plan and bubblewrap arguments this package's tests
// inspect, for tests only; an integrator needs the main entry alone.
export { bwrapArgs, DEFAULT_PRIVATE_TMP_SIZE_BYTES, PROC_READ_ONLY_ENTRIES, type BwrapArgsOptions } from "./bwrap-args.js";
export { planMounts, type MountPlan } from "./mount-plan.js";
export { defaultPlaceholderLockDir, PLACEHOLDER_MODE } from "./placeholders.js";
