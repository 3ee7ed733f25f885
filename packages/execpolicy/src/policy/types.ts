/** Public data types of compiled policies and evaluations. */
import type { SourceLocation } from "../errors.js";

/** A rule's verdict; `forbidden` > `prompt` > `allow` in strictness. */
export type Decision = "allow" | "prompt" | "forbidden";

/** Strictness rank used to pick the effective decision. */
export const DECISION_RANK: Readonly<Record<Decision, number>> = { allow: 0, prompt: 1, forbidden: 2 };

/**
 * The sandbox a `prefix_rule(..., sandbox=...)` runs its command in (a shellgate extension; Codex
 * has no such argument). `read-only` is the stricter of the two.
 */
export type RuleSandbox = "read-only" | "workspace-write";

/** A compiled prefix rule: the program token, then one set of alternatives per further position. */
export interface PrefixRule {
  readonly program: string;
  readonly rest: ReadonlyArray<readonly string[]>;
  readonly decision: Decision;
  readonly justification?: string;
  /** `sandbox=` of the call; present only when the file set it (shellgate extension). */
  readonly sandbox?: RuleSandbox;
  /** `network=` of the call: normalised hosts, de-duplicated in first-seen order; present only when the file set it (always with `sandbox`). */
  readonly network?: readonly string[];
  /** Where the `prefix_rule(...)` call that created this rule starts. */
  readonly source: SourceLocation;
  /** Position in definition order across all loaded files. */
  readonly index: number;
}

/** One rule that matched a command. */
export interface RuleMatch {
  kind: "prefix";
  /** The command's own tokens that the rule covered (basename first when resolved through a host path). */
  matchedPrefix: string[];
  decision: Decision;
  /** The absolute program path, when the match came through the basename fallback. */
  resolvedProgram?: string;
  justification?: string;
  /** The rule's `sandbox=`, when it has one (shellgate extension). */
  sandbox?: RuleSandbox;
  /** The rule's `network=` hosts, when it has them (shellgate extension). */
  network?: readonly string[];
  source: SourceLocation;
}

/** Result of evaluating one command: every match in definition order and the strictest decision. */
export interface Evaluation {
  /** Absent when nothing matched. */
  decision?: Decision;
  matchedRules: RuleMatch[];
}

/** Options of `Policy#evaluate`. */
export interface EvaluateOptions {
  /** Try the `host_executable` basename fallback for absolute program paths (Codex core does; its CLI does only when asked). */
  resolveHostExecutables?: boolean;
  /** Base for resolving relative program paths such as `./git` in the fallback (default `process.cwd()`). */
  cwd?: string;
  /**
   * The language the command was written in (default `posix`). `powershell`: PowerShell resolves a
   * command name without regard to case, aliases and module qualifiers, so rules naming the same
   * command in another spelling (`Remove-Item` for `ri`, `remove-item` or
   * `Microsoft.PowerShell.Management\Remove-Item`; `git` for `git.exe`) apply too — but only to forbid
   * or ask: an allow rule allows the spelling it names.
   */
  dialect?: "posix" | "powershell";
}

/** Network protocols accepted by `network_rule` (canonical names). */
export type NetworkProtocol = "http" | "https" | "socks5_tcp" | "socks5_udp";

/**
 * A `network_rule(...)` entry. It never affects command matching; shellgate's network proxy
 * enforces it for sandboxed sessions (see `Policy#evaluateHost` and `Policy#networkDomains`).
 */
export interface NetworkRule {
  readonly host: string;
  readonly protocol: NetworkProtocol;
  readonly decision: Decision;
  readonly justification?: string;
  readonly source: SourceLocation;
}
