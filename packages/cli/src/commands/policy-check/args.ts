/**
 * Argument parsing for `policy-check`, mirroring `codex execpolicy check` (clap): options come
 * first; the first token that is not one of our options (even one starting with `-`) starts the
 * command, and everything after it belongs to the command; `--` also starts it. Hand-written
 * because `node:util` `parseArgs` cannot stop at the first positional the way clap's trailing
 * variadic argument does.
 */

/** Parsed `policy-check` invocation. */
export type PolicyCheckArgs =
  | { mode: "help" }
  | { mode: "test"; files: string[] }
  | { mode: "host"; rules: string[]; pretty: boolean; explain: boolean; host: string }
  | {
      mode: "check" | "stdin";
      rules: string[];
      pretty: boolean;
      resolveHostExecutables: boolean;
      explain: boolean;
      command: string[];
    };

/** A usage mistake (exit code 2). */
export class UsageError extends Error {}

/** Parse `args` (everything after `policy-check` / `shellgate policy check`). */
export function parsePolicyCheckArgs(args: readonly string[]): PolicyCheckArgs {
  if (args[0] === "test") {
    const files = args.slice(1).filter((a) => a !== "--");
    if (files.some((f) => f === "-h" || f === "--help")) return { mode: "help" };
    if (files.length === 0) throw new UsageError("`policy-check test` needs at least one rules file");
    return { mode: "test", files };
  }
  const rules: string[] = [];
  let pretty = false;
  let resolveHostExecutables = false;
  let explain = false;
  let stdin = false;
  let host: string | undefined;
  const setHost = (v: string | undefined, flag: string) => {
    if (v === undefined) throw new UsageError(`${flag} needs a host name`);
    if (host !== undefined) throw new UsageError("--host may be given only once");
    host = v;
  };
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      i++;
      break;
    }
    if (a === "-r" || a === "--rules") {
      const v = args[i + 1];
      if (v === undefined) throw new UsageError(`${a} needs a file path`);
      rules.push(v);
      i++;
    } else if (a.startsWith("--rules=")) {
      rules.push(a.slice("--rules=".length));
    } else if (a === "--host") {
      setHost(args[i + 1], a);
      i++;
    } else if (a.startsWith("--host=")) setHost(a.slice("--host=".length), "--host");
    else if (a === "--pretty") pretty = true;
    else if (a === "--resolve-host-executables") resolveHostExecutables = true;
    else if (a === "--explain") explain = true;
    else if (a === "--stdin") stdin = true;
    else if (a === "-h" || a === "--help") return { mode: "help" };
    else break;
  }
  const command = args.slice(i);
  if (rules.length === 0) throw new UsageError("the following required arguments were not provided: --rules <PATH>");
  if (host !== undefined) {
    // A host question has no command: say so rather than silently ignore either.
    if (command.length) throw new UsageError("--host asks how a host is treated; do not also give a command");
    if (stdin) throw new UsageError("--host and --stdin cannot be combined");
    if (resolveHostExecutables) throw new UsageError("--resolve-host-executables applies to commands, not to --host");
    return { mode: "host", rules, pretty, explain, host };
  }
  if (stdin && command.length) throw new UsageError("--stdin reads commands from standard input; do not also give a command");
  if (!stdin && command.length === 0) throw new UsageError("the following required arguments were not provided: <COMMAND>...");
  return { mode: stdin ? "stdin" : "check", rules, pretty, resolveHostExecutables, explain, command };
}

/** Help text. */
export const POLICY_CHECK_USAGE = `Usage: policy-check --rules <PATH> [--rules <PATH>...] [OPTIONS] [--] <COMMAND>...
       policy-check --rules <PATH>... --stdin [OPTIONS]
       policy-check --rules <PATH>... --host <HOST> [--explain] [--pretty]
       policy-check test <RULES_FILE>...

Check a command against execpolicy rules files and print Codex-compatible JSON:
  {"matchedRules":[{"prefixRuleMatch":{...}}],"decision":"allow|prompt|forbidden"}
("decision" is omitted when no rule matched).
With --host, say how the rules' network_rule entries treat a host instead:
  {"host":"example.com","decision":"allow|prompt|forbidden","rule":{"file":...,"line":...,"column":...,"protocol":...}}
(the host normalised as network_rule does; the last network_rule naming it decides, whatever its
protocol; "decision" and "rule" are omitted when none names it). shellgate's network proxy
enforces these rules for \`shellgate exec\` and \`shellgate mcp\` sessions; policy-check only reports them.

Options:
  -r, --rules <PATH>            rules file to load (repeatable; loaded in order)
      --pretty                  pretty-print the JSON
      --resolve-host-executables  let absolute program paths match basename rules (host_executable)
      --explain                 print a human-readable explanation instead of JSON
      --stdin                   batch mode: one JSON array of argv per input line, one result per output line
      --host <HOST>             report how network_rule entries treat HOST (no command)
  -h, --help                    show this help

The first token that is not an option starts the command; \`--\` may separate them.
\`policy-check test FILES\` runs every match/not_match example of every prefix_rule and reports per rule.

Examples:
  policy-check --rules ~/.codex/rules/default.rules -- git push origin main
  policy-check -r default.rules -r .codex/rules/project.rules --pretty npm test
  policy-check -r default.rules --explain --resolve-host-executables /usr/bin/git status
  policy-check -r default.rules --host registry.example.org --explain
  printf '%s\\n' '["git","status"]' '["rm","-rf","/"]' | policy-check -r default.rules --stdin
  policy-check test ~/.codex/rules/default.rules

Exit status: 0 when the rules load and the command is evaluated (whatever the decision);
1 when a rules file is missing, unreadable or invalid (diagnostic on stderr); 2 for usage errors
(including a --host that network_rule would not accept).
The exit codes of every shellgate command are tabulated in the CLI README ("Exit codes").
`;
