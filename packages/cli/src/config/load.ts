import { existsSync } from "node:fs";
import path from "node:path";
import { parseSandboxPolicy, type SandboxPolicy } from "@shellgate/sandbox";
import { homeDir } from "@shellgate/user-paths";
import { BroadWorkspaceError, ConfigError, UntrustedProjectConfigError, UsageError, type BroadRoot } from "../errors.js";
import { findBroadRoots, homeDirectories } from "./broad-workspace.js";
import { locateKeyPath } from "./locate.js";
import { readRegularFileSync } from "./regular-file.js";
import { codexRulesDir, CONFIG_FILE_NAME, PROJECT_DIR_NAME, userConfigDir, userRulesDir, type PathEnv } from "./paths.js";
import { listRulesDir, type RulesFileEntry } from "./rules-files.js";
import type { ApprovalPolicyName, SandboxModeName } from "./names.js";
import type { ConfigFile } from "./schema.js";
import { DEFAULT_PROCESS_LIMIT, type ProcessLimitSetting } from "./names.js";
import { firstLinkOnPath, linksOnPath } from "./root-links.js";
import { findWeakenings, type Baseline, type FlagsGiven } from "./strictness.js";
import { canonicalPath, isProjectTrusted, trustSnippet } from "./trust.js";

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
  /** `--allow-broad-workspace`: let the workspace or a writable root be `/` or the home directory. */
  allowBroadWorkspace?: boolean;
  /** `--allow-weaker-isolation`: accept the Landlock+seccomp fallback when bubblewrap cannot run. */
  allowWeakerIsolation?: boolean;
  /** `--process-limit N|off`: the most processes one sandboxed command may run at once. */
  processLimit?: ProcessLimitSetting;
  /** `--login` (true) / `--no-login` (false): whether scripts run through a login shell. */
  loginShell?: boolean;
  /** `--prewarm` (true) / `--no-prewarm` (false): whether `shellgate mcp` keeps a sandbox set up ahead of the next command. */
  prewarmSandboxes?: boolean;
  /** `--allow-domain HOST` (repeatable): hosts sandboxed commands may reach through the network proxy. */
  allowDomains?: string[];
}

/** One host of the domain policy and where it was granted or refused (`--allow-domain`, `FILE [network] allow`). */
interface DomainEntry {
  host: string;
  origin: string;
}

/** How {@link loadConfig} treats a workspace that is too broad. */
export interface LoadConfigOptions {
  /**
   * `refuse` (the default) throws {@link BroadWorkspaceError}; `report` only records the verdict in
   * `workspaceCheck`, for `doctor`.
   */
  broadWorkspace?: "refuse" | "report";
}

/** The project configuration file of the workspace and whether the user trusts the project. */
export interface ProjectConfigStatus {
  file: string;
  /** Listed as trusted in the user config: its settings apply as written; otherwise it may only tighten. */
  trusted: boolean;
}

/** The verdict on the writable directories under workspace-write (`/`, the home directory). */
export interface WorkspaceCheck {
  /** The workspace and writable roots that are `/`, a home directory or an ancestor of one (empty: fine). */
  broadRoots: BroadRoot[];
  /** Whether a broad root is allowed, and by what; `allowed` is true when there is none. */
  allowed: boolean;
  allowedBy?: "flag" | "config";
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
  /** The workspace's `.shellgate/config.toml`, when there is one, and whether it is trusted. */
  project: ProjectConfigStatus | null;
  workspaceCheck: WorkspaceCheck;
  timeoutMs: number;
  /** Whether the Landlock+seccomp fallback (weaker isolation) may be used when bubblewrap cannot run. */
  allowWeakerIsolation: boolean;
  /** Whether scripts run through the user's shell as a login shell (`allow_login_shell`, `--login`/`--no-login`; default true). */
  allowLoginShell: boolean;
  /** Whether `shellgate mcp` keeps a sandbox set up ahead of the next one-shot command (`prewarm_sandboxes`, `--prewarm`/`--no-prewarm`; default true). */
  prewarmSandboxes: boolean;
  /** `process_limit` / `--process-limit` when one was given; absent, the backend's default (4096) applies. */
  processLimit?: ProcessLimitSetting;
  /** The `[shell_environment_policy]` table merged across files (later files win per key), if any. */
  shellEnvironmentPolicy?: ShellEnvironmentSettings;
  /**
   * Paths commands must not write even inside writable roots, whether they exist or not: the
   * orchestrator's `defaultProtectedPaths` (configuration directories, the policy cache, the project's
   * `.shellgate`, which `Orchestrator.create` holds by itself) followed by the directories of the
   * loaded rules files, which only the CLI knows.
   */
  protectedPaths: string[];
  /**
   * The domain grants outside the rules files: `allow` from `--allow-domain` and the `[network]`
   * tables, `deny` from the tables. Normalised; the rules files' `network_rule`s come on top (the
   * orchestrator reads those).
   */
  network: { allow: DomainEntry[]; deny: DomainEntry[] };
}

/**
 * The documented defaults: ask on request, workspace-write sandbox, no network, and a 10-minute
 * timeout for `shellgate exec` (nobody may be watching it).
 */
export const DEFAULTS = {
  approvalPolicy: "on-request" as ApprovalPolicyName,
  sandboxMode: "workspace-write" as SandboxModeName,
  network: false,
  timeoutMs: 600_000,
};

/**
 * The workspace's own project file, `<cwd>/.shellgate/config.toml`, or null when it does not exist.
 * Ancestors are never searched: a directory above the workspace (a shared temp directory, another
 * project) does not configure it.
 */
export function findProjectConfig(cwd: string): string | null {
  const candidate = path.join(path.resolve(cwd), PROJECT_DIR_NAME, CONFIG_FILE_NAME);
  return existsSync(candidate) ? candidate : null;
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

/** What merging a list of layers with the flags gives, before rules and paths. */
interface Merged {
  approvalPolicy: ApprovalPolicyName;
  mode: SandboxModeName;
  sandboxPolicy: SandboxPolicy;
  shellEnvironmentPolicy: ShellEnvironmentSettings | undefined;
  timeoutMs: number;
  codexRules: boolean;
  allowBroadWorkspace: boolean;
  allowWeakerIsolation: boolean;
  allowLoginShell: boolean;
  prewarmSandboxes: boolean;
  processLimit: ProcessLimitSetting | undefined;
  /** Raw `[network] allow` entries of the layers and `--allow-domain`, in order, with their origin. */
  networkAllow: DomainEntry[];
  networkDeny: DomainEntry[];
}

/** `[shell_environment_policy]` of the layers, key by key, a later layer winning. */
function mergeShellEnvironmentPolicy(layers: Layer[]): ShellEnvironmentSettings | undefined {
  let policy: ShellEnvironmentSettings | undefined;
  for (const layer of layers) {
    const t = layer.config.shell_environment_policy;
    if (!t) continue;
    policy = {
      ...policy,
      ...(t.inherit !== undefined ? { inherit: t.inherit } : {}),
      ...(t.ignore_default_excludes !== undefined ? { ignoreDefaultExcludes: t.ignore_default_excludes } : {}),
      ...(t.exclude !== undefined ? { exclude: t.exclude } : {}),
      ...(t.include_only !== undefined ? { includeOnly: t.include_only } : {}),
      ...(t.set !== undefined ? { set: t.set } : {}),
    };
  }
  return policy;
}

function merge(layers: Layer[], overrides: ConfigOverrides, cwd: string): Merged {
  const approvalPolicy = overrides.approvalPolicy ?? last(layers, (c) => c.approval_policy) ?? DEFAULTS.approvalPolicy;
  const mode = overrides.sandboxMode ?? last(layers, (c) => c.sandbox_mode) ?? DEFAULTS.sandboxMode;
  const sandboxPolicy = buildSandboxPolicy(mode, layers, overrides, cwd);
  const shellEnvironmentPolicy = mergeShellEnvironmentPolicy(layers);
  return {
    approvalPolicy,
    mode,
    sandboxPolicy,
    shellEnvironmentPolicy,
    timeoutMs: overrides.timeoutMs ?? last(layers, (c) => c.timeout ?? c.timeout_ms) ?? DEFAULTS.timeoutMs,
    codexRules: last(layers, (c) => c.codex_rules) ?? true,
    allowBroadWorkspace: overrides.allowBroadWorkspace === true || (last(layers, (c) => c.allow_broad_workspace) ?? false),
    allowWeakerIsolation: overrides.allowWeakerIsolation === true || (last(layers, (c) => c.allow_weaker_isolation) ?? false),
    allowLoginShell: overrides.loginShell ?? last(layers, (c) => c.allow_login_shell) ?? true,
    prewarmSandboxes: overrides.prewarmSandboxes ?? last(layers, (c) => c.prewarm_sandboxes) ?? true,
    processLimit: overrides.processLimit ?? last(layers, (c) => c.process_limit),
    // Lists add up across layers: a project may only add denies unless trusted (see strictness.ts).
    networkAllow: [
      ...layers.flatMap((l) => (l.config.network?.allow ?? []).map((host) => ({ host, origin: `${l.file} [network] allow` }))),
      ...(overrides.allowDomains ?? []).map((host) => ({ host, origin: "--allow-domain" })),
    ],
    networkDeny: layers.flatMap((l) => (l.config.network?.deny ?? []).map((host) => ({ host, origin: `${l.file} [network] deny` }))),
  };
}

function baselineOf(merged: Merged, layers: Layer[], cwd: string): Baseline {
  const p = merged.sandboxPolicy;
  return {
    approvalPolicy: merged.approvalPolicy,
    sandboxMode: merged.mode,
    network: p.mode === "danger-full-access" || ((p.mode === "workspace-write" || p.mode === "external-sandbox") && p.networkAccess),
    writableRoots: p.mode === "workspace-write" ? p.writableRoots.map(canonicalPath) : [],
    workspace: canonicalPath(cwd),
    excludeTmpdirEnvVar: last(layers, (c) => c.sandbox_workspace_write?.exclude_tmpdir_env_var) ?? false,
    excludeSlashTmp: last(layers, (c) => c.sandbox_workspace_write?.exclude_slash_tmp) ?? false,
    env: merged.shellEnvironmentPolicy ?? {},
    timeoutMs: merged.timeoutMs,
    codexRules: merged.codexRules,
    allowBroadWorkspace: merged.allowBroadWorkspace,
    allowWeakerIsolation: merged.allowWeakerIsolation,
    allowLoginShell: merged.allowLoginShell,
    processLimit: merged.processLimit ?? DEFAULT_PROCESS_LIMIT,
    networkAllow: merged.networkAllow.map((e) => e.host.trim().toLowerCase()),
  };
}

function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/**
 * One configuration file, parsed; `null` when it does not exist. The TOML parser and the file's
 * schema are loaded with the first file that exists: most runs have none.
 * @throws ConfigError when it exists but cannot be read or is invalid.
 */
async function readConfigFileIfPresent(file: string): Promise<ConfigFile | null> {
  if (!existsSync(file)) return null;
  const { readConfigFile } = await import("./file.js");
  return readConfigFile(file);
}

/** The configuration files that apply, user first, after the project-trust check. */
interface Layers {
  cwd: string;
  layers: Layer[];
  project: ProjectConfigStatus | null;
}

/**
 * Read the user's and the workspace's config files into layers (user first). A project file of a
 * project the user has not trusted may only make the policy stricter than the user's file and the
 * flags, in the keys `judged` accepts (all by default: a caller that reads only some keys judges those).
 * @throws UntrustedProjectConfigError, ConfigError, UsageError (a `--cwd` that does not exist).
 */
async function readLayers(overrides: ConfigOverrides, env: PathEnv, judged: (key: string) => boolean = () => true): Promise<Layers> {
  const cwd = path.resolve(overrides.cwd ?? process.cwd());
  if (!existsSync(cwd)) throw new UsageError(`--cwd: directory does not exist: ${cwd}`);
  const userDir = userConfigDir(env);
  const home = homeDir(env);
  const userFile = path.join(userDir, CONFIG_FILE_NAME);
  const userConfig = await readConfigFileIfPresent(userFile);
  const userLayers: Layer[] = userConfig ? [{ file: userFile, base: userDir, home, config: userConfig }] : [];
  const layers: Layer[] = [...userLayers];

  let project: ProjectConfigStatus | null = null;
  const projectFile = findProjectConfig(cwd);
  if (projectFile && projectFile !== userFile) {
    const projectConfig = await readConfigFileIfPresent(projectFile);
    if (projectConfig) {
      if (projectConfig.projects !== undefined) {
        const at = locateKeyPath(readRegularFileSync(projectFile), ["projects"], "key");
        throw new ConfigError(
          projectFile,
          `\`projects\`: project trust is read only from your user config (${userFile}); a project cannot trust itself or others`,
          at ? { line: at.line, column: at.column } : {},
        );
      }
      const layer: Layer = { file: projectFile, base: cwd, home, config: projectConfig };
      refuseLinkedRoots(layer);
      const trusted = isProjectTrusted(userConfig, userFile, cwd);
      if (!trusted) {
        const baseline = baselineOf(merge(userLayers, overrides, cwd), userLayers, cwd);
        const flags: FlagsGiven = {
          approvalPolicy: overrides.approvalPolicy !== undefined,
          sandboxMode: overrides.sandboxMode !== undefined,
          network: overrides.network !== undefined,
          timeoutMs: overrides.timeoutMs !== undefined,
          noDefaultRules: overrides.noDefaultRules === true,
          allowBroadWorkspace: overrides.allowBroadWorkspace === true,
          allowWeakerIsolation: overrides.allowWeakerIsolation === true,
          loginShell: overrides.loginShell !== undefined,
          processLimit: overrides.processLimit !== undefined,
        };
        const weakenings = findWeakenings(projectConfig, baseline, flags, (p) => canonicalPath(resolveFrom(layer, p))).filter((w) => judged(w.key));
        if (weakenings.length > 0) {
          const text = readRegularFileSync(projectFile);
          const located = weakenings.map((w) => ({ ...w, ...locateKeyPath(text, w.key.split("."), "key") }));
          throw new UntrustedProjectConfigError(projectFile, located, userFile, trustSnippet(cwd));
        }
      }
      layers.push(layer);
      project = { file: projectFile, trusted };
    }
  }

  return { cwd, layers, project };
}

/**
 * The `[shell_environment_policy]` that applies to commands started in `cwd`: the user's and the
 * workspace's config files merged exactly as `loadConfig` merges them (with the same project-trust
 * check), and nothing else of the configuration. For runners that need only the environment policy
 * (`shellgate sandbox`). Undefined when no file sets one (the defaults apply).
 * @throws UntrustedProjectConfigError, ConfigError, UsageError as `loadConfig` does.
 */
export async function loadShellEnvironmentPolicy(cwd: string, env: PathEnv = process.env): Promise<ShellEnvironmentSettings | undefined> {
  // The other keys do not apply to such a runner, so only a loosening of this table is refused.
  const { layers } = await readLayers({ cwd }, env, (key) => key.startsWith("shell_environment_policy."));
  return mergeShellEnvironmentPolicy(layers);
}

/**
 * Load the configuration: flags, then the workspace's `.shellgate/config.toml`, then the user's
 * `config.toml`, then {@link DEFAULTS}. A project file of a project the user has not trusted (see
 * `[projects."<path>"]` in the user config) may only make the policy stricter.
 * @throws UntrustedProjectConfigError when an untrusted project file would loosen the policy,
 * BroadWorkspaceError when a writable directory is `/` or the home directory and nobody allowed it,
 * ConfigError for an unreadable or invalid file, UsageError for contradictory flags.
 */
export async function loadConfig(
  overrides: ConfigOverrides = {},
  env: PathEnv = process.env,
  options: LoadConfigOptions = {},
): Promise<EffectiveConfig> {
  const { cwd, layers, project } = await readLayers(overrides, env);
  const merged = merge(layers, overrides, cwd);
  const { approvalPolicy, sandboxPolicy } = merged;
  const network = await normalizeDomains(merged, layers);

  const rules: RulesFileEntry[] = [];
  if (!overrides.noDefaultRules) {
    for (const file of await listRulesDir(userRulesDir(env))) rules.push({ file, origin: "user" });
    if (merged.codexRules) {
      for (const file of await listRulesDir(codexRulesDir(env))) rules.push({ file, origin: "codex" });
    }
    for (const layer of layers) {
      for (const r of layer.config.rules ?? []) rules.push({ file: resolveFrom(layer, r), origin: "config" });
    }
  }
  for (const r of overrides.rules ?? []) rules.push({ file: path.resolve(cwd, r), origin: "flag" });

  const writableRoots = sandboxPolicy.mode === "workspace-write" ? sandboxPolicy.writableRoots : [];
  const broadRoots = sandboxPolicy.mode === "workspace-write" ? findBroadRoots(cwd, writableRoots, homeDirectories(env)) : [];
  const workspaceCheck: WorkspaceCheck = { broadRoots, allowed: broadRoots.length === 0 || merged.allowBroadWorkspace };
  if (broadRoots.length > 0 && merged.allowBroadWorkspace) {
    workspaceCheck.allowedBy = overrides.allowBroadWorkspace === true ? "flag" : "config";
  }
  if (!workspaceCheck.allowed && (options.broadWorkspace ?? "refuse") === "refuse") throw new BroadWorkspaceError(broadRoots);

  // Everything that decides how a later command is judged stays read-only, existing or not (the
  // sandbox holds a missing one with a placeholder). The orchestrator owns the defaults (the user's
  // and Codex's configuration, the workspace's `.shellgate`, policy-check's compiled-policy cache)
  // and holds them itself; they are listed here too so `doctor` shows what a run holds. What only
  // the CLI knows is the directory of every rules file loaded. A rules directory that is (or
  // contains) a writable root is left to the sandbox's protection of the file itself: holding it
  // would make the whole root read-only. Loaded on demand: argument parsing imports this module too.
  const { defaultProtectedPaths } = await import("@shellgate/orchestrator");
  const protectedPaths = defaultProtectedPaths({ cwd, env });
  const rootsReal = [canonicalPath(cwd), ...writableRoots.map(canonicalPath)];
  if (sandboxPolicy.mode === "workspace-write") {
    const tmpdir = env["TMPDIR"];
    if (!sandboxPolicy.excludeTmpdirEnvVar && tmpdir && path.isAbsolute(tmpdir)) rootsReal.push(canonicalPath(tmpdir));
    if (!sandboxPolicy.excludeSlashTmp && process.platform !== "win32") rootsReal.push(canonicalPath("/tmp"));
  }
  if (sandboxPolicy.mode === "workspace-write") refuseReplaceableLinks(layers, overrides, cwd, rootsReal);
  for (const r of rules) {
    const dir = path.dirname(r.file);
    const dirReal = canonicalPath(dir);
    if (!rootsReal.some((root) => within(dirReal, root))) protectedPaths.push(dir);
  }

  return {
    cwd,
    approvalPolicy,
    // Resolved here, once (after the checks above, which name the roots as written): the orchestrator
    // is handed real paths and holds them by identity for the whole session.
    sandboxPolicy: sandboxPolicy.mode === "workspace-write" ? { ...sandboxPolicy, writableRoots: writableRoots.map(canonicalPath) } : sandboxPolicy,
    rules,
    userRulesFile: path.join(userRulesDir(env), "default.rules"),
    configFiles: layers.map((l) => l.file),
    project,
    workspaceCheck,
    timeoutMs: merged.timeoutMs,
    allowWeakerIsolation: merged.allowWeakerIsolation,
    allowLoginShell: merged.allowLoginShell,
    prewarmSandboxes: merged.prewarmSandboxes,
    ...(merged.processLimit !== undefined ? { processLimit: merged.processLimit } : {}),
    ...(merged.shellEnvironmentPolicy ? { shellEnvironmentPolicy: merged.shellEnvironmentPolicy } : {}),
    protectedPaths: [...new Set(protectedPaths)],
    network,
  };
}

/**
 * `"HOST": why`, for a host the domain policy cannot take. execpolicy words its errors for a
 * `network_rule` in a file; here the host came from a flag or a config key.
 */
export function hostProblem(host: string, error: unknown): string {
  return `${JSON.stringify(host)}: ${(error as Error).message.replace(/^invalid rule: network_rule host/, "a host")}`;
}

/**
 * Validate and normalise the domain lists as `network_rule` hosts are; a bad host is a ConfigError at
 * its file's `[network]` key, or a UsageError for `--allow-domain`. Duplicates keep their first origin.
 */
async function normalizeDomains(merged: Merged, layers: Layer[]): Promise<EffectiveConfig["network"]> {
  if (merged.networkAllow.length === 0 && merged.networkDeny.length === 0) return { allow: [], deny: [] };
  // Loaded on demand: the rules language is not needed to parse arguments or for most configs.
  const { normalizeNetworkHost } = await import("@shellgate/execpolicy");
  const one = (entries: DomainEntry[], key: "allow" | "deny"): DomainEntry[] => {
    const seen = new Map<string, DomainEntry>();
    for (const e of entries) {
      let host: string;
      try {
        host = normalizeNetworkHost(e.host);
      } catch (error) {
        const message = hostProblem(e.host, error);
        if (e.origin === "--allow-domain") throw new UsageError(`--allow-domain ${message}`, { cause: error });
        const layer = layers.find((l) => e.origin.startsWith(`${l.file} `));
        const index = layer?.config.network?.[key]?.indexOf(e.host) ?? -1;
        const at = layer ? locateKeyPath(readRegularFileSync(layer.file), index >= 0 ? ["network", key, index] : ["network", key], "value") : undefined;
        throw new ConfigError(layer?.file ?? e.origin, `\`network.${key}\`: ${message}`, { cause: error, ...(at ? { line: at.line, column: at.column } : {}) });
      }
      if (!seen.has(host)) seen.set(host, { host, origin: e.origin });
    }
    return [...seen.values()];
  };
  return { allow: one(merged.networkAllow, "allow"), deny: one(merged.networkDeny, "deny") };
}

/**
 * A writable root a project file names through a symlink is refused, trusted project or not: a
 * command the root lets write could re-point the link, and the root would be whatever it then names.
 * @throws ConfigError at the entry's file:line:col, naming the link and where it points.
 */
function refuseLinkedRoots(layer: Layer): void {
  const roots = layer.config.sandbox_workspace_write?.writable_roots ?? [];
  roots.forEach((written, index) => {
    const found = firstLinkOnPath(resolveFrom(layer, written), layer.base);
    if (!found) return;
    const at = locateKeyPath(readRegularFileSync(layer.file), ["sandbox_workspace_write", "writable_roots", index], "value");
    const via = found.link === resolveFrom(layer, written) ? "is a symlink" : `is reached through the symlink ${JSON.stringify(found.link)}`;
    throw new ConfigError(
      layer.file,
      `\`sandbox_workspace_write.writable_roots[${index}]\`: ${JSON.stringify(written)} ${via} (-> ${JSON.stringify(found.target)}); ` +
        `a sandboxed command could re-point the link and make another directory writable. Name the directory itself (${JSON.stringify(canonicalPath(resolveFrom(layer, written)))})`,
      at ? { line: at.line, column: at.column } : {},
    );
  });
}

/**
 * A writable root, from any file or flag, reached through a symlink that lies in a directory commands
 * can write (the workspace, another root, `$TMPDIR`, `/tmp`) is refused: a command could re-point the
 * link, and the next session would make whatever it names writable. (Within one session the
 * orchestrator holds each root by identity.)
 * @throws ConfigError at the entry's file:line:col, or UsageError for `--writable-root`.
 */
function refuseReplaceableLinks(layers: Layer[], overrides: ConfigOverrides, cwd: string, writableDirs: readonly string[]): void {
  const check = (resolved: string, refuse: (why: string) => never) => {
    for (const { link, target } of linksOnPath(resolved)) {
      const dir = path.dirname(link);
      const inside = writableDirs.find((root) => within(root, dir));
      if (inside === undefined) continue;
      refuse(
        `${JSON.stringify(resolved)} is reached through the symlink ${JSON.stringify(link)} (-> ${JSON.stringify(target)}), in ${JSON.stringify(dir)}, ` +
          `which sandboxed commands can write: one could re-point the link and make another directory writable. Name the directory itself (${JSON.stringify(canonicalPath(resolved))})`,
      );
    }
  };
  for (const layer of layers) {
    (layer.config.sandbox_workspace_write?.writable_roots ?? []).forEach((written, index) => {
      check(resolveFrom(layer, written), (why) => {
        const at = locateKeyPath(readRegularFileSync(layer.file), ["sandbox_workspace_write", "writable_roots", index], "value");
        throw new ConfigError(layer.file, `\`sandbox_workspace_write.writable_roots[${index}]\`: ${why}`, at ? { line: at.line, column: at.column } : {});
      });
    });
  }
  for (const r of overrides.writableRoots ?? []) {
    check(path.resolve(cwd, r), (why) => {
      throw new UsageError(`--writable-root ${r}: ${why}`);
    });
  }
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
