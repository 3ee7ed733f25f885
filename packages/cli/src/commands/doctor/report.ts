import { computeWritableRoots, sandboxToolCacheDir, toolCacheVariables, type BackendReport, type SandboxManager, type SandboxPolicy } from "@shellgate/sandbox";
import { detectUserShell } from "@shellgate/shell-detect";
import { loadPolicy, type NetworkRule } from "@shellgate/execpolicy";
import { proxyEnforced } from "../check/main.js";
import { describeEnvDropReason, explainEnvScrub } from "@shellgate/orchestrator";
import type { EffectiveConfig, ProjectConfigStatus, WorkspaceCheck } from "../../config/index.js";
import { BroadWorkspaceError } from "../../errors.js";
import { describeError } from "../../error-text.js";
import { describeUpstream, upstreamFromHostEnv, type UpstreamReport } from "../../network-upstream.js";
import { createSandboxManager } from "../../sandbox-backends.js";

/** The rules file entry of a doctor report. */
interface RulesFileStatus {
  file: string;
  origin: string;
  ok: boolean;
  /** The rendered diagnostic when the file does not load. */
  error?: string;
}

/** Everything `shellgate doctor` reports; also its `--json` output. */
export interface DoctorReport {
  ok: boolean;
  version: string;
  platform: NodeJS.Platform;
  node: string;
  cwd: string;
  configFiles: string[];
  /** The workspace's project file and whether it is trusted (untrusted: it may only tighten). */
  project: ProjectConfigStatus | null;
  /** Whether the workspace or a writable root is `/` or the home directory, and who allowed it. */
  workspace: WorkspaceCheck & { error?: string };
  approvalPolicy: string;
  sandboxPolicy: SandboxPolicy;
  shell: { ok: true; type: string; path: string; source: string } | { ok: false; error: string };
  backends: BackendReport[];
  /** What the configured sandbox gets here. */
  sandbox:
    | { ok: true; backend: string | null; isolation: string; writableRoots: Array<{ root: string; readOnlySubpaths: string[] }> }
    | { ok: false; error: string };
  rules: RulesFileStatus[];
  /**
   * `network_rule` entries of the rules files that load. `effective`: whether the session proxy
   * enforces them (and the grants) under this configuration: a confined mode with the network off.
   */
  networkRules: { effective: boolean; rules: Array<{ host: string; protocol: string; decision: string; file: string; line: number }> };
  /** The domain grants outside the rules files (`--allow-domain`, `[network]` tables), with where each came from. */
  domains: { allow: Array<{ host: string; origin: string }>; deny: Array<{ host: string; origin: string }> };
  userRulesFile: string;
  /** Host variables commands will not see under the environment policy, and why (names only, never values). */
  environment: { dropped: Array<{ name: string; reason: string }> };
  /**
   * The caches sandboxed runs use instead of the host's (a writable root of every `workspace-write`
   * run): the directory, each variable with its value, and which of them the host sets to something
   * else (names only; sandboxed runs get the sandbox's value, unsandboxed ones keep the host's).
   */
  toolCaches: { dir: string | null; variables: Array<{ tool: string; name: string; value: string }>; replaced: string[] };
  /** The host's upstream proxy, which allowed connections of proxy-routed runs go through (passwords shown as `***`). */
  upstream: UpstreamReport;
  problems: string[];
}

/** Gather the doctor report for a loaded configuration. Never throws for a problem it can report. */
export async function gatherDoctorReport(
  config: EffectiveConfig,
  version: string,
  options: { manager?: SandboxManager; hostEnv?: Readonly<Record<string, string | undefined>> } = {},
): Promise<DoctorReport> {
  const problems: string[] = [];
  let shell: DoctorReport["shell"];
  try {
    const s = detectUserShell();
    shell = { ok: true, type: s.type, path: s.path, source: s.source };
  } catch (error) {
    shell = { ok: false, error: describeError(error) };
    problems.push(`shell: ${shell.error}`);
  }

  const workspace: DoctorReport["workspace"] = { ...config.workspaceCheck };
  if (!workspace.allowed) {
    workspace.error = new BroadWorkspaceError(workspace.broadRoots).message;
    problems.push(`workspace: ${workspace.error}`);
  }

  // A fresh probe, not the disk cache other commands use: doctor reports what works now.
  const manager = options.manager ?? (await createSandboxManager({ allowWeakerIsolation: config.allowWeakerIsolation, probeCache: false, processLimit: config.processLimit }));
  const backends = await manager.report();
  let sandbox: DoctorReport["sandbox"];
  try {
    const backend = await manager.select(config.sandboxPolicy);
    const availability = backend ? await manager.availability(backend) : null;
    const writableRoots =
      config.sandboxPolicy.mode === "workspace-write"
        ? await computeWritableRoots(config.sandboxPolicy, { cwd: config.cwd, env: process.env as Record<string, string>, protectedPaths: config.protectedPaths })
        : [];
    sandbox = {
      ok: true,
      backend: backend?.name ?? null,
      isolation: availability?.available ? availability.isolation : "none (the policy needs no platform sandbox)",
      writableRoots: writableRoots.map((r) => ({ root: r.root, readOnlySubpaths: [...r.readOnlySubpaths] })),
    };
  } catch (error) {
    sandbox = { ok: false, error: describeError(error) };
    problems.push(`sandbox: ${sandbox.error}`);
  }

  let environment: DoctorReport["environment"];
  try {
    const drops = explainEnvScrub(config.shellEnvironmentPolicy ?? {}, options.hostEnv ?? process.env);
    environment = { dropped: drops.map((d) => ({ name: d.name, reason: describeEnvDropReason(d.reason) })) };
  } catch (error) {
    environment = { dropped: [] };
    problems.push(`environment: ${describeError(error)}`);
  }

  const cacheDir = sandboxToolCacheDir(process.env);
  const cacheVariables = cacheDir ? toolCacheVariables(cacheDir) : [];
  const hostNames = Object.keys(options.hostEnv ?? process.env);
  const toolCaches: DoctorReport["toolCaches"] = {
    dir: cacheDir ?? null,
    variables: cacheVariables,
    replaced: hostNames.filter((n) => cacheVariables.some((v) => v.name.toLowerCase() === n.toLowerCase())).sort(),
  };

  const upstream = await describeUpstream(upstreamFromHostEnv(options.hostEnv ?? process.env));
  if (upstream.configured && upstream.error !== undefined && config.network.allow.length > 0) {
    problems.push(`network upstream: ${upstream.error}; proxy-routed runs get no network until it is fixed or unset`);
  }

  const { result: rules, networkRules } = await checkRulesFiles(config.rules.map((r) => r.file));
  const statuses: RulesFileStatus[] = config.rules.map((entry) => ({ ...entry, ...rules.get(entry.file)! }));
  for (const status of statuses) {
    if (!status.ok) problems.push(`rules: ${(status.error ?? "").split("\n")[0]}`);
  }

  return {
    ok: problems.length === 0,
    version,
    platform: process.platform,
    node: process.version,
    cwd: config.cwd,
    configFiles: config.configFiles,
    project: config.project,
    workspace,
    approvalPolicy: config.approvalPolicy,
    sandboxPolicy: config.sandboxPolicy,
    shell,
    backends,
    sandbox,
    rules: statuses,
    domains: { allow: config.network.allow, deny: config.network.deny },
    networkRules: {
      effective: proxyEnforced(config),
      rules: networkRules.map((n) => ({ host: n.host, protocol: n.protocol, decision: n.decision, file: n.source.file, line: n.source.line })),
    },
    userRulesFile: config.userRulesFile,
    environment,
    toolCaches,
    upstream,
    problems,
  };
}

/**
 * Whether each file loads, judged the way they are used: together and in order, because a file's
 * examples may rely on `host_executable` entries of earlier files. A file that fails is reported and
 * left out, and the rest are tried again, so every broken file is named, not only the first.
 */
async function checkRulesFiles(
  files: readonly string[],
): Promise<{ result: Map<string, { ok: boolean; error?: string }>; networkRules: readonly NetworkRule[] }> {
  const result = new Map<string, { ok: boolean; error?: string }>();
  let networkRules: readonly NetworkRule[] = [];
  let remaining = [...new Set(files)];
  while (remaining.length > 0) {
    try {
      networkRules = (await loadPolicy(remaining)).networkRules;
      for (const f of remaining) result.set(f, { ok: true });
      break;
    } catch (error) {
      const text = describeError(error);
      const culprit = (error as { file?: unknown }).file;
      if (typeof culprit === "string" && remaining.includes(culprit)) {
        result.set(culprit, { ok: false, error: text });
        remaining = remaining.filter((f) => f !== culprit);
      } else {
        // The error does not say which file; report it against every file still in question.
        for (const f of remaining) result.set(f, { ok: false, error: text });
        break;
      }
    }
  }
  return { result, networkRules };
}
