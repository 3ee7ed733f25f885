/** The policy builtins `prefix_rule`, `host_executable` and `network_rule`, with the spec's validations. */
import { bindArgs } from "../lang/natives.js";
import { ValueError, repr, typeName } from "../lang/values.js";
import type { BuiltinValue, NativeCall, Value } from "../lang/values.js";
import type { SourceLocation } from "../errors.js";
import { basename, expandHostPath, isBareName } from "./host-path.js";
import { shlexSplit } from "./shlex.js";
import { normalizeHostInFile } from "./network-host.js";
import type { Decision, NetworkProtocol, NetworkRule, PrefixRule, RuleSandbox } from "./types.js";

/** One `prefix_rule(...)` call: the rules it created and its examples (validated at end of file). */
export interface RuleCall {
  rules: PrefixRule[];
  match: string[][];
  notMatch: string[][];
  source: SourceLocation;
}

/** Mutable state the builtins write into while a file is evaluated. */
export interface BuilderState {
  rules: PrefixRule[];
  hostExecutables: Map<string, string[]>;
  networkRules: NetworkRule[];
  /** Calls of the file being evaluated. */
  calls: RuleCall[];
}

const DECISIONS = new Set(["allow", "prompt", "forbidden"]);

function fail(code: ConstructorParameters<typeof ValueError>[0], message: string): never {
  throw new ValueError(code, message);
}

function isList(v: Value): v is Extract<Value, { kind: "list" }> {
  return v !== null && typeof v === "object" && v.kind === "list";
}

function typeCheck(fn: string, param: string, v: Value | undefined, want: "list" | "string", optional: boolean): void {
  if (v === undefined || (optional && v === null)) return;
  const ok = want === "list" ? isList(v) : typeof v === "string";
  if (!ok) fail("TYPE_ERROR", `${fn}(): type of parameter \`${param}\` doesn't match, expected \`${want}${optional ? " | None" : ""}\`, got \`${typeName(v)}\` (${repr(v)})`);
}

function justificationOf(v: Value | undefined): string | undefined {
  if (v === undefined || v === null) return undefined;
  const s = v as string;
  if (s.trim() === "") fail("INVALID_RULE", "invalid rule: justification cannot be empty");
  return s;
}

function parseExamples(v: Value | undefined): string[][] {
  if (v === undefined || v === null) return [];
  const out: string[][] = [];
  for (const ex of (v as Extract<Value, { kind: "list" }>).items) {
    if (typeof ex === "string") {
      const tokens = shlexSplit(ex);
      if (tokens === null) fail("INVALID_EXAMPLE", `invalid example: example string has invalid shell syntax (got ${repr(ex)})`);
      if (tokens.length === 0) fail("INVALID_EXAMPLE", "invalid example: example cannot be an empty string");
      out.push(tokens);
    } else if (isList(ex)) {
      if (ex.items.length === 0) fail("INVALID_EXAMPLE", "invalid example: example cannot be an empty list");
      const bad = ex.items.find((t) => typeof t !== "string");
      if (bad !== undefined) fail("INVALID_EXAMPLE", `invalid example: example tokens must be strings (got ${typeName(bad)})`);
      out.push(ex.items as string[]);
    } else {
      fail("INVALID_EXAMPLE", `invalid example: example must be a string or list of strings (got ${typeName(ex)})`);
    }
  }
  return out;
}

function parsePattern(v: Extract<Value, { kind: "list" }>): string[][] {
  if (v.items.length === 0) fail("INVALID_PATTERN", "invalid pattern element: pattern cannot be empty");
  return v.items.map((el) => {
    if (typeof el === "string") return [el];
    if (isList(el)) {
      if (el.items.length === 0) fail("INVALID_PATTERN", "invalid pattern element: pattern alternatives cannot be empty");
      const bad = el.items.find((t) => typeof t !== "string");
      if (bad !== undefined) fail("INVALID_PATTERN", `invalid pattern element: pattern alternative must be a string (got ${typeName(bad)})`);
      return el.items as string[];
    }
    return fail("INVALID_PATTERN", `invalid pattern element: pattern element must be a string or list of strings (got ${typeName(el)})`);
  });
}

const SANDBOXES = new Set<string>(["read-only", "workspace-write"]);

/** Codex's positional parameters of `prefix_rule`; `sandbox`/`network` follow but are keyword-only. */
const PREFIX_RULE_POSITIONAL = ["pattern", "decision", "match", "not_match", "justification"];

/**
 * The shellgate-only `sandbox=` / `network=` arguments of `prefix_rule`, validated after every
 * Codex check so that a file Codex accepts gets Codex's errors in Codex's order. Errors name the
 * keyword so that they are located at the argument.
 */
function ruleSandboxOf(sandbox: Value | undefined, network: Value | undefined, decision: Decision): { sandbox?: RuleSandbox; network?: string[] } {
  if (sandbox === undefined && network === undefined) return {};
  if (decision === "forbidden") {
    throw new ValueError("INVALID_RULE", `invalid rule: prefix_rule ${sandbox !== undefined ? "sandbox" : "network"} cannot be used with decision "forbidden" (a forbidden command never runs)`, sandbox !== undefined ? "sandbox" : "network");
  }
  // An error rather than an implied workspace-write: a network grant must never silently widen
  // what a rule's file access is.
  if (sandbox === undefined) throw new ValueError("INVALID_RULE", 'invalid rule: prefix_rule network requires sandbox= ("read-only" or "workspace-write")', "network");
  if (typeof sandbox !== "string" || !SANDBOXES.has(sandbox)) {
    throw new ValueError("INVALID_RULE", `invalid rule: prefix_rule sandbox must be "read-only" or "workspace-write" (got ${repr(sandbox)})`, "sandbox");
  }
  if (network === undefined) return { sandbox: sandbox as RuleSandbox };
  if (!isList(network)) throw new ValueError("INVALID_RULE", `invalid rule: prefix_rule network must be a list of host strings (got ${typeName(network)})`, "network");
  const hosts: string[] = [];
  for (const h of network.items) {
    if (typeof h !== "string") throw new ValueError("INVALID_RULE", `invalid rule: prefix_rule network hosts must be strings (got ${typeName(h)})`, "network");
    const host = normalizeHostInFile(h, "prefix_rule network host", "network");
    if (!hosts.includes(host)) hosts.push(host);
  }
  return { sandbox: sandbox as RuleSandbox, network: hosts };
}

const PROTOCOLS: Record<string, NetworkProtocol> = {
  http: "http", https: "https", https_connect: "https", "http-connect": "https", socks5_tcp: "socks5_tcp", socks5_udp: "socks5_udp",
};

/** Create the policy builtins for evaluating file `file`, writing into `state`. */
export function policyBuiltins(file: string, state: BuilderState): Map<string, Value> {
  const at = (call: NativeCall): SourceLocation => ({ file, line: call.pos.line, column: call.pos.column });
  const b = new Map<string, Value>();
  const add = (name: string, impl: (call: NativeCall) => Value) => b.set(name, { kind: "builtin", name, impl } satisfies BuiltinValue);

  add("prefix_rule", (call) => {
    // `sandbox`/`network` are keyword-only: a sixth positional argument is the error Codex gives.
    if (call.args.length > PREFIX_RULE_POSITIONAL.length) bindArgs("prefix_rule", call, PREFIX_RULE_POSITIONAL, 1);
    const [pattern, decision, match, notMatch, justification, sandbox, network] = bindArgs("prefix_rule", call, [...PREFIX_RULE_POSITIONAL, "sandbox", "network"], 1);
    typeCheck("prefix_rule", "pattern", pattern, "list", false);
    typeCheck("prefix_rule", "decision", decision, "string", false);
    typeCheck("prefix_rule", "match", match, "list", false);
    typeCheck("prefix_rule", "not_match", notMatch, "list", false);
    typeCheck("prefix_rule", "justification", justification, "string", false);
    const d = (decision ?? "allow") as string;
    if (!DECISIONS.has(d)) fail("INVALID_DECISION", `invalid decision: ${d} (expected "allow", "prompt" or "forbidden")`);
    const just = justificationOf(justification);
    const elements = parsePattern(pattern as Extract<Value, { kind: "list" }>);
    const matchEx = parseExamples(match);
    const notMatchEx = parseExamples(notMatch);
    const grant = ruleSandboxOf(sandbox, network, d as Decision);
    const source = at(call);
    const rest = elements.slice(1);
    const created: PrefixRule[] = elements[0]!.map((program) => {
      // Optional keys only when set, so rules without them stay exactly what they always were.
      const rule: { -readonly [K in keyof PrefixRule]: PrefixRule[K] } = { program, rest, decision: d as Decision, source, index: state.rules.length };
      if (just !== undefined) rule.justification = just;
      if (grant.sandbox !== undefined) rule.sandbox = grant.sandbox;
      if (grant.network !== undefined) rule.network = grant.network;
      state.rules.push(rule);
      return rule;
    });
    state.calls.push({ rules: created, match: matchEx, notMatch: notMatchEx, source });
    return null;
  });

  add("host_executable", (call) => {
    const [name, paths] = bindArgs("host_executable", call, ["name", "paths"], 2);
    typeCheck("host_executable", "name", name, "string", false);
    typeCheck("host_executable", "paths", paths, "list", false);
    const n = name as string;
    if (n === "") fail("INVALID_HOST_EXECUTABLE", "invalid rule: host_executable name cannot be empty");
    if (!isBareName(n)) fail("INVALID_HOST_EXECUTABLE", `invalid rule: host_executable name must be a bare executable name (got ${n})`);
    const list: string[] = [];
    for (const p of (paths as Extract<Value, { kind: "list" }>).items) {
      if (typeof p !== "string") fail("INVALID_HOST_EXECUTABLE", `invalid rule: host_executable paths must be strings (got ${typeName(p)})`);
      const abs = expandHostPath(p);
      if (abs === null) fail("INVALID_HOST_EXECUTABLE", `invalid rule: host_executable paths must be absolute or use \`~/...\` home-relative syntax (got ${p})`);
      if (basename(abs) !== n) fail("INVALID_HOST_EXECUTABLE", `invalid rule: host_executable path \`${p}\` must have basename \`${n}\``);
      if (!list.includes(abs)) list.push(abs);
    }
    state.hostExecutables.set(n, list);
    return null;
  });

  add("network_rule", (call) => {
    const [host, protocol, decision, justification] = bindArgs("network_rule", call, ["host", "protocol", "decision", "justification"], 3);
    typeCheck("network_rule", "host", host, "string", false);
    typeCheck("network_rule", "protocol", protocol, "string", false);
    typeCheck("network_rule", "decision", decision, "string", false);
    typeCheck("network_rule", "justification", justification, "string", false);
    const proto = PROTOCOLS[protocol as string];
    if (!proto) fail("INVALID_NETWORK_RULE", `invalid rule: network_rule protocol must be one of http, https, socks5_tcp, socks5_udp (got ${protocol as string})`);
    const dRaw = decision as string;
    const d: Decision | undefined = dRaw === "deny" ? "forbidden" : DECISIONS.has(dRaw) ? (dRaw as Decision) : undefined;
    if (!d) fail("INVALID_DECISION", `invalid decision: ${dRaw} (expected "allow", "prompt", "forbidden" or "deny")`);
    const just = justificationOf(justification);
    const h = normalizeHostInFile(host as string);
    const rule: NetworkRule = just === undefined
      ? { host: h, protocol: proto, decision: d, source: at(call) }
      : { host: h, protocol: proto, decision: d, justification: just, source: at(call) };
    state.networkRules.push(rule);
    return null;
  });
  return b;
}
