/** The compiled `Policy`: rules from one or more files, ready to evaluate commands. */
import { InvalidArgumentError } from "../errors.js";
import { evaluateCommand, strictestDecision } from "./evaluate.js";
import { Matcher } from "./matcher.js";
import { normalizeNetworkHost } from "./network-host.js";
import { powerShellCommandKey } from "../heuristics/powershell-aliases.js";
import type { Decision, Evaluation, EvaluateOptions, NetworkRule, PrefixRule, RuleSandbox } from "./types.js";

/** How the network rules treat one host (`Policy#evaluateHost`). */
export interface HostEvaluation {
  /** The host as normalised (what the rules are keyed on). */
  host: string;
  /** The decision of the last `network_rule` naming the host; absent when none does. */
  decision?: Decision;
  /** That rule. */
  rule?: NetworkRule;
}

/** The sandbox an in-memory "allow, sandboxed" amendment carries (`Policy#withPrefixRule`). */
export interface PrefixRuleSandbox {
  sandbox: RuleSandbox;
  /** Hosts, normalised like `network_rule` hosts; omitted means the rule names none. */
  network?: readonly string[];
}

/** Rules, host executables and network rules accumulated from the loaded files. */
export interface PolicyContents {
  files: string[];
  rules: PrefixRule[];
  hostExecutables: Map<string, string[]>;
  networkRules: NetworkRule[];
}

/**
 * An immutable compiled policy. Build one with `loadPolicy`/`parsePolicy` (or `Policy.empty()`),
 * then call `evaluate(argv)` for each command.
 */
export class Policy {
  /** The loaded files, in load order. */
  readonly files: string[];
  /** Every prefix rule, in definition order. */
  readonly rules: readonly PrefixRule[];
  /** `host_executable` entries (name → allowed absolute paths); the last definition won. */
  readonly hostExecutables: ReadonlyMap<string, readonly string[]>;
  /** `network_rule` entries in definition order. */
  readonly networkRules: readonly NetworkRule[];
  private readonly matcher = new Matcher();
  private readonly matchFn = (program: string, argv: readonly string[]) => this.matcher.match(program, argv);
  /** PowerShell command key → the rule programs with that key; built on the first PowerShell evaluation. */
  private programsByKey: Map<string, string[]> | undefined;
  /** host → last network rule naming it; built on the first `evaluateHost`. */
  private hostIndex: Map<string, NetworkRule> | undefined;

  constructor(contents: PolicyContents) {
    this.files = [...contents.files];
    this.rules = contents.rules;
    this.hostExecutables = contents.hostExecutables;
    this.networkRules = contents.networkRules;
    for (const r of contents.rules) this.matcher.add(r);
  }

  /** A policy with no rules (every command evaluates to no match). */
  static empty(): Policy {
    return new Policy({ files: [], rules: [], hostExecutables: new Map(), networkRules: [] });
  }

  /**
   * Evaluate one command. Returns every matching rule in definition order and the strictest
   * decision; `decision` is absent when no rule matched. An empty argv matches nothing.
   */
  evaluate(argv: readonly string[], options?: EvaluateOptions): Evaluation {
    if (!Array.isArray(argv)) throw new InvalidArgumentError("argv", "expected an array of strings");
    for (let i = 0; i < argv.length; i++) {
      if (typeof argv[i] !== "string") throw new InvalidArgumentError(`argv[${i}]`, `expected a string, got ${typeof argv[i]}`);
    }
    const dialect = options?.dialect;
    if (dialect !== undefined && dialect !== "posix" && dialect !== "powershell") {
      throw new InvalidArgumentError("options.dialect", `expected "posix" or "powershell", got ${JSON.stringify(dialect)}`);
    }
    const others = dialect === "powershell" && argv.length > 0 ? this.otherSpellings(argv[0]!) : [];
    return evaluateCommand(this.matchFn, this.hostExecutables, argv, options, others);
  }

  /** The rule programs that name the PowerShell command `program` in another spelling. */
  private otherSpellings(program: string): string[] {
    if (this.programsByKey === undefined) {
      this.programsByKey = new Map();
      for (const r of this.rules) {
        const key = powerShellCommandKey(r.program);
        const programs = this.programsByKey.get(key);
        if (!programs) this.programsByKey.set(key, [r.program]);
        else if (!programs.includes(r.program)) programs.push(r.program);
      }
    }
    return (this.programsByKey.get(powerShellCommandKey(program)) ?? []).filter((p) => p !== program);
  }

  /** Evaluate several commands (e.g. the segments of a shell script): matches concatenated, strictest decision overall. */
  evaluateAll(commands: ReadonlyArray<readonly string[]>, options?: EvaluateOptions): Evaluation {
    const parts = commands.map((c) => this.evaluate(c, options));
    const decision = strictestDecision(parts.map((p) => p.decision));
    const matchedRules = parts.flatMap((p) => p.matchedRules);
    return decision === undefined ? { matchedRules } : { decision, matchedRules };
  }

  /**
   * A new policy with one more rule whose tokens are all literals (what an approved "always allow
   * this prefix" adds in memory). The rule's source is `{ file: "<amend>", line: 0, column: 0 }`
   * unless given. `grant` gives the rule a sandbox, as `prefix_rule(..., sandbox=, network=)` does
   * (what an approved "allow, sandboxed" adds); hosts are normalised and de-duplicated, an invalid
   * one throws `InvalidNetworkHostError`, and a grant on a `forbidden` rule is an `InvalidArgumentError`.
   */
  withPrefixRule(prefix: readonly string[], decision: Decision = "allow", source = { file: "<amend>", line: 0, column: 0 }, grant?: PrefixRuleSandbox): Policy {
    if (!Array.isArray(prefix) || prefix.length === 0 || prefix.some((t) => typeof t !== "string")) {
      throw new InvalidArgumentError("prefix", "expected a non-empty array of strings");
    }
    const rule: { -readonly [K in keyof PrefixRule]: PrefixRule[K] } = { program: prefix[0]!, rest: prefix.slice(1).map((t) => [t]), decision, source, index: this.rules.length };
    if (grant !== undefined) {
      if (decision === "forbidden") throw new InvalidArgumentError("grant", "a forbidden rule cannot carry a sandbox (a forbidden command never runs)");
      if (grant.sandbox !== "read-only" && grant.sandbox !== "workspace-write") throw new InvalidArgumentError("grant.sandbox", `expected "read-only" or "workspace-write", got ${JSON.stringify(grant.sandbox)}`);
      rule.sandbox = grant.sandbox;
      if (grant.network !== undefined) rule.network = [...new Set(grant.network.map((h) => normalizeNetworkHost(h, "prefix_rule network host")))];
    }
    return new Policy({
      files: this.files, rules: [...this.rules, rule], hostExecutables: new Map(this.hostExecutables as Map<string, string[]>), networkRules: [...this.networkRules],
    });
  }

  /** Patterns of every `allow` rule, alternatives written `[a|b]`, sorted and de-duplicated. */
  allowedPrefixes(): string[][] {
    const seen = new Map<string, string[]>();
    for (const r of this.rules) {
      if (r.decision !== "allow") continue;
      const p = [r.program, ...r.rest.map((alts) => (alts.length === 1 ? alts[0]! : `[${alts.join("|")}]`))];
      seen.set(JSON.stringify(p), p);
    }
    return [...seen.values()].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }

  /**
   * Whether any loaded file declares a `network_rule`. The rules are enforced by shellgate's
   * network proxy for sandboxed sessions, never by command evaluation; tools that only report
   * (such as `policy-check`) use this to say so.
   */
  hasNetworkRules(): boolean {
    return this.networkRules.length > 0;
  }

  /**
   * How the network rules treat `host`: it is normalised as `network_rule` hosts are, and the
   * last `network_rule` naming it (any protocol) decides, `prompt` included (the proxy asks the
   * user for such hosts). For `allow`/`forbidden` this agrees with `networkDomains()`, where the
   * last allow/forbidden rule wins; the two differ only where a later `prompt` rule follows, which
   * the domain lists ignore. No rule → `{ host }` without a decision. An invalid host throws
   * `InvalidNetworkHostError` (code `INVALID_NETWORK_RULE`, no file location).
   */
  evaluateHost(host: string): HostEvaluation {
    const h = normalizeNetworkHost(host);
    if (this.hostIndex === undefined) {
      this.hostIndex = new Map();
      for (const r of this.networkRules) this.hostIndex.set(r.host, r);
    }
    const rule = this.hostIndex.get(h);
    return rule === undefined ? { host: h } : { host: h, decision: rule.decision, rule };
  }

  /** Compiled network domain lists: the last `allow`/`forbidden` rule for a host wins; `prompt` is ignored. */
  networkDomains(): { allowed: string[]; denied: string[] } {
    const allowed: string[] = [];
    const denied: string[] = [];
    for (const r of this.networkRules) {
      if (r.decision === "prompt") continue;
      const [add, remove] = r.decision === "allow" ? [allowed, denied] : [denied, allowed];
      for (const list of [add, remove]) {
        const i = list.indexOf(r.host);
        if (i >= 0) list.splice(i, 1);
      }
      add.push(r.host);
    }
    return { allowed, denied };
  }
}
