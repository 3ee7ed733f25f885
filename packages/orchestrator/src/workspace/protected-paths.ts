import os from "node:os";
import path from "node:path";
import { defaultPolicyCacheDir } from "@shellgate/execpolicy";

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

function home(env: ProtectedPathsEnv): string {
  return env["HOME"] || env["USERPROFILE"] || os.homedir();
}

/**
 * The paths that decide how later commands are judged, and so must stay read-only inside every
 * writable root, whether they exist or not: shellgate's user configuration directory
 * (`$SHELLGATE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/shellgate`, else `%APPDATA%\shellgate` on Windows,
 * else `~/.config/shellgate`), the Codex rules directory (`$CODEX_HOME/rules`, else `~/.codex/rules`),
 * policy-check's compiled-policy cache (execpolicy's `defaultPolicyCacheDir`), shellgate's cache
 * directory as a whole (`$XDG_CACHE_HOME/shellgate`, else `~/.cache/shellgate`: the policy cache's
 * usual parent, the Linux sandbox's probe cache and placeholder locks, and the compiled code the CLI
 * starts from), and the workspace's `.shellgate`. A command that could write any of them could loosen
 * the rules its next run is judged by, or run its own code in the next CLI start.
 * `Orchestrator.create` holds these on top of the caller's `protectedPaths`; they are the same
 * locations the shellgate CLI reads its configuration from.
 */
export function defaultProtectedPaths(input: ProtectedPathsInput): string[] {
  const env = input.env ?? process.env;
  const platform = input.platform ?? process.platform;
  return [
    shellgateUserConfigDir(env, platform),
    codexRulesDir(env),
    defaultPolicyCacheDir(env),
    shellgateCacheDir(env),
    path.join(input.cwd, ".shellgate"),
  ];
}

function shellgateUserConfigDir(env: ProtectedPathsEnv, platform: NodeJS.Platform): string {
  const explicit = env["SHELLGATE_CONFIG_DIR"];
  if (explicit) return path.resolve(explicit);
  const xdg = env["XDG_CONFIG_HOME"];
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "shellgate");
  if (platform === "win32" && env["APPDATA"]) return path.join(env["APPDATA"], "shellgate");
  return path.join(home(env), ".config", "shellgate");
}

// As execpolicy's policy cache and the CLI's code cache find it: HOME, else the account's home.
function shellgateCacheDir(env: ProtectedPathsEnv): string {
  const xdg = env["XDG_CACHE_HOME"];
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(env["HOME"] || os.homedir(), ".cache"), "shellgate");
}

function codexRulesDir(env: ProtectedPathsEnv): string {
  const codexHome = env["CODEX_HOME"];
  return path.join(codexHome ? path.resolve(codexHome) : path.join(home(env), ".codex"), "rules");
}
