import { realpathSync } from "node:fs";
import path from "node:path";
import { stringify } from "smol-toml";
import { ConfigError } from "../errors.js";
import type { ConfigFile } from "./schema.js";

/** The canonical form of a path: its real path when it exists, else the resolved path. */
export function canonicalPath(p: string): string {
  const resolved = path.resolve(p);
  try {
    return realpathSync(resolved);
  } catch {
    return resolved;
  }
}

/**
 * Whether the user configuration marks `workspace` trusted: a `[projects."<path>"]` table with
 * `trust_level = "trusted"` whose path is the workspace itself (compared by real path; trusting a
 * directory does not trust its subdirectories).
 * @throws ConfigError naming the user file when a `projects` key is not an absolute path.
 */
export function isProjectTrusted(userConfig: ConfigFile | null, userFile: string, workspace: string): boolean {
  const workspaceReal = canonicalPath(workspace);
  let trusted = false;
  for (const [key, table] of Object.entries(userConfig?.projects ?? {})) {
    if (!path.isAbsolute(key)) {
      throw new ConfigError(userFile, `\`projects.${JSON.stringify(key)}\`: a project must be named by its absolute path`);
    }
    if (canonicalPath(key) === workspaceReal) trusted = table.trust_level === "trusted";
  }
  return trusted;
}

/** The user-config lines that mark `workspace` (by its real path) trusted. */
export function trustSnippet(workspace: string): string {
  return stringify({ projects: { [canonicalPath(workspace)]: { trust_level: "trusted" } } });
}
