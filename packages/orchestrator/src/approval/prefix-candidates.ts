/**
 * The prefixes "always allow" offers for one command, and which of them is the default: the prefix a
 * person would write into a rules file by hand — the program and its subcommand(s), never the commit
 * message or file names that follow (`git commit -m "…"` → `git commit`).
 *
 * How the default is found (`personPrefixLength`):
 * - a tool whose structure execpolicy knows (`commandStructure`: git, cargo, npm, docker, kubectl, go,
 *   make, gh, …): its global options and their values are passed over and kept (`git -C dir push`,
 *   `cargo +nightly test`, `docker --debug ps`), then the subcommand, and the word after it for the
 *   subcommands that take one (`docker compose up`, `npm run build`, `git stash pop`); a tool followed
 *   only by options is the program alone;
 * - a command wrapper (`timeout 5 …`, `env A=1 …`, `sudo …`): the wrapper with its options, then the
 *   default of the command it runs;
 * - a program that destroys what it is given (`rm`, `chmod`, `kill`, `dd`, …): the whole command,
 *   and nothing shorter is offered (a rule for `rm` would allow `rm -rf` on anything);
 * - any other program: the program alone (`make -j4` → `make`, `pytest -k x` → `pytest`).
 * Then every prefix is judged as an allow rule would be (`amendmentRefusal`: no interpreter, shell or
 * wrapper left open, no inline script, nothing the heuristics rate dangerous, no program by relative
 * path), so `python script.py` proposes `python script.py` (the shortest prefix that fixes what runs).
 */
import { commandStructure, isDangerousArgv, powerShellCommandKey, programName, wrappedCommands } from "@shellgate/execpolicy";
import { amendmentRefusal } from "./refusal.js";

/** Programs whose every use names what they destroy: their rule is the whole command. */
const DESTRUCTIVE = new Set([
  "rm", "rmdir", "unlink", "shred", "dd", "truncate", "wipefs", "chmod", "chown", "chgrp", "kill", "pkill", "killall",
]);

/**
 * The PowerShell commands of that kind, by execpolicy's PowerShell key, so that every spelling
 * PowerShell reads as one of them (alias, case, module qualifier) is judged alike: a rule written from
 * a PowerShell script's `Remove-Item x` or `ri x` is never `Remove-Item` alone. Their aliases are
 * rarely POSIX programs; where one is, its rule is only more specific.
 */
const DESTRUCTIVE_CMDLETS = new Set(["remove-item", "remove-itemproperty", "clear-content", "clear-item", "clear-itemproperty", "stop-process"]);

function destructive(argv0: string): boolean {
  const name = programName(argv0);
  return DESTRUCTIVE.has(name) || name.startsWith("mkfs") || DESTRUCTIVE_CMDLETS.has(powerShellCommandKey(argv0));
}

/** At most this many prefixes are offered (the default among them, and the whole command last). */
export const MAX_AMENDMENT_CHOICES = 8;

/**
 * How many words of `argv` the prefix a person would write holds (see the module comment); 0 for an
 * empty argv. Structure only: whether that prefix may become a rule is `amendmentCandidates`' part.
 */
export function personPrefixLength(argv: readonly string[]): number {
  return lengthOf(argv, 0);
}

function lengthOf(argv: readonly string[], depth: number): number {
  const argv0 = argv[0];
  if (argv0 === undefined) return 0;
  if (destructive(argv0)) return argv.length;
  const structure = commandStructure(argv);
  if (structure) {
    if (structure.nested !== undefined) return structure.nested + 1;
    return structure.subcommand !== undefined ? structure.subcommand + 1 : 1;
  }
  const wrapped = wrappedCommands(argv);
  // Two readings of the wrapper's options (an option of unknown arity): which command it runs is unclear.
  if (wrapped.length > 1 || depth > 8) return argv.length;
  const inner = wrapped[0];
  if (inner && inner.length > 0) return argv.length - inner.length + lengthOf(inner, depth + 1);
  return 1;
}

/** The prefixes "always allow" offers for one command: shortest first, the whole command last when it may be a rule. */
export interface AmendmentCandidates {
  prefixes: string[][];
  /** Index in `prefixes` of the one proposed by default; -1 when `prefixes` is empty. */
  defaultIndex: number;
}

/**
 * The prefixes of `argv` that may become an allow rule, from the shortest safe one to the whole
 * command, at most `MAX_AMENDMENT_CHOICES` of them, with the default at `personPrefixLength` (or the
 * shortest safe prefix longer than it). Never offered: a prefix `amendmentRefusal` refuses, one that
 * ends on a global option waiting for its value (`git -C`), one holding an empty word, and anything
 * shorter than the whole command for a destructive program. Empty when no prefix may be a rule.
 */
export function amendmentCandidates(
  argv: readonly string[],
  isDangerous: (argv: readonly string[]) => boolean = (a) => isDangerousArgv(a),
): AmendmentCandidates {
  const empty = argv.indexOf("");
  const longest = empty === -1 ? argv.length : empty;
  const values = new Set(commandStructure(argv)?.optionValues ?? []);
  const from = argv[0] !== undefined && destructive(argv[0]) ? argv.length : 1;
  const safe: number[] = [];
  for (let len = from; len <= longest; len++) {
    if (values.has(len)) continue;
    if (amendmentRefusal(argv.slice(0, len), isDangerous) === undefined) safe.push(len);
  }
  if (safe.length === 0) return { prefixes: [], defaultIndex: -1 };
  const person = personPrefixLength(argv);
  const chosen = safe.find((len) => len >= person) ?? safe[safe.length - 1]!;
  const before = safe.filter((len) => len < chosen);
  const shown = before.length > 2 ? [before[0]!, ...before.slice(-1)] : before;
  const after = safe.filter((len) => len > chosen);
  const last = after.at(-1);
  const middle = after.slice(0, -1).slice(0, Math.max(0, MAX_AMENDMENT_CHOICES - shown.length - 2));
  const lengths = [...shown, chosen, ...middle, ...(last !== undefined ? [last] : [])];
  return { prefixes: lengths.map((len) => argv.slice(0, len)), defaultIndex: shown.length };
}
