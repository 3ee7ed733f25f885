export {
  createWindowsSandboxBackend,
  WINDOWS_DENIAL_SIGNALS,
  type WindowsSandboxBackendOptions,
} from "./backend.js";
export {
  WindowsSandboxError,
  type WindowsSandboxFailure,
} from "./errors.js";
export {
  fileSidStore,
  memorySidStore,
  type CapabilitySids,
  type SidStore,
} from "./sid-store.js";
export {
  type WinEntry,
  type WinFsView,
} from "./win-fs.js";
export {
  type AceRecord,
  type CreateProcessRequest,
  type Win32Api,
  type Win32Handle,
} from "./win32-api.js";
