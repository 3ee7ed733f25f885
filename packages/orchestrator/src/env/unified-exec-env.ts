/**
 * Variables every interactive (unified exec) process gets on top of the policy environment, so
 * tools print plain, uncoloured, unpaged text that reads well to a model. Applied last, overwriting.
 */
export const UNIFIED_EXEC_ENV: Readonly<Record<string, string>> = Object.freeze({
  NO_COLOR: "1",
  TERM: "dumb",
  LANG: "C.UTF-8",
  LC_CTYPE: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  COLORTERM: "",
  PAGER: "cat",
  GIT_PAGER: "cat",
  GH_PAGER: "cat",
  CODEX_CI: "1",
});

/** `env` with the unified-exec overlay applied (a new object; `env` is not modified). */
export function withUnifiedExecEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  return { ...env, ...UNIFIED_EXEC_ENV };
}
