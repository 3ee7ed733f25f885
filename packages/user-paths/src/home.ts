import os from "node:os";

/** The environment variables per-user paths are derived from (a subset of `process.env`). */
export type UserPathsEnv = Readonly<Record<string, string | undefined>>;

/**
 * The user's home directory as shellgate sees it: `$HOME`, else `%USERPROFILE%`, else the account's
 * home (`os.homedir()`). The environment wins so that a caller (a test, a service) that moves HOME
 * moves every per-user path with it; the protected paths and the paths actually used must never
 * disagree about which home they are in.
 */
export function homeDir(env: UserPathsEnv = process.env): string {
  return env["HOME"] || env["USERPROFILE"] || os.homedir();
}
