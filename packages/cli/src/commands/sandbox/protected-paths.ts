// What `shellgate sandbox` keeps read-only inside the writable roots, existing or not: the locations
// the orchestrator's `defaultProtectedPaths` holds for `exec` and `mcp` (the user's and Codex's
// configuration and rules, policy-check's cache, shellgate's cache directory with the code cache the
// next start runs, the workspace's `.shellgate`). Computed from the CLI's own path functions, so that
// this debug runner does not load the orchestrator; a test keeps the two lists equal.
import path from "node:path";
import { codexRulesDir, PROJECT_DIR_NAME, userConfigDir, type PathEnv } from "../../config/paths.js";
import { shellgateCacheDir } from "../../launch/code-cache.js";

/** The protected paths of a `shellgate sandbox` run in `cwd`. */
export function sandboxProtectedPaths(cwd: string, env: PathEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const explicitPolicyCache = env["SHELLGATE_POLICY_CACHE_DIR"];
  return [
    userConfigDir(env, platform),
    codexRulesDir(env),
    explicitPolicyCache ? path.resolve(explicitPolicyCache) : path.join(shellgateCacheDir(env), "execpolicy"),
    shellgateCacheDir(env),
    path.join(cwd, PROJECT_DIR_NAME),
  ];
}
