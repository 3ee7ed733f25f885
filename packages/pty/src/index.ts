export { spawnPipe } from "./pipe.js";
export { preparePipe, type PreparedPipe, type StartOptions } from "./prepared.js";
export { createPipeLauncher, type PipeLauncher } from "./launcher.js";
export { spawnPty } from "./pty.js";
export { HeadTailBuffer, type TaggedBytes } from "./head-tail-buffer.js";
export { decodeLossy } from "./decode.js";
export { TerminalRenderer, renderTerminalText, type RenderOptions } from "./render.js";
export { TIMEOUT_EXIT_CODE } from "./managed.js";
export { TAG_ENV } from "./proc-tree.js";
export { watchdogPid } from "./reaper.js";
export {
  ProcessSpecSchema,
  PtySpecSchema,
  DEFAULT_OUTPUT_CAP_BYTES,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_DRAIN_TIMEOUT_MS,
  DEFAULT_KILL_GRACE_MS,
  MAX_TIMEOUT_MS,
  DEFAULT_PTY_COLS,
  DEFAULT_PTY_ROWS,
  type ProcessSpec,
  type PtySpec,
} from "./spec.js";
export type { ExecResult, ExitInfo, OutputChunk, OutputStream, ProcessHandle } from "./types.js";
export {
  PtyError,
  InvalidProcessSpecError,
  SpawnError,
  ProcessExitedError,
  StdinUnavailableError,
  StdinClosedError,
  UnsupportedPlatformError,
  LauncherError,
  type PtyErrorCode,
} from "./errors.js";
