import path from "node:path";
import { userProtectedPaths } from "@shellgate/user-paths";

/** The environment variables that decide where shellgate's and Codex's configuration live. */
export type ProtectedPathsEnv = Readonly<Record<string, string | undefined>>;

/** What `defaultProtectedPaths` derives its paths from. */
export interface ProtectedPathsInput {
  /** The workspace (the orchestrator's `cwd`); its `.shellgate` is held. */
  cwd: string;
  /** Default: `process.env`. */
  env?: ProtectedPathsEnv;
  /** Default: `process.platform` (only Windows' `%APPDATA%` depends on it). */
  platform?: NodeJS.Platform;
}

/**
 * The paths that decide how later commands are judged, and so must stay read-only inside every
 * writable root, whether they exist or not: the per-user locations of @shellgate/user-paths'
 * `userProtectedPaths` (shellgate's user configuration directory, the Codex rules directory,
 * policy-check's compiled-policy cache, shellgate's cache directory as a whole — the Linux sandbox's
 * probe cache and placeholder locks, and the compiled code the CLI starts from) and the workspace's
 * `.shellgate`. A command that could write any of them could loosen the rules its next run is judged
 * by, or run its own code in the next CLI start. `Orchestrator.create` holds these on top of the
 * caller's `protectedPaths`; they are the same locations the shellgate CLI reads its configuration from.
 */
export function defaultProtectedPaths(input: ProtectedPathsInput): string[] {
  return [...userProtectedPaths(input.env ?? process.env, input.platform ?? process.platform), path.join(input.cwd, ".shellgate")];
}
