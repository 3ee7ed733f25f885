import { formatAllowPrefixRule, isDangerousArgv, normalizeNetworkHost, workspaceCodeRunner, type NetworkRule } from "@shellgate/execpolicy";
import {
  amendmentOffer,
  commandRuleGrant,
  describeVerdictSource,
  escapeForDisplay,
  NetworkHostPolicy,
  PolicyStore,
  type CommandRuleGrant,
  type HostVerdict,
  type HostVerdictSource,
} from "@shellgate/orchestrator";
import {
  assessCommand,
  fileSystemKind,
  findSandboxWrittenCode,
  hasDeniedReads,
  renderCommand,
  sandboxKeptReason,
  sandboxWritable,
  withSandboxKept,
  type Admission,
  type SandboxWrittenCode,
} from "@shellgate/orchestrator/admission";
import { isIP } from "node:net";
import type { UpstreamSettings } from "@shellgate/network-proxy";
import { upstreamFromHostEnv } from "../../network-upstream.js";
import { policyAllowsNetwork, policyRequiresPlatformSandbox } from "@shellgate/sandbox";
import { deriveExecArgs, detectUserShell } from "@shellgate/shell-detect";
import { configOverrides, CONFIG_OPTIONS, parseCommandArgs } from "../../args.js";
import { hostProblem, loadConfig, type EffectiveConfig } from "../../config/load.js";
import { describeError } from "../../error-text.js";
import { UsageError } from "../../errors.js";
import { CONFIG_ERROR_EXIT } from "../../exit-table.js";

/** The `--json` object of `shellgate check`. */
interface CheckJson {
  requirement: Admission["requirement"]["kind"];
  bypassSandbox?: boolean;
  reason?: string;
  /** The prefix "always allow" proposes: the program and its subcommand (see the orchestrator's `amendmentCandidates`). */
  proposedAmendment?: string[];
  /** Every prefix the person may choose instead, shortest first. */
  amendmentChoices?: string[][];
  /**
   * Why a prompt for this command would not offer "always allow" (the prompt's own judgement): set
   * when it needs approval, or would propose a prefix the prompt refuses, and none is offered.
   */
  amendmentWithheld?: string;
  segments: string[][];
  matchedRules: Admission["matchedRules"];
  split: Admission["split"];
  /** Why the script was judged as a whole (only when `split` is `not-plain`). */
  splitReason?: string;
  /** `powershell` when the segments (or a script's literal commands) were judged as PowerShell commands; absent for POSIX. */
  dialect?: Admission["dialect"];
  unmatched: Admission["unmatched"];
  /**
   * `network_rule` entries of the loaded rules. `effective`: whether the session proxy enforces them
   * under this configuration (a confined sandbox mode with the network off; `--network on` means the
   * whole network, and an unsandboxed command is not routed).
   */
  networkRules?: { effective: boolean; rules: Array<{ host: string; protocol: string; decision: string; file: string; line: number }> };
  /** The command's own rule sandbox (`prefix_rule(..., sandbox=..., network=[...])`), when a matching rule carries one. */
  ruleSandbox?: { sandbox: string; hosts: string[]; rules: string[] };
  /**
   * Set when allow rules match every segment but the command stays in the sandbox: outside it, it
   * would run what a sandboxed command could have written (each resolved path in `found`).
   */
  sandboxKept?: { reason: string; found: SandboxWrittenCode[] };
  /**
   * Segments an allow rule lets run outside the sandbox although they run code the workspace defines
   * (package scripts, build files, tests, git hooks): the rule, what runs, and the rule written to keep it confined.
   */
  workspaceCode?: WorkspaceCodeWarning[];
}

/** An allow rule that hands the host code the workspace defines. */
interface WorkspaceCodeWarning {
  segment: string[];
  rule: { file: string; line: number; column: number; prefix: string[] };
  /** What workspace-defined code the command runs, in words. */
  runs: string;
  /** The same rule with `sandbox=`: still allowed without asking, but confined. */
  sandboxedRule: string;
}

/** The `--json` object of `shellgate check --host HOST`. */
interface HostCheckJson {
  host: string;
  decision: HostVerdict["decision"];
  /** What decided: `rule` (with its file:line:column), `grant`, `deny-list`, `command-rule`, `default`. */
  source: { kind: HostVerdictSource["kind"]; origin?: string; file?: string; line?: number; column?: number; protocol?: string };
  /** Whether loopback and link-local addresses may be reached under this name (granted by name in the configuration). */
  explicit: boolean;
  /** Whether commands get proxy-routed network at all under this configuration. */
  effective: boolean;
  /** The verdict in words, as the proxy would give it. */
  reason: string;
  /**
   * What a run would do: `reach` (the host and every address it resolves to here may be reached),
   * `ask` (a person is asked, then as `reach`), `refuse`. The addresses are judged as the proxy judges
   * them: a host allowed by name may reach any unicast address, loopback and link-local only when
   * `explicit`, unspecified, multicast and broadcast never.
   */
  run: "reach" | "ask" | "refuse";
  /** What refuses it: the policy, an address (see `addresses`), or a failed lookup. */
  refusedBy?: "policy" | "never-reachable" | "needs-name-grant" | "needs-explicit-grant" | "resolve-failed";
  /** The addresses this machine's resolver answers (only for a host the policy lets through, as in a run). */
  addresses?: Array<{ address: string; class: string; refusedBy?: string; reason?: string }>;
  /** Why the lookup failed, when it did. */
  resolveError?: string;
  /** The upstream proxy a run's connection to the host goes through, or null for a direct one (NO_PROXY, or none set). */
  upstream?: { url: string; variable: string } | null;
  /** The upstream setting cannot be used: every proxy-routed run has no network. */
  upstreamError?: string;
}

/** Whether the session proxy judges hosts under this configuration (see `CheckJson.networkRules.effective`). */
export function proxyEnforced(config: EffectiveConfig): boolean {
  return policyRequiresPlatformSandbox(config.sandboxPolicy) && !policyAllowsNetwork(config.sandboxPolicy);
}

function networkRulesJson(rules: readonly NetworkRule[], effective: boolean): NonNullable<CheckJson["networkRules"]> {
  return { effective, rules: rules.map((r) => ({ host: r.host, protocol: r.protocol, decision: r.decision, file: r.source.file, line: r.source.line })) };
}

/** Name resolution for `checkHost` (the system's by default; the proxy uses the same). */
type CheckResolver = (host: string) => Promise<ReadonlyArray<{ address: string }>>;

const systemResolver: CheckResolver = async (host) => (await import("node:dns")).promises.lookup(host, { all: true });

/**
 * How `host` is treated under the configuration, the loaded rules and (when given) the command's
 * own rule grant, and what a run would do: for a host the policy lets through, its addresses as this
 * machine resolves them, judged as the proxy judges them, and the upstream proxy the connection would
 * take (`upstream` settings from the host environment, NO_PROXY honoured).
 */
async function checkHost(
  host: string,
  config: EffectiveConfig,
  store: PolicyStore,
  grant: CommandRuleGrant | undefined,
  options: { resolver?: CheckResolver; upstream?: UpstreamSettings } = {},
): Promise<HostCheckJson> {
  const verdictJson = decideHost(host, config, store, grant);
  if (verdictJson.decision === "deny") return { ...verdictJson, run: "refuse", refusedBy: "policy" };
  const proxy = await import("@shellgate/network-proxy");
  let upstream: HostCheckJson["upstream"] = null;
  let upstreamError: string | undefined;
  let via: ReturnType<typeof proxy.upstreamFor>;
  if (options.upstream) {
    try {
      // A CONNECT tunnel (https), as package managers and most tools use.
      via = proxy.upstreamFor(proxy.parseUpstream(options.upstream), "https", verdictJson.host, 443);
      upstream = via ? { url: via.shown, variable: via.variable } : null;
    } catch (error) {
      upstreamError = error instanceof Error ? error.message : String(error);
    }
  }
  const base = { ...verdictJson, upstream, ...(upstreamError !== undefined ? { upstreamError } : {}) };
  const ask = verdictJson.decision === "prompt";
  let addresses: string[];
  if (isIP(verdictJson.host) !== 0) addresses = [verdictJson.host];
  else {
    try {
      addresses = (await (options.resolver ?? systemResolver)(verdictJson.host)).map((a) => a.address);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const resolveError = typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
      // Behind an HTTP or socks5h upstream the upstream resolves what this machine cannot.
      if (via !== undefined && via.protocol !== "socks5") return { ...base, run: ask ? "ask" : "reach", resolveError };
      return { ...base, run: "refuse", refusedBy: "resolve-failed", resolveError };
    }
  }
  const judged = proxy.checkDestination(verdictJson.host, addresses, { allowNamed: true, allowPrivate: verdictJson.explicit });
  const list = judged.addresses.map((a) => ({ address: a.address, class: a.kind, ...(a.refusedBy ? { refusedBy: a.refusedBy, reason: a.reason } : {}) }));
  if (judged.refused?.refusedBy) return { ...base, addresses: list, run: "refuse", refusedBy: judged.refused.refusedBy };
  return { ...base, addresses: list, run: ask ? "ask" : "reach" };
}

/** The policy's verdict on `host`, without resolving it. */
function decideHost(host: string, config: EffectiveConfig, store: PolicyStore, grant: CommandRuleGrant | undefined): Omit<HostCheckJson, "run"> {
  let normalized: string;
  try {
    normalized = normalizeNetworkHost(host);
  } catch (error) {
    throw new UsageError(`--host ${hostProblem(host, error)}`, { cause: error });
  }
  const policy = new NetworkHostPolicy(() => store.policy ?? {}, config.network);
  const verdict = policy.decide(normalized, grant?.hosts ?? []);
  const src = verdict.source;
  const source: HostCheckJson["source"] =
    src.kind === "rule"
      ? { kind: "rule", file: src.rule.source.file, line: src.rule.source.line, column: src.rule.source.column, protocol: src.rule.protocol }
      : src.kind === "default"
        ? { kind: "default" }
        : { kind: src.kind, origin: src.origin };
  return { host: normalized, decision: verdict.decision, source, explicit: verdict.explicit, effective: proxyEnforced(config), reason: describeVerdictSource(src) };
}

/** The human lines of a host check. */
function explainHost(result: HostCheckJson): string {
  const where = result.effective
    ? ""
    : "\n  note: under this configuration commands are not routed through the proxy (the network is on, or the sandbox mode confines nothing), so this verdict is not applied";
  const decision = result.decision === "prompt" ? "prompt (a person is asked once)" : result.decision;
  const local = result.decision === "allow" && !result.explicit ? "; loopback and link-local addresses stay refused" : "";
  const lines = [`host:      ${result.host} → ${decision} — ${result.reason}${local}${where}`];
  for (const a of result.addresses ?? []) {
    lines.push(`address:   ${a.address} (${a.class})${a.reason !== undefined ? ` — refused: ${a.reason}` : ""}`);
  }
  if (result.resolveError !== undefined) lines.push(`address:   none: the lookup failed (${result.resolveError})${result.run !== "refuse" ? ", left to the upstream proxy" : ""}`);
  if (result.upstreamError !== undefined) lines.push(`upstream:  unusable: ${result.upstreamError}; proxy-routed runs get no network`);
  else if (result.upstream) lines.push(`upstream:  through ${result.upstream.url} (${result.upstream.variable})`);
  else if (result.upstream === null) lines.push("upstream:  none, a direct connection");
  const refusedBy =
    result.refusedBy === "policy"
      ? "the policy"
      : result.refusedBy === "resolve-failed"
        ? "a failed lookup"
        : result.refusedBy !== undefined
          ? "its address"
          : "";
  const run = result.run === "refuse" ? `refused (by ${refusedBy})` : result.run === "ask" ? "asks a person, then connects" : "connects";
  lines.push(`run:       ${run}`);
  return `${lines.join("\n")}\n`;
}

/** The body of `shellgate check` (see its `--help`). */
export async function checkMain(args: string[]): Promise<number> {
  let json = false;
  let escalate = false;
  let hosts: string[] = [];
  let argv: string[] | undefined;
  let config: EffectiveConfig;
  try {
    const parsed = parseCommandArgs(args, {
      ...CONFIG_OPTIONS,
      json: { type: "boolean" },
      escalate: { type: "boolean" },
      host: { type: "string", multiple: true },
      help: { type: "boolean" },
    });
    json = parsed.values["json"] === true;
    escalate = parsed.values["escalate"] === true;
    hosts = (parsed.values["host"] as string[] | undefined) ?? [];
    const overrides = configOverrides(parsed.values);
    // With --host alone, only hosts are judged; with a command too, its own rule grant counts.
    const judgeHostsOnly = hosts.length > 0 && parsed.command.length === 0 && !parsed.hadTerminator;
    // A usage error in the command is reported before any configuration problem.
    if (!judgeHostsOnly) commandArgv(parsed.hadTerminator, parsed.command, true);
    config = await loadConfig(overrides);
    argv = judgeHostsOnly ? undefined : commandArgv(parsed.hadTerminator, parsed.command, config.allowLoginShell);
  } catch (error) {
    process.stderr.write(`shellgate check: ${describeError(error)}\n`);
    if (error instanceof UsageError) {
      process.stderr.write("Run `shellgate check --help` for usage.\n");
      return 2;
    }
    return CONFIG_ERROR_EXIT;
  }

  let store: PolicyStore;
  try {
    store = await PolicyStore.load(config.rules.map((r) => r.file));
  } catch (error) {
    // A rules file that does not load is a configuration error, as in every command.
    process.stderr.write(`shellgate check: ${describeError(error)}\n`);
    return CONFIG_ERROR_EXIT;
  }
  if (!argv) return reportHosts(hosts, config, store, undefined, json);
  let admission: Admission;
  try {
    admission = await assessCommand({
      argv,
      policy: store.policy,
      approvalPolicy: config.approvalPolicy,
      sandboxPolicy: config.sandboxPolicy,
      permissions: escalate ? "require_escalated" : "use_default",
    });
  } catch (error) {
    process.stderr.write(`shellgate check: ${describeError(error)}\n`);
    return 1;
  }

  if (hosts.length > 0) return reportHosts(hosts, config, store, commandRuleGrant(admission), json);
  try {
    admission = await withSandboxGuard(admission, argv, config);
  } catch (error) {
    process.stderr.write(`shellgate check: ${describeError(error)}\n`);
    return 1;
  }
  const networkRules = store.policy?.networkRules ?? [];
  process.stdout.write(
    json
      ? `${JSON.stringify(toJson(admission, config, networkRules, proxyEnforced(config), workspaceCodeWarnings(admission, config), argv))}\n`
      : explain(argv, config, escalate, admission, networkRules),
  );
  return 0;
}

/**
 * The pipeline's guard on allow rules, applied for display: when every segment is allowed by a rule
 * that would lift the sandbox, what the run would execute that a sandboxed command could have
 * written keeps it in the sandbox (or asks, under `untrusted`). Resolved as `exec` would: this
 * process's PATH, the configured workspace and protected paths.
 */
async function withSandboxGuard(admission: Admission, argv: readonly string[], config: EffectiveConfig): Promise<Admission> {
  const r = admission.requirement;
  if (r.kind !== "skip" || !r.bypassSandbox) return admission;
  if (fileSystemKind(config.sandboxPolicy) !== "restricted" || hasDeniedReads(config.sandboxPolicy) || commandRuleGrant(admission)) return admission;
  const env = process.env;
  const writable = await sandboxWritable(config.sandboxPolicy, {
    cwd: config.cwd,
    env,
    protectedPaths: [...config.protectedPaths, ...config.rules.map((rule) => rule.file), config.userRulesFile],
  });
  const found = findSandboxWrittenCode({
    argv,
    segments: admission.segments,
    script: admission.split === "plain" || admission.split === "heredoc",
    cwd: config.cwd,
    env,
    writable,
  });
  if (found.length === 0) return admission;
  return { ...admission, requirement: withSandboxKept(r, found, config.approvalPolicy, argv), sandboxWritten: { found, kept: true } };
}

/** The sandbox mode a confining rule should name: the session's own, when it confines. */
function confinedMode(config: EffectiveConfig): "read-only" | "workspace-write" {
  return config.sandboxPolicy.mode === "read-only" ? "read-only" : "workspace-write";
}

/**
 * Segments that allow rules (without `sandbox=`) let run outside the sandbox although they run code
 * the workspace defines. Only where the session confines commands: elsewhere nothing is lifted.
 */
function workspaceCodeWarnings(admission: Admission, config: EffectiveConfig): WorkspaceCodeWarning[] {
  if (fileSystemKind(config.sandboxPolicy) !== "restricted") return [];
  const warnings: WorkspaceCodeWarning[] = [];
  for (const d of admission.details) {
    if (d.source !== "rule" || d.decision !== "allow") continue;
    const allowing = d.matchedRules.filter((m) => m.decision === "allow");
    if (allowing.length === 0 || allowing.some((m) => m.sandbox !== undefined)) continue;
    const runs = workspaceCodeRunner(d.segment);
    if (!runs) continue;
    const rule = allowing.reduce((a, b) => (b.matchedPrefix.length > a.matchedPrefix.length ? b : a));
    warnings.push({
      segment: [...d.segment],
      rule: { file: rule.source.file, line: rule.source.line, column: rule.source.column, prefix: [...rule.matchedPrefix] },
      runs,
      sandboxedRule: formatAllowPrefixRule(rule.matchedPrefix, { sandbox: confinedMode(config) }),
    });
  }
  return warnings;
}

/** Print how each host is treated (one JSON object per line with `--json`). */
async function reportHosts(hosts: string[], config: EffectiveConfig, store: PolicyStore, grant: CommandRuleGrant | undefined, json: boolean): Promise<number> {
  let results: HostCheckJson[];
  try {
    const upstream = upstreamFromHostEnv(process.env);
    results = [];
    for (const h of hosts) results.push(await checkHost(h, config, store, grant, upstream ? { upstream } : {}));
  } catch (error) {
    process.stderr.write(`shellgate check: ${describeError(error)}\n`);
    return 2;
  }
  process.stdout.write(results.map((r) => (json ? `${JSON.stringify(r)}\n` : explainHost(r))).join(""));
  return 0;
}

/** The argv to judge: as for `exec`, after `--` or several words an argv, one word a script for the user's shell. */
function commandArgv(hadTerminator: boolean, command: string[], login: boolean): string[] {
  if (hadTerminator) {
    if (command.length === 0) throw new UsageError("no command after `--`");
    return command;
  }
  if (command.length === 0) throw new UsageError('no command given: shellgate check [options] COMMAND [ARGS...] or shellgate check "SCRIPT"');
  if (command.length > 1) return command;
  const script = command[0]!;
  if (script.trim() === "") throw new UsageError("the script is empty");
  return deriveExecArgs(detectUserShell(), script, { login });
}

/**
 * What a prompt for this command would offer as "always allow", judged as the prompt judges it (the
 * orchestrator's `amendmentOffer`): the prefixes to choose from, or why none. Undefined when nothing
 * is to be said: a forbidden command is never asked about, and a command that runs without asking
 * and has no prefix to propose has nothing to withhold.
 */
function amendmentFor(admission: Admission, config: Pick<EffectiveConfig, "userRulesFile">): { choices: string[][]; defaultIndex: number } | { withheld: string } | undefined {
  const r = admission.requirement;
  if (r.kind === "forbidden") return undefined;
  const offer = amendmentOffer({
    admission,
    candidate: r.proposedAmendment,
    retryAfterDenial: false,
    userRulesFile: config.userRulesFile,
    // The candidate is a segment of the admitted script: judged in that script's language, as the prompt does.
    isDangerousArgv: (argv) => isDangerousArgv(argv, admission.dialect ? { dialect: admission.dialect } : {}),
  });
  if ("withheld" in offer && r.kind === "skip" && !r.proposedAmendment) return undefined;
  return offer;
}

/** The JSON form: the requirement, its reason and amendment, segments and matched rules, plus `split`, `unmatched` and (when any) the inert `networkRules`. */
function toJson(
  admission: Admission,
  config: Pick<EffectiveConfig, "userRulesFile">,
  networkRules: readonly NetworkRule[] = [],
  proxyEffective = false,
  workspaceCode: readonly WorkspaceCodeWarning[] = [],
  argv: readonly string[] = admission.segments[0] ?? [],
): CheckJson {
  const r = admission.requirement;
  const out: CheckJson = { requirement: r.kind, segments: admission.segments, matchedRules: admission.matchedRules, split: admission.split, unmatched: admission.unmatched };
  if (admission.splitReason !== undefined) out.splitReason = admission.splitReason;
  if (admission.dialect) out.dialect = admission.dialect;
  if (networkRules.length > 0) out.networkRules = networkRulesJson(networkRules, proxyEffective);
  const grant = commandRuleGrant(admission);
  if (grant) out.ruleSandbox = { sandbox: grant.sandbox, hosts: grant.hosts.map((h) => h.host), rules: grant.origins };
  if (r.kind === "skip") out.bypassSandbox = r.bypassSandbox;
  if (r.kind !== "skip" && r.reason !== undefined) out.reason = r.reason;
  const choice = amendmentFor(admission, config);
  if (choice && "withheld" in choice) out.amendmentWithheld = choice.withheld;
  else if (choice) {
    out.proposedAmendment = choice.choices[choice.defaultIndex]!;
    out.amendmentChoices = choice.choices;
  }
  const written = admission.sandboxWritten;
  if (written?.kept) out.sandboxKept = { reason: sandboxKeptReason(argv, written.found), found: written.found };
  if (workspaceCode.length > 0) out.workspaceCode = [...workspaceCode];
  // Integrators read the keys in this order (stable JSON): requirement, bypassSandbox, reason, proposedAmendment, segments, matchedRules.
  const { requirement, bypassSandbox, reason, proposedAmendment, amendmentChoices, ...rest } = out;
  return {
    requirement,
    ...(bypassSandbox !== undefined ? { bypassSandbox } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(proposedAmendment ? { proposedAmendment } : {}),
    ...(amendmentChoices ? { amendmentChoices } : {}),
    ...rest,
  };
}

const SPLIT_TEXT: Record<Admission["split"], string> = {
  plain: "a shell script of plain commands, judged one by one",
  heredoc: "a shell script of one command fed by a heredoc, matched against rules only (no known-safe shortcut, no amendment)",
  "not-plain": "a shell script that is not plain (redirections, expansions, ...), judged as a whole",
  "not-a-shell": "not a shell wrapper, judged as given",
};

/** The human explanation. */
function explain(
  argv: readonly string[],
  config: EffectiveConfig,
  escalate: boolean,
  admission: Admission,
  networkRules: readonly NetworkRule[] = [],
): string {
  const lines: string[] = [];
  lines.push(`command:   ${renderCommand(argv)}`);
  lines.push(
    `policy:    approval ${config.approvalPolicy}, sandbox ${config.sandboxPolicy.mode}${escalate ? ", asks to run outside the sandbox" : ""}`,
  );
  lines.push(`rules:     ${config.rules.length === 0 ? "none" : config.rules.map((r) => r.file).join(", ")}`);
  const language = admission.dialect === "powershell" ? "; its commands judged as PowerShell commands" : "";
  lines.push(`segments:  ${admission.segments.length} (${SPLIT_TEXT[admission.split]}${language})`);
  if (admission.splitReason !== undefined) lines.push(`           judged whole because: ${escapeForDisplay(admission.splitReason)}`);
  admission.details.forEach((d, i) => {
    lines.push(`  ${i + 1}. ${renderCommand(d.segment)}`);
    if (d.source === "rule") {
      for (const m of d.matchedRules) {
        const why = m.justification ? ` — ${m.justification}` : "";
        const via = m.resolvedProgram ? ` (via ${m.resolvedProgram})` : "";
        lines.push(`     rule ${m.source.file}:${m.source.line}: prefix ${renderCommand(m.matchedPrefix)} → ${m.decision}${via}${why}`);
      }
    } else {
      lines.push(`     ${heuristicLabel(d, config)}`);
    }
  });
  const r = admission.requirement;
  // A rule's own sandbox applies wherever the session confines commands (see the orchestrator's ruleSandboxPolicy).
  const grant = policyRequiresPlatformSandbox(config.sandboxPolicy) ? commandRuleGrant(admission) : undefined;
  const inRuleSandbox = grant
    ? `INSIDE its rule's ${grant.sandbox} sandbox${grant.hosts.length > 0 ? `, reaching ${grant.hosts.map((h) => h.host).join(", ")} through the proxy` : ""} (${grant.origins.join(", ")})`
    : undefined;
  switch (r.kind) {
    case "skip":
      lines.push(
        inRuleSandbox
          ? `requirement: skip — runs without asking, ${inRuleSandbox}`
          : r.bypassSandbox
            ? "requirement: skip — runs without asking, OUTSIDE the sandbox (every segment has an explicit allow rule)"
            : "requirement: skip — runs without asking, inside the sandbox",
      );
      break;
    case "needs_approval":
      lines.push(`requirement: needs_approval — a person must approve it first${inRuleSandbox ? `; then it runs ${inRuleSandbox}` : ""}`);
      break;
    case "forbidden":
      lines.push("requirement: forbidden — it will not run");
      break;
  }
  if (r.kind !== "skip" && r.reason) lines.push(`  reason: ${r.reason}`);
  const written = admission.sandboxWritten;
  if (written?.kept && r.kind === "skip") {
    lines.push("  sandbox kept: allow rules match, but outside the sandbox it would run what a sandboxed command could have written:");
    for (const f of written.found) lines.push(`    ${escapeForDisplay(f.text)}`);
  }
  for (const w of workspaceCodeWarnings(admission, config)) {
    lines.push(
      `  warning: rule ${w.rule.file}:${w.rule.line} lets \`${renderCommand(w.segment)}\` run outside the sandbox, and it ${w.runs}: whatever a sandboxed command last wrote there runs unconfined.`,
    );
    lines.push(`    to keep it allowed but confined, write the rule as: ${w.sandboxedRule}`);
  }
  const choice = amendmentFor(admission, config);
  if (choice && "withheld" in choice) {
    lines.push(`  "always allow" is not offered: ${escapeForDisplay(choice.withheld)}`);
  } else if (choice) {
    // A command that runs without asking is offered "always allow" only if a person is asked later.
    const when = r.kind === "skip" ? "if a person is asked later (a retry or an escalation), " : "";
    const proposed = choice.choices[choice.defaultIndex]!;
    lines.push(`  ${when}"always allow" would add: ${escapeForDisplay(formatAllowPrefixRule(proposed).trimEnd())}`);
    if (choice.choices.length > 1) {
      lines.push(`    prefixes the person may choose instead: ${choice.choices.filter((c) => c !== proposed).map((c) => `\`${renderCommand(c)} …\``).join(", ")}`);
    }
  }
  if (networkRules.length > 0 || config.network.allow.length > 0 || config.network.deny.length > 0) {
    const where = [...new Set(networkRules.map((n) => `${n.source.file}:${n.source.line}`))].join(", ");
    const what = [
      ...(networkRules.length > 0 ? [`${networkRules.length} network_rule at ${where}`] : []),
      ...(config.network.allow.length > 0 ? [`allowed: ${config.network.allow.map((e) => e.host).join(", ")}`] : []),
      ...(config.network.deny.length > 0 ? [`denied: ${config.network.deny.map((e) => e.host).join(", ")}`] : []),
    ].join("; ");
    lines.push(
      proxyEnforced(config)
        ? `network:   by domain through shellgate's proxy (${what}); \`shellgate check --host HOST\` tells how a host is treated`
        : `network:   the domain policy (${what}) is not applied: under this configuration commands are not routed through the proxy`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Where a command no rule matched will run, under the configured sandbox mode. */
function whereItRuns(config: EffectiveConfig): string {
  switch (config.sandboxPolicy.mode) {
    case "read-only":
    case "workspace-write":
      return "runs in the sandbox";
    case "external-sandbox":
      return "runs as is (sandbox mode external-sandbox: your own sandbox confines it)";
    default:
      return `runs WITHOUT a sandbox (sandbox mode ${config.sandboxPolicy.mode})`;
  }
}

/** How a segment no rule matched is judged, named by the heuristic that decided it. */
function heuristicLabel(d: Admission["details"][number], config: EffectiveConfig): string {
  const outcome = d.decision === "allow" ? whereItRuns(config) : d.decision === "prompt" ? "asks first" : "forbidden";
  switch (d.verdict) {
    case "known-safe":
      return `no rule; known-safe command (heuristic) → ${outcome}`;
    case "dangerous":
      return `no rule; dangerous command (heuristic) → ${outcome}`;
    default:
      return d.decision === "allow" ? `no rule; ${outcome}` : `no rule; not known to be safe → ${outcome} (approval policy ${config.approvalPolicy})`;
  }
}
