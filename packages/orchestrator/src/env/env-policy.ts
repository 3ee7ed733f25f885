import { z } from "zod";
import { OrchestratorConfigError } from "../errors.js";
import { compileNameGlob, matchesAny } from "./glob.js";

/**
 * Name globs that look like secrets (substring matches; see also `DEFAULT_SECRET_NAME_PARTS` and the
 * URL-with-password value check). Unlike Codex (which passes them unless configured otherwise),
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
 * Order: start set (`inherit`) → drop secret-looking names and values (unless `ignoreDefaultExcludes`;
 * names listed literally in `includeOnly` are exempt) →
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
 * Name *components* (the name split on `_`, compared case-insensitively) that mark a secret. Whole
 * components, not substrings: `PAT` catches `GH_PAT` but not `PATH`, `AUTH` catches
 * `DOCKER_AUTH_CONFIG` (and `SSH_AUTH_SOCK`, the key to the user's ssh agent) but not `XAUTHORITY`.
 * `PWD` counts only in a name of several components (`MYSQL_PWD`): the plain `PWD` variable is the
 * working directory, and `OLDPWD` is one component that is not `PWD`.
 */
export const DEFAULT_SECRET_NAME_PARTS: readonly string[] = Object.freeze(["PWD", "PAT", "DSN", "WEBHOOK", "JWT", "AUTH"]);

// scheme://[user]:password@ anywhere in the value (`DATABASE_URL`, `REDIS_URL`, a proxy with credentials,
// a JDBC URL). The password must be non-empty; a user alone (`https://key@host`) is not matched here.
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:[^\s/?#@]+@/i;

/** Why a variable was left out of a command's environment. */
export type EnvDropReason =
  | { kind: "secret-name"; pattern: string }
  | { kind: "secret-name-part"; part: string }
  | { kind: "secret-value"; pattern: "url-with-password" }
  | { kind: "exclude"; pattern: string }
  | { kind: "include-only" }
  | { kind: "not-core" };

/** One variable of the host environment that a command will not see, and why. Never holds the value. */
export interface EnvDrop {
  name: string;
  reason: EnvDropReason;
}

/** The default scrub's verdict on one variable: why it looks like a secret, or undefined when it does not. */
export function defaultSecretReason(name: string, value: string): EnvDropReason | undefined {
  const glob = DEFAULT_SECRET_GLOBS.find((g) => g.re.test(name));
  if (glob) return { kind: "secret-name", pattern: glob.pattern };
  const parts = name.toUpperCase().split("_");
  const part = DEFAULT_SECRET_NAME_PARTS.find((p) => parts.includes(p) && (p !== "PWD" || parts.length > 1));
  if (part) return { kind: "secret-name-part", part };
  if (URL_WITH_PASSWORD.test(value)) return { kind: "secret-value", pattern: "url-with-password" };
  return undefined;
}

const DEFAULT_SECRET_GLOBS = DEFAULT_SECRET_EXCLUDES.map((pattern) => ({ pattern, re: compileNameGlob(pattern) }));

/** A readable line for one drop reason (for `shellgate doctor` and logs). */
export function describeEnvDropReason(reason: EnvDropReason): string {
  switch (reason.kind) {
    case "secret-name":
      return `default scrub: name matches ${reason.pattern}`;
    case "secret-name-part":
      return `default scrub: name part ${reason.part}`;
    case "secret-value":
      return "default scrub: value is a URL with a password";
    case "exclude":
      return `exclude: ${reason.pattern}`;
    case "include-only":
      return "not matched by include_only";
    case "not-core":
      return "inherit = core: not a core variable";
  }
}

function derive(
  policy: ShellEnvironmentPolicyInput | ShellEnvironmentPolicy,
  hostEnv: Readonly<Record<string, string | undefined>>,
  options: BuildEnvOptions,
): { env: Record<string, string>; dropped: EnvDrop[] } {
  const p = parseShellEnvironmentPolicy(policy);
  const platform = options.platform ?? process.platform;
  const core = new Set((platform === "win32" ? CORE_ENV_VARS_WINDOWS : CORE_ENV_VARS_UNIX).map((n) => n.toUpperCase()));
  const dropped: EnvDrop[] = [];

  const env: Record<string, string> = {};
  if (p.inherit !== "none") {
    for (const [name, value] of Object.entries(hostEnv)) {
      if (value === undefined) continue;
      if (p.inherit === "core" && !core.has(name.toUpperCase())) {
        dropped.push({ name, reason: { kind: "not-core" } });
        continue;
      }
      env[name] = value;
    }
  }

  // A name spelled out in include_only (no wildcard) is the user asking for that variable by name:
  // it passes the default scrub. A wildcard never does, so `include_only = ["*"]` keeps the scrub.
  const named = new Set(p.includeOnly.filter((g) => !/[*?]/.test(g)).map((g) => g.toUpperCase()));
  if (!p.ignoreDefaultExcludes) {
    for (const [name, value] of Object.entries(env)) {
      if (named.has(name.toUpperCase())) continue;
      const reason = defaultSecretReason(name, value);
      if (reason) {
        delete env[name];
        dropped.push({ name, reason });
      }
    }
  }
  const excludes = p.exclude.map((pattern) => ({ pattern, re: compileNameGlob(pattern) }));
  for (const name of Object.keys(env)) {
    const hit = excludes.find((e) => e.re.test(name));
    if (hit) {
      delete env[name];
      dropped.push({ name, reason: { kind: "exclude", pattern: hit.pattern } });
    }
  }

  Object.assign(env, p.set);

  if (p.includeOnly.length > 0) {
    const keep = p.includeOnly.map(compileNameGlob);
    for (const name of Object.keys(env)) {
      if (!matchesAny(name, keep)) {
        delete env[name];
        dropped.push({ name, reason: { kind: "include-only" } });
      }
    }
  }

  if (platform === "win32" && !Object.keys(env).some((n) => n.toUpperCase() === "PATHEXT")) {
    env["PATHEXT"] = ".COM;.EXE;.BAT;.CMD";
  }
  return { env, dropped };
}

/**
 * The complete environment for a command under `policy`, derived from `hostEnv` (usually
 * `process.env`). The result is the whole environment: callers spawn with it, not merged with the host's.
 * The default scrub (unless `ignoreDefaultExcludes`) drops names matching `DEFAULT_SECRET_EXCLUDES`,
 * names with a component in `DEFAULT_SECRET_NAME_PARTS`, and values holding a URL with a password;
 * a name listed literally in `includeOnly` is exempt from it.
 */
export function buildCommandEnv(
  policy: ShellEnvironmentPolicyInput | ShellEnvironmentPolicy,
  hostEnv: Readonly<Record<string, string | undefined>>,
  options: BuildEnvOptions = {},
): Record<string, string> {
  return derive(policy, hostEnv, options).env;
}

/**
 * Which host variables a command will not see under `policy`, each with the rule that dropped it
 * (sorted by name). Names only, never values: safe to print (`shellgate doctor`).
 * @throws OrchestratorConfigError for an invalid policy.
 */
export function explainEnvScrub(
  policy: ShellEnvironmentPolicyInput | ShellEnvironmentPolicy,
  hostEnv: Readonly<Record<string, string | undefined>>,
  options: BuildEnvOptions = {},
): EnvDrop[] {
  return derive(policy, hostEnv, options).dropped.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
