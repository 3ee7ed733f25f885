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
