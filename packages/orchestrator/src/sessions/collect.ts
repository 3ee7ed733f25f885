import { CancelledError } from "../errors.js";
import type { OutputTotals } from "../output/truncate.js";
import type { Session } from "./session.js";

/** Lower bound of every yield. */
export const MIN_YIELD_MS = 250;
/** Upper bound of `exec_command` yields and of `write_stdin` yields that send input. */
export const MAX_YIELD_MS = 30_000;
/** An empty poll waits at least this long (unless the process exits first). */
export const MIN_EMPTY_POLL_MS = 5_000;
/** Default upper bound of an empty poll (configurable, never below `MIN_EMPTY_POLL_MS`). */
export const DEFAULT_MAX_EMPTY_POLL_MS = 300_000;
/** After spawning, how long to wait for an early exit (to judge a sandbox denial) before storing the session. */
export const EARLY_EXIT_WAIT_MS = 150;
/** After writing input, how long to let the process react before collecting. */
export const POST_WRITE_DELAY_MS = 100;
/** After exit, how long to wait for the last output to arrive. */
export const EXIT_OUTPUT_GRACE_MS = 50;

/** `exec_command`'s yield: clamped to [250, 30 000]. */
export function clampExecYield(ms: number): number {
  return Math.min(Math.max(ms, MIN_YIELD_MS), MAX_YIELD_MS);
}

/**
 * `write_stdin`'s yield. With input: clamped to [250, 30 000]. An empty poll: at least 5 000 and at
 * most `maxEmptyPollMs` (default 300 000, floored at 5 000).
 */
export function clampWriteYield(ms: number, hasInput: boolean, maxEmptyPollMs = DEFAULT_MAX_EMPTY_POLL_MS): number {
  if (hasInput) return clampExecYield(ms);
  const ceiling = Math.max(maxEmptyPollMs, MIN_EMPTY_POLL_MS);
  return Math.min(Math.max(ms, MIN_YIELD_MS, MIN_EMPTY_POLL_MS), ceiling);
}

/** What one collection window gathered. */
export interface Collected {
  bytes: Uint8Array;
  /** Bytes dropped from the middle because the model polled too rarely. */
  droppedBytes: number;
  /** Where `bytes` begins in the session's whole output stream (its spill file). */
  startOffset: number;
  /** Lines and bytes of everything the window received, the dropped middle included. */
  totals: OutputTotals;
  exitCode: number | undefined;
}

/**
 * Gather a session's output until `yieldMs` has passed or the process has exited (plus a short
 * grace for its last output). Output is taken only at the end, so a cancelled wait loses nothing.
 * @throws CancelledError when `signal` aborts (the session keeps running).
 */
export async function collectOutput(session: Session, yieldMs: number, signal?: AbortSignal): Promise<Collected> {
  const deadline = performance.now() + Math.max(0, yieldMs);
  for (;;) {
    if (signal?.aborted) throw new CancelledError("cancelled while waiting for session output");
    const remaining = deadline - performance.now();
    if (session.hasExited) {
      // The last output may trail the exit; wait for it briefly even when the yield is used up.
      await session.waitForDrain(EXIT_OUTPUT_GRACE_MS);
      break;
    }
    if (remaining <= 0) break;
    await session.waitForActivity(remaining, signal);
  }
  const { bytes, droppedBytes, startOffset, totals } = session.drain();
  return { bytes, droppedBytes, startOffset, totals, exitCode: session.exitCode };
}

/** Wait until the process exits, `ms` passes or `signal` aborts; true when it exited. */
export async function waitForExit(session: Session, ms: number, signal?: AbortSignal): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!session.hasExited) {
    const remaining = deadline - performance.now();
    if (remaining <= 0 || signal?.aborted) return false;
    await session.waitForActivity(remaining, signal);
  }
  return true;
}
