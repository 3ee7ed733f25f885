import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { defaultPolicyCacheDir } from "@shellgate/execpolicy";
import { parseSandboxPolicy, type SandboxPolicy } from "@shellgate/sandbox";
import { ConfigError, UsageError } from "../errors.js";
import { readConfigFile } from "./file.js";
import { codexRulesDir, CONFIG_FILE_NAME, PROJECT_DIR_NAME, userConfigDir, userRulesDir, type PathEnv } from "./paths.js";
import { listRulesDir, type RulesFileEntry } from "./rules-files.js";
import type { ApprovalPolicyName, ConfigFile, SandboxModeName } from "./schema.js";

/** The environment policy in the orchestrator's camelCase form. */
export interface ShellEnvironmentSettings {
  inherit?: "all" | "core" | "none";
  ignoreDefaultExcludes?: boolean;
  exclude?: string[];
  includeOnly?: string[];
  set?: Record<string, string>;
}

/** Settings given on the command line; they win over every file. */
export interface ConfigOverrides {
  cwd?: string;
  approvalPolicy?: ApprovalPolicyName;
  sandboxMode?: SandboxModeName;
  writableRoots?: string[];
  network?: boolean;
  rules?: string[];
  /** Skip the user, Codex and config-file rules; use only `rules`. */
  noDefaultRules?: boolean;
  timeoutMs?: number;
}

/** The configuration in effect after flags, the project file, the user file and the defaults are merged. */
export interface EffectiveConfig {
  cwd: string;
  approvalPolicy: ApprovalPolicyName;
  sandboxPolicy: SandboxPolicy;
  /** Rules files in load order (later files may override `host_executable` definitions of earlier ones). */
  rules: RulesFileEntry[];
  /** Where "always allow this prefix" writes. */
  userRulesFile: string;
  /** The configuration files that were found and read, lowest precedence first. */
  configFiles: string[];
  timeoutMs: number;
  /** The `[shell_environment_policy]` table merged across files (later files win per key), if any. */
  shellEnvironmentPolicy?: ShellEnvironmentSettings;
  /** Paths commands must not write even inside writable roots: configuration and rules directories. */
  protectedPaths: string[];
}

/** The documented defaults: ask on request, workspace-write sandbox, no network, no `exec` timeout. */
export const DEFAULTS = {
  approvalPolicy: "on-request" as ApprovalPolicyName,
  sandboxMode: "workspace-write" as SandboxModeName,
  network: false,
  /** `shellgate exec` waits for the command as long as it takes unless told otherwise. */
  timeoutMs: 0,
};

/** The nearest `.shellgate/config.toml` at or above `cwd`, or null. */
export function findProjectConfig(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const candidate = path.join(dir, PROJECT_DIR_NAME, CONFIG_FILE_NAME);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

interface Layer {
  file: string;
  /** The user's home, for `~/` in paths. */
  home: string;
  /** Relative paths in the file resolve against this: the project root, or the user's config directory. */
  base: string;
  config: ConfigFile;
}

function last<T>(layers: Layer[], pick: (c: ConfigFile) => T | undefined): T | undefined {
  let value: T | undefined;
  for (const layer of layers) {
    const v = pick(layer.config);
    if (v !== undefined) value = v;
  }
  return value;
}

function resolveFrom(layer: Layer, p: string): string {
  if (p === "~" || p.startsWith("~/")) return path.join(layer.home, p.slice(1));
  return path.resolve(layer.base, p);
}

/**
 * Load the configuration: flags, then the project's `.shellgate/config.toml`, then the user's
 * `config.toml`, then {@link DEFAULTS}.
 * @throws ConfigError for an unreadable or invalid file, UsageError for contradictory flags.
 */
export async function loadConfig(overrides: ConfigOverrides = {}, env: PathEnv = process.env): Promise<EffectiveConfig> {
  const cwd = path.resolve(overrides.cwd ?? process.cwd());
  if (!existsSync(cwd)) throw new UsageError(`--cwd: directory does not exist: ${cwd}`);
  const userDir = userConfigDir(env);
  const home = env["HOME"] || env["USERPROFILE"] || os.homedir();
  const layers: Layer[] = [];
  const userFile = path.join(userDir, CONFIG_FILE_NAME);
  const userConfig = await readConfigFile(userFile);
  if (userConfig) layers.push({ file: userFile, base: userDir, home, config: userConfig });
  const projectFile = findProjectConfig(cwd);
  if (projectFile && projectFile !== userFile) {
    const projectConfig = await readConfigFile(projectFile);
    if (projectConfig) layers.push({ file: projectFile, base: path.dirname(path.dirname(projectFile)), home, config: projectConfig });
  }

  const approvalPolicy = overrides.approvalPolicy ?? last(layers, (c) => c.approval_policy) ?? DEFAULTS.approvalPolicy;
  const mode = overrides.sandboxMode ?? last(layers, (c) => c.sandbox_mode) ?? DEFAULTS.sandboxMode;
  const sandboxPolicy = buildSandboxPolicy(mode, layers, overrides, cwd);

  const rules: RulesFileEntry[] = [];
  if (!overrides.noDefaultRules) {
    for (const file of await listRulesDir(userRulesDir(env))) rules.push({ file, origin: "user" });
    if (last(layers, (c) => c.codex_rules) ?? true) {
      for (const file of await listRulesDir(codexRulesDir(env))) rules.push({ file, origin: "codex" });
    }
    for (const layer of layers) {
      for (const r of layer.config.rules ?? []) rules.push({ file: resolveFrom(layer, r), origin: "config" });
    }
  }
  for (const r of overrides.rules ?? []) rules.push({ file: path.resolve(cwd, r), origin: "flag" });

  let shellEnvironmentPolicy: ShellEnvironmentSettings | undefined;
  for (const layer of layers) {
    const t = layer.config.shell_environment_policy;
    if (!t) continue;
    shellEnvironmentPolicy = {
      ...shellEnvironmentPolicy,
      ...(t.inherit !== undefined ? { inherit: t.inherit } : {}),
      ...(t.ignore_default_excludes !== undefined ? { ignoreDefaultExcludes: t.ignore_default_excludes } : {}),
      ...(t.exclude !== undefined ? { exclude: t.exclude } : {}),
      ...(t.include_only !== undefined ? { includeOnly: t.include_only } : {}),
      ...(t.set !== undefined ? { set: t.set } : {}),
    };
  }

  // policy-check's compiled-policy cache: a command that could rewrite it would change what policy-check reports.
  const protectedPaths = [userDir, codexRulesDir(env), defaultPolicyCacheDir(env)];
  if (projectFile) protectedPaths.push(path.dirname(projectFile));
  protectedPaths.push(path.join(cwd, PROJECT_DIR_NAME));

  return {
    cwd,
    approvalPolicy,
    sandboxPolicy,
    rules,
    userRulesFile: path.join(userRulesDir(env), "default.rules"),
    configFiles: layers.map((l) => l.file),
    timeoutMs: overrides.timeoutMs ?? last(layers, (c) => c.timeout_ms) ?? DEFAULTS.timeoutMs,
    ...(shellEnvironmentPolicy ? { shellEnvironmentPolicy } : {}),
    protectedPaths: [...new Set(protectedPaths)],
  };
}

function buildSandboxPolicy(mode: SandboxModeName, layers: Layer[], overrides: ConfigOverrides, cwd: string): SandboxPolicy {
  if (overrides.network !== undefined && (mode === "read-only" || mode === "danger-full-access")) {
    throw new UsageError(`--network: not adjustable under sandbox mode ${mode} (use workspace-write or external-sandbox)`);
  }
  if (overrides.writableRoots?.length && mode !== "workspace-write") {
    throw new UsageError(`--writable-root: only meaningful with --sandbox workspace-write (mode is ${mode})`);
  }
  const deniedReadPaths: string[] = [];
  for (const layer of layers) {
    for (const p of layer.config.denied_read_paths ?? []) deniedReadPaths.push(resolveFrom(layer, p));
  }
  let input: unknown;
  switch (mode) {
    case "read-only":
      input = { mode, deniedReadPaths };
      break;
    case "danger-full-access":
      input = { mode };
      break;
    case "external-sandbox":
      input = { mode, networkAccess: overrides.network ?? last(layers, (c) => c.network_access) ?? DEFAULTS.network };
      break;
    case "workspace-write": {
      const writableRoots: string[] = [];
      for (const layer of layers) {
        for (const r of layer.config.sandbox_workspace_write?.writable_roots ?? []) writableRoots.push(resolveFrom(layer, r));
      }
      for (const r of overrides.writableRoots ?? []) writableRoots.push(path.resolve(cwd, r));
      input = {
        mode,
        writableRoots,
        networkAccess:
          overrides.network ?? last(layers, (c) => c.sandbox_workspace_write?.network_access) ?? DEFAULTS.network,
        excludeTmpdirEnvVar: last(layers, (c) => c.sandbox_workspace_write?.exclude_tmpdir_env_var) ?? false,
        excludeSlashTmp: last(layers, (c) => c.sandbox_workspace_write?.exclude_slash_tmp) ?? false,
        deniedReadPaths,
      };
      break;
    }
  }
  try {
    return parseSandboxPolicy(input);
  } catch (error) {
    throw new ConfigError("sandbox", (error as Error).message, { cause: error });
  }
}
