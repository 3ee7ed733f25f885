import os from "node:os";
import path from "node:path";

/** The environment variables that decide where configuration lives (a subset of `process.env`). */
export type PathEnv = Readonly<Record<string, string | undefined>>;

function home(env: PathEnv): string {
  return env["HOME"] || env["USERPROFILE"] || os.homedir();
}

/**
 * The user's shellgate configuration directory: `$SHELLGATE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/shellgate`,
 * else `%APPDATA%\shellgate` on Windows, else `~/.config/shellgate`.
 */
export function userConfigDir(env: PathEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const explicit = env["SHELLGATE_CONFIG_DIR"];
  if (explicit) return path.resolve(explicit);
  const xdg = env["XDG_CONFIG_HOME"];
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "shellgate");
  if (platform === "win32" && env["APPDATA"]) return path.join(env["APPDATA"], "shellgate");
  return path.join(home(env), ".config", "shellgate");
}

/** Where the user's own rules live (`<config dir>/rules`); "always allow" amendments go to `default.rules` there. */
export function userRulesDir(env: PathEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return path.join(userConfigDir(env, platform), "rules");
}

/** The Codex CLI's rules directory (`$CODEX_HOME/rules`, else `~/.codex/rules`), read so existing rules keep working. */
export function codexRulesDir(env: PathEnv = process.env): string {
  const codexHome = env["CODEX_HOME"];
  return path.join(codexHome ? path.resolve(codexHome) : path.join(home(env), ".codex"), "rules");
}

/** The project configuration directory's name, read in the workspace (the working directory) only, never its ancestors. */
export const PROJECT_DIR_NAME = ".shellgate";

/** The configuration file's name, in both the project and the user directory. */
export const CONFIG_FILE_NAME = "config.toml";
