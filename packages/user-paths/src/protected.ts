import { codexRulesDir, userConfigDir } from "./config-dirs.js";
import { policyCacheDir, shellgateCacheDir } from "./cache-dirs.js";
import type { UserPathsEnv } from "./home.js";

/**
 * The per-user paths that decide how later commands are judged or what the host side runs, and so
 * must stay read-only inside every sandbox, whether they exist or not: the user's configuration
 * directory (config and rules), the Codex rules directory, the compiled-policy cache (which
 * `$SHELLGATE_POLICY_CACHE_DIR` may move out of the cache directory) and shellgate's whole cache
 * directory. A command that could write any of them could loosen the rules its next run is judged
 * by, or run its own code in the next CLI start. The workspace's own `.shellgate` is not here: it
 * depends on the workspace, and callers add it.
 */
export function userProtectedPaths(env: UserPathsEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  return [userConfigDir(env, platform), codexRulesDir(env), policyCacheDir(env), shellgateCacheDir(env)];
}
