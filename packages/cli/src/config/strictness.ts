import { formatDuration } from "../duration.js";
import type { ProjectWeakening } from "../errors.js";
import type { ShellEnvironmentSettings } from "./load.js";
import type { ApprovalPolicyName, ConfigFile, SandboxModeName } from "./schema.js";
import type { ProcessLimitSetting } from "./names.js";

/**
 * How strict each sandbox mode is, higher is stricter: read-only > workspace-write > (external-sandbox,
 * danger-full-access). The last two tie: shellgate enforces nothing under either.
 */
export const SANDBOX_MODE_STRICTNESS: Readonly<Record<SandboxModeName, number>> = {
  "read-only": 2,
  "workspace-write": 1,
  "external-sandbox": 0,
  "danger-full-access": 0,
};

/** Whether sandbox mode `candidate` confines at least as much as `baseline`. */
export function sandboxModeAtLeastAsStrict(candidate: SandboxModeName, baseline: SandboxModeName): boolean {
  return SANDBOX_MODE_STRICTNESS[candidate] >= SANDBOX_MODE_STRICTNESS[baseline];
}

// What the orchestrator's admission does with each approval policy (admission/requirement.ts,
// admission/escalation.ts, pipeline/decisions.ts), reduced to the two things a policy can loosen:
// - which commands run with nobody asked: under `untrusted` only known-safe commands and explicit
//   allow rules; under the others every command no rule matched that is not dangerous (in the sandbox);
// - which ways lead past a person to more: `approve` (a prompted command runs once approved; under
//   `never` it is forbidden instead), `escalate` (an approved escalation request runs unsandboxed;
//   `never` forbids it), `retry` (an unsandboxed retry after a likely denial; `untrusted` and
//   `on-failure` only).
// A policy is at least as strict as another when it is on both counts: a partial order in which
// `on-failure` is the loosest, `on-request` is stricter than `on-failure`, `never` is stricter than
// `on-request`, `untrusted` is stricter than `on-failure`, and `untrusted` is incomparable with
// `on-request` and `never` (it asks about more, but offers the unsandboxed retry they do not).
const RUNS_UNASKED: Readonly<Record<ApprovalPolicyName, number>> = {
  untrusted: 0,
  "on-failure": 1,
  "on-request": 1,
  never: 1,
};
type Route = "approve" | "escalate" | "retry";
const ROUTES: Readonly<Record<ApprovalPolicyName, readonly Route[]>> = {
  untrusted: ["approve", "escalate", "retry"],
  "on-failure": ["approve", "escalate", "retry"],
  "on-request": ["approve", "escalate"],
  never: [],
};

/**
 * Whether approval policy `candidate` is at least as strict as `baseline`: it runs no command unasked
 * that `baseline` would ask about, and opens no way out of the sandbox that `baseline` keeps shut.
 */
export function approvalAtLeastAsStrict(candidate: ApprovalPolicyName, baseline: ApprovalPolicyName): boolean {
  if (RUNS_UNASKED[candidate] > RUNS_UNASKED[baseline]) return false;
  return ROUTES[candidate].every((r) => ROUTES[baseline].includes(r));
}

const INHERIT_STRICTNESS = { all: 0, core: 1, none: 2 } as const;

/** The user's own settings (user config, flags, defaults) a project file is judged against. */
export interface Baseline {
  approvalPolicy: ApprovalPolicyName;
  sandboxMode: SandboxModeName;
  /** Whether commands get the network: always under danger-full-access, never under read-only. */
  network: boolean;
  /** Canonical writable roots besides the workspace (workspace-write only). */
  writableRoots: readonly string[];
  /** The canonical workspace. */
  workspace: string;
  excludeTmpdirEnvVar: boolean;
  excludeSlashTmp: boolean;
  env: ShellEnvironmentSettings;
  timeoutMs: number;
  codexRules: boolean;
  allowBroadWorkspace: boolean;
  allowWeakerIsolation: boolean;
  /** Whether scripts run through a login shell (its default, true, when the user set nothing). */
  allowLoginShell: boolean;
  /** The user's process limit (its default when none is set). */
  processLimit: ProcessLimitSetting;
  /** Hosts the user's config and `--allow-domain` grant (trimmed, lower-cased). */
  networkAllow: readonly string[];
}

/** Which settings a flag decided, so the project's value for them takes no effect and is not judged. */
export interface FlagsGiven {
  approvalPolicy: boolean;
  sandboxMode: boolean;
  network: boolean;
  timeoutMs: boolean;
  noDefaultRules: boolean;
  allowBroadWorkspace: boolean;
  allowWeakerIsolation: boolean;
  loginShell: boolean;
  processLimit: boolean;
}

function show(value: unknown): string {
  return JSON.stringify(value);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

function sameRecord(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}

/**
 * Every setting of an untrusted project file that would loosen the baseline; empty when the file only
 * tightens (or repeats) it. `canonical` resolves a path written in the project file to a canonical
 * absolute path.
 */
export function findWeakenings(
  project: ConfigFile,
  baseline: Baseline,
  flags: FlagsGiven,
  canonical: (p: string) => string,
): ProjectWeakening[] {
  const out: ProjectWeakening[] = [];
  const add = (key: string, value: unknown, base: string) => out.push({ key, tried: `${key} = ${show(value)}`, baseline: base });

  const mode = (!flags.sandboxMode ? project.sandbox_mode : undefined) ?? baseline.sandboxMode;
  if (!flags.sandboxMode && project.sandbox_mode !== undefined && !sandboxModeAtLeastAsStrict(project.sandbox_mode, baseline.sandboxMode)) {
    add("sandbox_mode", project.sandbox_mode, show(baseline.sandboxMode));
  }
  if (
    !flags.approvalPolicy &&
    project.approval_policy !== undefined &&
    !approvalAtLeastAsStrict(project.approval_policy, baseline.approvalPolicy)
  ) {
    add("approval_policy", project.approval_policy, show(baseline.approvalPolicy));
  }
  // Under a baseline that enforces nothing, any workspace-write detail is still stricter than none.
  const baselineEnforces = SANDBOX_MODE_STRICTNESS[baseline.sandboxMode] > 0;
  const networkText = `network ${baseline.network ? "on" : "off"}`;
  if (!flags.network && mode === "external-sandbox" && project.network_access === true && !baseline.network) {
    add("network_access", true, networkText);
  }
  const ws = project.sandbox_workspace_write;
  if (ws && mode === "workspace-write" && baselineEnforces) {
    if (!flags.network && ws.network_access === true && !baseline.network) {
      add("sandbox_workspace_write.network_access", true, networkText);
    }
    const known = new Set([baseline.workspace, ...baseline.writableRoots]);
    const added = (ws.writable_roots ?? []).filter((r) => !known.has(canonical(r)));
    if (added.length > 0) {
      add("sandbox_workspace_write.writable_roots", added, `writable roots ${show([...known])}`);
    }
    if (ws.exclude_tmpdir_env_var === false && baseline.excludeTmpdirEnvVar) {
      add("sandbox_workspace_write.exclude_tmpdir_env_var", false, "true");
    }
    if (ws.exclude_slash_tmp === false && baseline.excludeSlashTmp) {
      add("sandbox_workspace_write.exclude_slash_tmp", false, "true");
    }
  }

  const envTable = project.shell_environment_policy;
  if (envTable) {
    const base = baseline.env;
    const baseInherit = base.inherit ?? "all";
    if (envTable.inherit !== undefined && INHERIT_STRICTNESS[envTable.inherit] < INHERIT_STRICTNESS[baseInherit]) {
      add("shell_environment_policy.inherit", envTable.inherit, show(baseInherit));
    }
    if (envTable.ignore_default_excludes === true && base.ignoreDefaultExcludes !== true) {
      add("shell_environment_policy.ignore_default_excludes", true, "false (secret-looking variables are dropped)");
    }
    // Each list replaces the user's: `exclude` may only grow; `include_only` and `set` act after the
    // user's `set`, so anything but the user's own value could drop or rewrite what they pinned
    // (`set PATH=./evil:...` would reach commands an allow rule runs unsandboxed).
    const baseExclude = base.exclude ?? [];
    if (envTable.exclude !== undefined && !baseExclude.every((p) => envTable.exclude!.includes(p))) {
      add("shell_environment_policy.exclude", envTable.exclude, `exclude ${show(baseExclude)}`);
    }
    if (envTable.include_only !== undefined && !sameSet(envTable.include_only, base.includeOnly ?? [])) {
      add("shell_environment_policy.include_only", envTable.include_only, `include_only ${show(base.includeOnly ?? [])}`);
    }
    if (envTable.set !== undefined && !sameRecord(envTable.set, base.set ?? {})) {
      add("shell_environment_policy.set", envTable.set, `set ${show(base.set ?? {})}`);
    }
  }

  // A higher cap, or none, lets the project's commands run more processes than the user allows.
  if (!flags.processLimit && project.process_limit !== undefined && baseline.processLimit !== "off") {
    if (project.process_limit === "off" || project.process_limit > baseline.processLimit) add("process_limit", project.process_limit, `${baseline.processLimit}`);
  }
  const projectTimeout = project.timeout ?? project.timeout_ms;
  if (!flags.timeoutMs && projectTimeout !== undefined && baseline.timeoutMs !== 0) {
    if (projectTimeout === 0 || projectTimeout > baseline.timeoutMs) {
      // In the words the file may use (`"1h"`), not a count of milliseconds.
      add(project.timeout !== undefined ? "timeout" : "timeout_ms", projectTimeout === 0 ? 0 : formatDuration(projectTimeout), formatDuration(baseline.timeoutMs));
    }
  }
  if (!flags.noDefaultRules) {
    // false drops the forbidden rules of the Codex directory; true adds its allow rules.
    if (project.codex_rules !== undefined && project.codex_rules !== baseline.codexRules) {
      add("codex_rules", project.codex_rules, show(baseline.codexRules));
    }
    // An allow rule runs its command outside the sandbox: a project's rules file is refused whole.
    if (project.rules !== undefined && project.rules.length > 0) {
      add("rules", project.rules, "no project rules files (their allow rules would run commands outside the sandbox)");
    }
  }
  // A host a project grants is a way out of the sandbox's network-off default; its denies only tighten.
  const grants = (project.network?.allow ?? []).filter((h) => !baseline.networkAllow.includes(h.trim().toLowerCase()));
  if (grants.length > 0) add("network.allow", grants, `allowed hosts ${show([...baseline.networkAllow])}`);
  if (!flags.allowBroadWorkspace && project.allow_broad_workspace === true && !baseline.allowBroadWorkspace) {
    add("allow_broad_workspace", true, "false");
  }
  if (!flags.allowWeakerIsolation && project.allow_weaker_isolation === true && !baseline.allowWeakerIsolation) {
    add("allow_weaker_isolation", true, "false");
  }
  // A login shell runs the profile first, and unsandboxed for an allow rule's command; profile code
  // such as a version manager's hook reads files the workspace holds (`.tool-versions`, `.envrc`).
  if (!flags.loginShell && project.allow_login_shell === true && !baseline.allowLoginShell) {
    add("allow_login_shell", true, "false");
  }
  return out;
}
