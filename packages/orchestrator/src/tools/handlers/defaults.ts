import { spawnPipe, spawnPty } from "@shellgate/pty";
import { sessionProcessFromHandle } from "../../sessions/pty-adapter.js";
import type { PipeSpawner, SessionProcessFactory } from "./runtime.js";

/** Bytes the pty layer itself keeps per session; sessions read output as it streams, so little is needed. */
const SESSION_HANDLE_BUFFER_BYTES = 64 * 1024;

/** One-shot processes: `@shellgate/pty` pipes. */
export const defaultSpawnPipe: PipeSpawner = (spec) => spawnPipe(spec);

/**
 * Session processes: a PTY (24×80) when `tty`, else pipes with stdin at /dev/null. No timeout: a
 * session lives until it exits, is pruned, or the orchestrator closes.
 */
export const defaultSessionFactory: SessionProcessFactory = ({ argv, cwd, env, tty }) => {
  const spec = { argv, cwd, env: { ...env }, timeoutMs: 0, outputCapBytes: SESSION_HANDLE_BUFFER_BYTES };
  return sessionProcessFromHandle(tty ? spawnPty(spec) : spawnPipe({ ...spec, stdin: "ignore" }));
};
