// Every per-user location shellgate reads or writes, computed in one place: which of them a sandbox
// must hold read-only is a security invariant, and two copies of a path rule that drift apart would
// leave a location in use that no sandbox protects.
export { homeDir, type UserPathsEnv } from "./home.js";
export { codexRulesDir, gitGlobalConfigFiles, userConfigDir, userRulesDir } from "./config-dirs.js";
export {
  codeCacheDir,
  linuxProbeCacheFile,
  outputSpillDir,
  placeholderLockDir,
  policyCacheDir,
  runFilesDir,
  SANDBOX_TOOL_CACHE_DIR_NAME,
  sandboxToolCacheDir,
  shellgateCacheDir,
} from "./cache-dirs.js";
export { userProtectedPaths } from "./protected.js";
