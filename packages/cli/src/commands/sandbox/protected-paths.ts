// What `shellgate sandbox` keeps read-only inside the writable roots, existing or not: the per-user
// locations every sandbox holds (@shellgate/user-paths' `userProtectedPaths`: the user's and Codex's
// configuration and rules, policy-check's cache, shellgate's cache directory with the code cache the
// next start runs) and the workspace's `.shellgate` — what the orchestrator's `defaultProtectedPaths`
// holds for `exec` and `mcp`, without this debug runner loading the orchestrator; a test keeps the two
// lists equal.
import path from "node:path";
import { userProtectedPaths } from "@shellgate/user-paths";
import { PROJECT_DIR_NAME, type PathEnv } from "../../config/paths.js";

/** The protected paths of a `shellgate sandbox` run in `cwd`. */
export function sandboxProtectedPaths(cwd: string, env: PathEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  return [...userProtectedPaths(env, platform), path.join(cwd, PROJECT_DIR_NAME)];
}
