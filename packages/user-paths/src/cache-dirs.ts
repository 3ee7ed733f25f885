import path from "node:path";
import { homeDir, type UserPathsEnv } from "./home.js";

/**
 * shellgate's per-user cache directory: `$XDG_CACHE_HOME/shellgate` (an absolute `XDG_CACHE_HOME`
 * only), else `~/.cache/shellgate`. Everything in it is read by shellgate's host side (compiled
 * policies, the Linux probe, the V8 code cache the CLI starts from), so every sandbox holds it
 * read-only (see `userProtectedPaths`).
 */
export function shellgateCacheDir(env: UserPathsEnv = process.env): string {
  const xdg = env["XDG_CACHE_HOME"];
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(homeDir(env), ".cache"), "shellgate");
}

/**
 * The compiled-policy cache of shellgate's tools: `$SHELLGATE_POLICY_CACHE_DIR`, else
 * `<shellgateCacheDir>/execpolicy`.
 */
export function policyCacheDir(env: UserPathsEnv = process.env): string {
  const explicit = env["SHELLGATE_POLICY_CACHE_DIR"];
  return explicit ? path.resolve(explicit) : path.join(shellgateCacheDir(env), "execpolicy");
}

/** The Linux backend's cached capability probe: `<shellgateCacheDir>/linux-sandbox-probe.json`. */
export function linuxProbeCacheFile(env: UserPathsEnv = process.env): string {
  return path.join(shellgateCacheDir(env), "linux-sandbox-probe.json");
}

/** The Linux backend's placeholder lock files: `<shellgateCacheDir>/locks`. */
export function placeholderLockDir(env: UserPathsEnv = process.env): string {
  return path.join(shellgateCacheDir(env), "locks");
}

/** V8's compiled code for the CLI's bundle: `<shellgateCacheDir>/v8`. */
export function codeCacheDir(env: UserPathsEnv = process.env): string {
  return path.join(shellgateCacheDir(env), "v8");
}

/**
 * Per-run files of the host side where `$XDG_RUNTIME_DIR` is not set (the network proxy's sockets):
 * `<shellgateCacheDir>/run`.
 */
export function runFilesDir(env: UserPathsEnv = process.env): string {
  return path.join(shellgateCacheDir(env), "run");
}

/** The sandbox tool caches' directory name under the user's cache directory; not `shellgate`, which every sandbox holds read-only. */
export const SANDBOX_TOOL_CACHE_DIR_NAME = "shellgate-sandbox";

/**
 * The per-user directory sandboxed runs keep their tool caches in (npm, pip, go, cargo…), writable
 * inside the sandbox and never read by the host's own tools: `$XDG_CACHE_HOME/shellgate-sandbox`,
 * else `~/Library/Caches/shellgate-sandbox` on macOS, `%LOCALAPPDATA%\shellgate-sandbox` on Windows,
 * `~/.cache/shellgate-sandbox` elsewhere. Relative variables are ignored; undefined when no absolute
 * home (or, on Windows, `%LOCALAPPDATA%`) is known.
 */
export function sandboxToolCacheDir(env: UserPathsEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  const xdg = env["XDG_CACHE_HOME"];
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, SANDBOX_TOOL_CACHE_DIR_NAME);
  if (platform === "win32") {
    const local = env["LOCALAPPDATA"];
    return local && path.isAbsolute(local) ? path.join(local, SANDBOX_TOOL_CACHE_DIR_NAME) : undefined;
  }
  const home = homeDir(env);
  if (!path.isAbsolute(home)) return undefined;
  return platform === "darwin"
    ? path.join(home, "Library", "Caches", SANDBOX_TOOL_CACHE_DIR_NAME)
    : path.join(home, ".cache", SANDBOX_TOOL_CACHE_DIR_NAME);
}
