import type { DenialSignals } from "@shellgate/sandbox";
import { paramArgs, type ProfileParam } from "./params.js";

/** The one `sandbox-exec` this backend runs: fixed, never looked up on `PATH`, not configurable. */
export const SANDBOX_EXEC_PATH = "/usr/bin/sandbox-exec";

/**
 * How Seatbelt refusals show: a refused file operation fails with EPERM ("Operation not
 * permitted"), a write into a read-only mount still with EROFS. Seatbelt kills nothing and has no
 * exit code of its own, so none is named; the shared keywords (`operation not permitted`,
 * `sandbox`) catch its messages.
 */
export const SEATBELT_DENIAL_SIGNALS: DenialSignals = Object.freeze({
  exitCodes: Object.freeze([]) as readonly number[],
  signals: Object.freeze([]) as readonly string[],
  refusalErrnos: Object.freeze(["EPERM", "EROFS"]) as DenialSignals["refusalErrnos"],
});

/**
 * The argv of a Seatbelt run: `/usr/bin/sandbox-exec -p PROFILE -DNAME=VALUE… -- CMD…`. The `--`
 * keeps a command starting with `-` from being read as an option of `sandbox-exec`.
 */
export function sandboxExecArgv(profile: string, params: readonly ProfileParam[], argv: readonly string[]): string[] {
  return [SANDBOX_EXEC_PATH, "-p", profile, ...paramArgs(params), "--", ...argv];
}
