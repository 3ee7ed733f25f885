import { z } from "zod";
import { OrchestratorConfigError } from "../errors.js";
import { compileNameGlob, matchesAny } from "./glob.js";

/**
 * Names that look like secrets. Unlike Codex (which passes them unless configured otherwise),
 * shellgate drops them by default: an agent's commands rarely need the host's credentials, and
 * leaking them into model-visible output is the worse failure.
 */
export const DEFAULT_SECRET_EXCLUDES: readonly string[] = Object.freeze([
  "*KEY*",
  "*SECRET*",
  "*TOKEN*",
  "*PASSWORD*",
  "*CREDENTIAL*",
]);

/** Variables kept by `inherit: "core"` on Unix (matched case-insensitively). */
export const CORE_ENV_VARS_UNIX: readonly string[] = Object.freeze([
  "PATH", "SHELL", "TMPDIR", "TEMP", "TMP", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "USER",
]);

/** Variables kept by `inherit: "core"` on Windows (matched case-insensitively). */
export const CORE_ENV_VARS_WINDOWS: readonly string[] = Object.freeze([
  "PATH", "PATHEXT", "SHELL", "COMSPEC", "SYSTEMROOT", "SYSTEMDRIVE", "USERNAME", "USERDOMAIN", "USERPROFILE",
  "HOMEDRIVE", "HOMEPATH", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432", "PROGRAMDATA", "LOCALAPPDATA",
  "APPDATA", "TEMP", "TMP", "TMPDIR", "POWERSHELL", "PWSH",
]);

const globList = z.array(z.string().min(1, "a pattern must not be empty")).default([]);

/**
 * How the environment of a spawned command is derived from the host's (`[shell_environment_policy]`).
 * Order: start set (`inherit`) → drop secret-looking names (unless `ignoreDefaultExcludes`) →
 * drop `exclude` → apply `set` → keep only `includeOnly` (when non-empty).
 */
export const ShellEnvironmentPolicySchema = z.strictObject({
  inherit: z.enum(["all", "core", "none"]).default("all"),
  /** `true` passes secret-looking names through (Codex's default); shellgate defaults to `false`. */
  ignoreDefaultExcludes: z.boolean().default(false),
  exclude: globList,
  includeOnly: globList,
  set: z.record(z.string(), z.string()).default({}),
});
export type ShellEnvironmentPolicy = z.infer<typeof ShellEnvironmentPolicySchema>;
/** The policy as a caller may write it, before defaults are applied. */
export type ShellEnvironmentPolicyInput = z.input<typeof ShellEnvironmentPolicySchema>;

/**
 * Validate an outside environment policy and apply defaults.
 * @throws OrchestratorConfigError naming the field (e.g. `shellEnvironmentPolicy.exclude.0`).
 */
export function parseShellEnvironmentPolicy(input: unknown, field = "shellEnvironmentPolicy"): ShellEnvironmentPolicy {
  const result = ShellEnvironmentPolicySchema.safeParse(input ?? {});
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${field}.${issue.path.map(String).join(".")}` : field;
    throw new OrchestratorConfigError(where, issue?.message ?? "invalid value", { cause: result.error });
  }
  return result.data;
}

/** Options for `buildCommandEnv` that describe the host rather than the policy. */
export interface BuildEnvOptions {
  /** Platform whose core variable list and PATHEXT rule apply; defaults to `process.platform`. */
  platform?: NodeJS.Platform;
}

/**
 * The complete environment for a command under `policy`, derived from `hostEnv` (usually
 * `process.env`). The result is the whole environment: callers spawn with it, not merged with the host's.
 */
export function buildCommandEnv(
  policy: ShellEnvironmentPolicyInput | ShellEnvironmentPolicy,
  hostEnv: Readonly<Record<string, string | undefined>>,
  options: BuildEnvOptions = {},
): Record<string, string> {
  const p = parseShellEnvironmentPolicy(policy);
  const platform = options.platform ?? process.platform;
  const core = new Set((platform === "win32" ? CORE_ENV_VARS_WINDOWS : CORE_ENV_VARS_UNIX).map((n) => n.toUpperCase()));

  const env: Record<string, string> = {};
  if (p.inherit !== "none") {
    for (const [name, value] of Object.entries(hostEnv)) {
      if (value === undefined) continue;
      if (p.inherit === "core" && !core.has(name.toUpperCase())) continue;
      env[name] = value;
    }
  }

  const drop = (patterns: readonly string[]): void => {
    const compiled = patterns.map(compileNameGlob);
    for (const name of Object.keys(env)) if (matchesAny(name, compiled)) delete env[name];
  };
  if (!p.ignoreDefaultExcludes) drop(DEFAULT_SECRET_EXCLUDES);
  drop(p.exclude);

  Object.assign(env, p.set);

  if (p.includeOnly.length > 0) {
    const keep = p.includeOnly.map(compileNameGlob);
    for (const name of Object.keys(env)) if (!matchesAny(name, keep)) delete env[name];
  }

  if (platform === "win32" && !Object.keys(env).some((n) => n.toUpperCase() === "PATHEXT")) {
    env["PATHEXT"] = ".COM;.EXE;.BAT;.CMD";
  }
  return env;
}
