import path from "node:path";
import { homeDir, type UserPathsEnv } from "./home.js";

/**
 * The user's shellgate configuration directory: `$SHELLGATE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/shellgate`
 * (an absolute `XDG_CONFIG_HOME` only, as XDG asks), else `%APPDATA%\shellgate` on Windows, else
 * `~/.config/shellgate`.
 */
export function userConfigDir(env: UserPathsEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  const explicit = env["SHELLGATE_CONFIG_DIR"];
  if (explicit) return path.resolve(explicit);
  const xdg = env["XDG_CONFIG_HOME"];
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "shellgate");
  if (platform === "win32" && env["APPDATA"]) return path.join(env["APPDATA"], "shellgate");
  return path.join(homeDir(env), ".config", "shellgate");
}

/** Where the user's own rules live (`<config dir>/rules`); "always allow" amendments go to `default.rules` there. */
export function userRulesDir(env: UserPathsEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return path.join(userConfigDir(env, platform), "rules");
}

/** The Codex CLI's rules directory (`$CODEX_HOME/rules`, else `~/.codex/rules`), read so existing rules keep working. */
export function codexRulesDir(env: UserPathsEnv = process.env): string {
  const codexHome = env["CODEX_HOME"];
  return path.join(codexHome ? path.resolve(codexHome) : path.join(homeDir(env), ".codex"), "rules");
}

/**
 * The user-wide git config files git reads, in its order: `$GIT_CONFIG_GLOBAL` alone when set;
 * otherwise `$XDG_CONFIG_HOME/git/config` (an absolute `XDG_CONFIG_HOME`, else `~/.config/git/config`)
 * and `~/.gitconfig`. shellgate reads them to hold read-only what they make git run inside a
 * writable root, so they must be the files the person's git reads.
 */
export function gitGlobalConfigFiles(env: UserPathsEnv = process.env): string[] {
  const configured = env["GIT_CONFIG_GLOBAL"];
  if (configured) return [configured];
  const home = homeDir(env);
  const xdg = env["XDG_CONFIG_HOME"];
  return [path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".config"), "git", "config"), path.join(home, ".gitconfig")];
}
