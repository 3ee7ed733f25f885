import { z } from "zod";
import { DURATION_FORMS, parseDuration } from "../duration.js";
import { InvalidDurationError } from "../errors.js";
import { ApprovalPolicyNameSchema, PROCESS_LIMIT_MAX, PROCESS_LIMIT_MIN, SandboxModeNameSchema } from "./names.js";

export { ApprovalPolicyNameSchema, SandboxModeNameSchema, type ApprovalPolicyName, type SandboxModeName } from "./names.js";

/** The `[sandbox_workspace_write]` table. */
const WorkspaceWriteTableSchema = z.strictObject({
  writable_roots: z.array(z.string().min(1)).optional(),
  network_access: z.boolean().optional(),
  exclude_tmpdir_env_var: z.boolean().optional(),
  exclude_slash_tmp: z.boolean().optional(),
});

/** The `[shell_environment_policy]` table: how a command's environment derives from shellgate's. */
const ShellEnvironmentTableSchema = z.strictObject({
  inherit: z.enum(["all", "core", "none"]).optional(),
  /** true passes variables named like secrets (`*KEY*`, `*TOKEN*`…) through; they are dropped by default. */
  ignore_default_excludes: z.boolean().optional(),
  exclude: z.array(z.string().min(1)).optional(),
  include_only: z.array(z.string().min(1)).optional(),
  set: z.record(z.string(), z.string()).optional(),
});

/**
 * The `[network]` table: hosts sandboxed commands may (`allow`) or may never (`deny`) reach through
 * shellgate's network proxy. Exact host names or IP literals, normalised like `network_rule` hosts.
 */
const NetworkTableSchema = z.strictObject({
  allow: z.array(z.string().min(1)).optional(),
  deny: z.array(z.string().min(1)).optional(),
});

/** How much the user trusts a project (`[projects."/abs/path"] trust_level = ...`, Codex's format). */
export const TrustLevelSchema = z.enum(["trusted", "untrusted"]);
export type TrustLevel = z.infer<typeof TrustLevelSchema>;

/** One `[projects."/abs/path"]` table of the user configuration. */
const ProjectTrustTableSchema = z.strictObject({ trust_level: TrustLevelSchema });

/**
 * One configuration file (`.shellgate/config.toml` in a project, `config.toml` in the user's config directory).
 * Every key is optional; unknown keys are an error so typos are not silently ignored.
 */
// One message for every way a process limit can be wrong (a fraction, out of range, another word).
const PROCESS_LIMIT_ERROR = { error: `expected a whole number from ${PROCESS_LIMIT_MIN} to ${PROCESS_LIMIT_MAX}, or "off"` };

/**
 * A duration key: a number (milliseconds) or a string with units, read by `parseDuration` (the
 * same words as the flags); the parsed value is milliseconds.
 */
function durationSetting(key: string) {
  return z.union([z.number(), z.string()], { error: `expected ${DURATION_FORMS}` }).transform((value, ctx) => {
    try {
      return parseDuration(key, value);
    } catch (error) {
      if (!(error instanceof InvalidDurationError)) throw error;
      ctx.addIssue({ code: "custom", message: `${error.reason}, got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
  });
}

export const ConfigFileSchema = z.strictObject({
  approval_policy: ApprovalPolicyNameSchema.optional(),
  sandbox_mode: SandboxModeNameSchema.optional(),
  /** Network access for `external-sandbox` (for `workspace-write` use `[sandbox_workspace_write] network_access`). */
  network_access: z.boolean().optional(),
  /** Extra rules files, relative to the file that names them. */
  rules: z.array(z.string().min(1)).optional(),
  /** Whether to read the Codex rules directory (`~/.codex/rules`) too. Default true. */
  codex_rules: z.boolean().optional(),
  /** Timeout of `shellgate exec`: a duration (`"10m"`, `"90s"`) or a number of milliseconds (0 = none; default 10 minutes). */
  timeout: durationSetting("timeout").optional(),
  /** The older name of `timeout` (a number is milliseconds here too); a file may give one of the two. */
  timeout_ms: durationSetting("timeout_ms").optional(),
  /** Paths commands may never read, even when approved (kept sandboxed). */
  denied_read_paths: z.array(z.string().min(1)).optional(),
  sandbox_workspace_write: WorkspaceWriteTableSchema.optional(),
  /** Domain grants; a project that is not trusted may add `deny` entries only. */
  network: NetworkTableSchema.optional(),
  shell_environment_policy: ShellEnvironmentTableSchema.optional(),
  /**
   * Allow the workspace or a writable root to be `/`, the home directory or an ancestor of it under
   * workspace-write. Honoured from the user config and trusted projects only.
   */
  allow_broad_workspace: z.boolean().optional(),
  /**
   * Accept the Linux Landlock+seccomp fallback when bubblewrap cannot run (weaker isolation). Honoured
   * from the user config and trusted projects only.
   */
  allow_weaker_isolation: z.boolean().optional(),
  /**
   * Run scripts through the user's shell as a login shell (`bash -lc`), loading the profile, and let
   * the model ask for one (default true, Codex's behaviour). false: `bash -c`, and a model's
   * `login: true` is refused. A project that is not trusted may only turn it off.
   */
  allow_login_shell: z.boolean().optional(),
  /**
   * `shellgate mcp` keeps one sandbox set up ahead of the next one-shot command, each command still
   * in a sandbox no command used before (default true). false: every command sets its sandbox up
   * when it comes.
   */
  prewarm_sandboxes: z.boolean().optional(),
  /**
   * The most processes (threads included) one sandboxed command may run at once, or "off" for no
   * cap. Default 4096. A project that is not trusted may only lower it.
   */
  process_limit: z
    .union([z.number().int(PROCESS_LIMIT_ERROR).min(PROCESS_LIMIT_MIN, PROCESS_LIMIT_ERROR).max(PROCESS_LIMIT_MAX, PROCESS_LIMIT_ERROR), z.literal("off")], PROCESS_LIMIT_ERROR)
    .optional(),
  /**
   * Per-project trust, keyed by absolute path (matched against the workspace's real path, exactly).
   * Read from the user config only; a project file naming it is refused.
   */
  projects: z.record(z.string().min(1), ProjectTrustTableSchema).optional(),
}).superRefine((c, ctx) => {
  if (c.timeout !== undefined && c.timeout_ms !== undefined) {
    ctx.addIssue({ code: "custom", path: ["timeout_ms"], message: "give either `timeout` or `timeout_ms`, not both" });
  }
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;
