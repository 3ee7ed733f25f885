// `@shellgate/sandbox-windows/testing`: the planning steps and the fake Win32 API this package's tests
// drive, for tests only; an integrator needs the main entry alone.
export { isolationOf, planWindowsRun, runnerArgv, sidPlaceholder, type RunnerRequest, type WindowsPlanSettings, type WindowsRunPlan } from "./plan.js";
export { computeWindowsWritableRoots, envValue, parseGitdirLine, type CarveOutReason, type DroppedRoot, type WinCarveOut, type WinRoots, type WinRootsOptions, type WinWritableRoot } from "./roots.js";
export { aclSteps, JOB_LIMITS, NUL_DEVICE, PROCESS_FLAGS, TOKEN_FLAGS, type AccessRight, type AceStep, type Capability, type Inheritance, type WinStep } from "./steps.js";
export { isWithinWin, parseWinPath, samePath, toApiPath, winKey, type WinPath, type WinPathForm } from "./win-path.js";
export { nodeWinFs, treeWinFs, UNKNOWN_FS, type WinTreeNode } from "./win-fs.js";
export { DEAD_PROXY, DENYBIN_PROGRAMS, DENYBIN_STUB, mapNullDevice, networkEnvBlock, proxyEnvBlock, type NetworkEnvBlock, type ProxyEnv } from "./network-block.js";
export { windowsProxy, type WindowsProxy } from "./proxy-route.js";
export { quoteWindowsArg, windowsCommandLine } from "./command-line.js";
export { defaultSidStorePath, newCapabilitySid } from "./sid-store.js";
export { ACCESS_MASKS, accessMask, inheritanceFlags } from "./win32-api.js";
export { createFakeWin32Api, type FakeCall, type FakeWin32Api, type FakeWin32Options } from "./win32-fake.js";
export { parseRunnerRequest, runRestricted } from "./runner-core.js";
