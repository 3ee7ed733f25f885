/**
 * What a command prefix lets through. An allow rule is a prefix: whatever follows it is allowed too,
 * so a prefix whose program runs code it is handed (an interpreter, a shell, a wrapper such as
 * `env` or `sudo`) allows every command once nothing past its options is fixed.
 */

import { programName } from "./program-name.js";
import { commandStructure } from "./subcommands.js";

export { programName };

/** How a code runner reads its options; an option in none of the sets may take the next word as its value. */
interface OptionTable {
  /** Options that never take a value. */
  flags?: readonly string[];
  /** Options whose value is the code to run or the module/file that names it (`-c`, `-m`, `-e`, `-File`). */
  code?: readonly string[];
  /** Options that always take the next word as their value. */
  valued?: readonly string[];
  /** Option letters that, inside a cluster of short options (`-lc`), make it a code option. */
  codeLetters?: string;
  /** Words starting with `/` are options too (cmd.exe). */
  slashOptions?: boolean;
  /** Option names are compared without case (PowerShell). */
  caseless?: boolean;
  /** An option in none of the sets takes no value (used to find every command a wrapper may run). */
  assumeFlags?: boolean;
}

const PYTHON: OptionTable = {
  flags: ["-b", "-bb", "-B", "-d", "-E", "-h", "-i", "-I", "-O", "-OO", "-P", "-q", "-R", "-s", "-S", "-u", "-v", "-V", "-x", "--help", "--version"],
  code: ["-c", "-m"],
  valued: ["-W", "-X", "--check-hash-based-pycs"],
};
const NODE: OptionTable = {
  flags: ["--no-warnings", "--no-deprecation", "--enable-source-maps", "--trace-warnings", "--expose-gc", "--preserve-symlinks", "-i", "--interactive", "-v", "--version", "-h", "--help"],
  code: ["-e", "--eval", "-p", "--print"],
  valued: ["-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--input-type"],
};
const SHELL: OptionTable = {
  flags: ["-l", "-i", "-e", "-x", "-u", "-v", "-n", "-r", "-s", "-a", "-f", "-h", "-m", "-p", "--norc", "--noprofile", "--login", "--posix", "--restricted", "--verbose", "--noediting"],
  code: ["-c"],
  valued: ["-o", "+o", "-O", "+O", "--rcfile", "--init-file"],
  codeLetters: "c",
};
const POWERSHELL: OptionTable = {
  flags: ["-noprofile", "-nop", "-noninteractive", "-noni", "-nologo", "-mta", "-sta"],
  code: ["-command", "-c", "-encodedcommand", "-e", "-ec", "-file", "-f"],
  valued: ["-executionpolicy", "-ex", "-ep", "-workingdirectory", "-wd", "-inputformat", "-outputformat", "-windowstyle", "-version", "-v"],
  caseless: true,
};
const CMD: OptionTable = { flags: ["/q", "/d", "/a", "/u", "/s", "/e:on", "/e:off", "/v:on", "/v:off"], code: ["/c", "/k", "/r"], slashOptions: true, caseless: true };
const AWK: OptionTable = { code: ["-f", "-e", "--source", "--file"], valued: ["-v", "-F", "--assign", "--field-separator"] };
const PERLISH: OptionTable = { code: ["-e", "-E", "-r"], flags: ["-w", "-W", "-X", "-T", "-t", "-n", "-p", "-a", "-l", "-s", "-S", "-c", "-v", "-h", "-d"] };

/** Programs that run code given to them as an option, on standard input, or from a file operand. */
const INTERPRETERS: ReadonlyMap<string, OptionTable> = new Map<string, OptionTable>([
  ...["python", "pythonw", "py", "pyw", "pypy", "jython", "ipython"].map((n) => [n, PYTHON] as const),
  ...["node", "nodejs", "deno", "bun", "tsx", "ts-node"].map((n) => [n, NODE] as const),
  ...["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "busybox", "nu", "xonsh", "elvish"].map((n) => [n, SHELL] as const),
  ...["pwsh", "powershell", "powershell_ise"].map((n) => [n, POWERSHELL] as const),
  ["cmd", CMD],
  ...["awk", "gawk", "mawk", "nawk"].map((n) => [n, AWK] as const),
  ...["perl", "ruby", "irb", "php", "lua", "luajit", "tclsh", "wish", "rscript", "r", "julia", "osascript",
    "java", "jshell", "groovy", "scala", "elixir", "iex", "erl", "escript", "ghci", "runghc", "swift", "kotlin", "guile", "racket", "sbcl",
    "clojure", "eval", "source", "."].map((n) => [n, PERLISH] as const),
]);

/**
 * Programs that run another command named by a later word, and how many operands come before that
 * command (`timeout 5 CMD`, `chroot DIR CMD`); `env` also skips `NAME=VALUE` words.
 */
const WRAPPERS: ReadonlyMap<string, number> = new Map([
  ["env", 0], ["xargs", 0], ["sudo", 0], ["doas", 0], ["nice", 0], ["ionice", 0], ["nohup", 0], ["stdbuf", 0], ["time", 0],
  ["command", 0], ["exec", 0], ["builtin", 0], ["setsid", 0], ["unshare", 0], ["nsenter", 0], ["setpriv", 0], ["capsh", 0],
  ["strace", 0], ["ltrace", 0], ["valgrind", 0], ["gdb", 0], ["systemd-run", 0], ["firejail", 0], ["bwrap", 0], ["proot", 0],
  ["fakeroot", 0], ["watch", 0], ["script", 0], ["parallel", 0], ["caffeinate", 0], ["chronic", 0], ["unbuffer", 0],
  ["npx", 0], ["bunx", 0], ["pnpx", 0], ["uvx", 0], ["pkgx", 0],
  ["timeout", 1], ["chroot", 1], ["flock", 1], ["taskset", 1], ["chrt", 1], ["su", 1], ["runuser", 1],
]);

/** How the common wrappers read their options (the others: every option may take a value). */
const WRAPPER_OPTIONS: ReadonlyMap<string, OptionTable> = new Map<string, OptionTable>([
  ["env", { flags: ["-i", "-0", "-v", "--ignore-environment", "--null", "--debug"], valued: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"] }],
  ["sudo", {
    flags: ["-A", "-b", "-E", "-e", "-H", "-i", "-K", "-k", "-l", "-n", "-P", "-S", "-s", "-V", "-v", "--preserve-env", "--login", "--shell", "--non-interactive"],
    valued: ["-C", "-D", "-g", "-h", "-p", "-R", "-r", "-T", "-t", "-U", "-u", "--user", "--group", "--chdir"],
  }],
  ["doas", { flags: ["-n", "-s"], valued: ["-u", "-C"] }],
  ["xargs", {
    flags: ["-0", "-o", "-p", "-r", "-t", "-x", "--null", "--open-tty", "--interactive", "--no-run-if-empty", "--verbose", "--exit"],
    valued: ["-a", "-d", "-E", "-e", "-I", "-L", "-l", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars"],
  }],
  ["nice", { valued: ["-n", "--adjustment"] }],
  ["timeout", { flags: ["--foreground", "--preserve-status", "-v", "--verbose"], valued: ["-k", "-s", "--kill-after", "--signal"] }],
  ["nohup", { flags: [] }],
  ["stdbuf", { valued: ["-i", "-o", "-e"] }],
  ["time", { flags: ["-p", "-v", "-a", "-q"], valued: ["-f", "-o"] }],
  ["command", { flags: ["-p", "-v", "-V"] }],
  ["exec", { flags: ["-c", "-l"], valued: ["-a"] }],
  ["setsid", { flags: ["-c", "-f", "-w"] }],
  ["npx", { flags: ["-y", "--yes", "--no", "-q", "--quiet", "--no-install"], valued: ["-p", "--package", "-c", "--call"] }],
]);

/** Tools whose subcommand runs any command (`npm exec CMD`, `uv run CMD`): the subcommand turns them into a wrapper. */
const EXEC_SUBCOMMANDS: ReadonlyMap<string, readonly string[]> = new Map([
  ["npm", ["exec", "x"]], ["pnpm", ["exec", "dlx"]], ["yarn", ["exec", "dlx"]], ["bun", ["x", "exec"]], ["uv", ["run"]],
  ["poetry", ["run"]], ["pipenv", ["run"]], ["pipx", ["run"]], ["hatch", ["run"]], ["pdm", ["run"]], ["conda", ["run"]],
  ["mise", ["exec", "x"]], ["asdf", ["exec"]], ["nix", ["run", "shell", "develop"]], ["cargo", []], ["go", []], ["git", []],
  ["docker", []], ["podman", []], ["kubectl", []],
]);

/**
 * Programs where any prefix still lets a later word run a command: `find . -name x` is followed by
 * `-exec sh -c …` just as well, GNU `sed` runs the `e` command of a script given after the prefix,
 * `rg --pre` and `tar --to-command` run the program they name.
 */
const LATER_WORD_RUNS_CODE: ReadonlyMap<string, string> = new Map([
  ["find", "find runs any command given to -exec or -ok after the prefix"],
  ["sed", "sed runs the commands of an `e` script given after the prefix"],
  ["rg", "rg runs the program given to --pre after the prefix"],
  ["tar", "tar runs the program given to --to-command or --use-compress-program after the prefix"],
  ["zip", "zip runs the program given to --unzip-command after the prefix"],
]);

function isOption(word: string, table: OptionTable | undefined): boolean {
  // `-` alone is standard input: for an interpreter, code that arrives later.
  if (word === "-") return true;
  if (word.length > 1 && (word.startsWith("-") || word.startsWith("+"))) return true;
  return table?.slashOptions === true && word.length > 1 && word.startsWith("/");
}

type OptionKind = "flag" | "code" | "valued" | "unknown";

function optionKind(word: string, table: OptionTable | undefined): OptionKind {
  const key = table?.caseless ? word.toLowerCase() : word;
  if (key.includes("=")) return "flag";
  if (table?.code?.includes(key)) return "code";
  if (table?.flags?.includes(key)) return "flag";
  if (table?.valued?.includes(key)) return "valued";
  if (table?.codeLetters && /^-[a-zA-Z]+$/.test(word) && [...table.codeLetters].some((c) => word.slice(1).includes(c))) return "code";
  if (table?.flags && /^-[a-zA-Z]{2,}$/.test(word) && [...word.slice(1)].every((c) => table.flags?.includes(`-${c}`))) return "flag";
  return table?.assumeFlags ? "flag" : "unknown";
}

/**
 * Walk the words after a program: options (and values that cannot be told apart from them) are
 * skipped; the result is the index of the first operand, `"code"` when an option fixed the code
 * to run (`-c SCRIPT`, `-m MODULE`), or `"open"` when the prefix ends before anything is fixed.
 */
function firstOperand(words: readonly string[], from: number, table: OptionTable | undefined, env = false): number | "code" | "open" {
  let pendingValue: OptionKind | undefined;
  for (let i = from; i < words.length; i++) {
    const word = words[i]!;
    if (pendingValue === "code") return "code";
    if (pendingValue === "valued") {
      pendingValue = undefined;
      continue;
    }
    if (word === "--") return i + 1 < words.length ? i + 1 : "open";
    if (isOption(word, table)) {
      const kind = optionKind(word, table);
      pendingValue = kind === "flag" ? undefined : kind;
      continue;
    }
    if (env && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
    // A word after an option nobody knows may be that option's value: it fixes nothing.
    if (pendingValue === "unknown") {
      pendingValue = undefined;
      continue;
    }
    return i;
  }
  return "open";
}

/**
 * Why an allow rule for `prefix` would allow any code at all, or `undefined` when what it lets
 * through is fixed. Refused: an interpreter or shell followed only by options (`python3 -q`,
 * `bash --norc`, `pwsh -NoProfile`), a wrapper followed only by options or by a refused prefix
 * (`env -i`, `sudo -E`, `timeout 5`, `env python3 -I`), a tool whose bare form reaches a subcommand
 * that runs anything (`npm`, `git -c x=y`, `npx`, `npm exec`), and `find`, `sed`, `rg`, `tar`, `zip`
 * prefixes (a later word runs a command). Programs are named by file name, so `/usr/bin/python3`
 * and `python3.12` and `PYTHON.EXE` are `python`.
 */
export function arbitraryCodePrefix(prefix: readonly string[]): string | undefined {
  return judge(prefix, 0, 0);
}

function judge(words: readonly string[], at: number, depth: number): string | undefined {
  const argv0 = words[at];
  if (argv0 === undefined) return "the wrapper is followed by no command, so it would run any command";
  if (depth > 8) return "it nests more command wrappers than can be judged";
  const name = programName(argv0);
  const shown = words.slice(at).join(" ");
  const later = LATER_WORD_RUNS_CODE.get(name);
  if (later) return later;
  const interpreter = INTERPRETERS.get(name);
  if (interpreter) {
    const next = firstOperand(words, at + 1, interpreter);
    return next === "open" ? `\`${shown}\` is an interpreter or shell followed only by options: it would run any code` : undefined;
  }
  const before = WRAPPERS.get(name);
  if (before !== undefined) {
    const table = WRAPPER_OPTIONS.get(name);
    let next = firstOperand(words, at + 1, table, name === "env");
    for (let skipped = 0; skipped < before && typeof next === "number"; skipped++) next = firstOperand(words, next + 1, table);
    if (typeof next !== "number") return `\`${shown}\` runs the command that follows it, and the prefix does not fix that command`;
    return judge(words, next, depth + 1);
  }
  // Global options read by the tool's own table where it is known (`docker --debug ps`, `cargo +nightly
  // test`); one that sets what the tool runs (`git --exec-path=DIR`, `git -c core.pager=…`) fixes nothing.
  const structure = commandStructure(words.slice(at));
  if (structure?.codeOption) {
    return `\`${shown}\` sets with \`${structure.codeOption}\` the programs or configuration ${name} runs, so it would run whatever that names`;
  }
  const subcommands = EXEC_SUBCOMMANDS.get(name);
  if (subcommands) {
    const known = structure && structure.unknownOption === undefined;
    const sub = known ? (structure.subcommand === undefined ? "open" : at + structure.subcommand) : firstOperand(words, at + 1, undefined);
    if (typeof sub !== "number") return `\`${shown}\` is followed only by options: it would allow every subcommand, some of which run any command`;
    if (!subcommands.includes(words[sub]!.toLowerCase())) return undefined;
    const next = firstOperand(words, sub + 1, undefined);
    if (typeof next !== "number") return `\`${shown}\` runs the command that follows it, and the prefix does not fix that command`;
    return judge(words, next, depth + 1);
  }
  return undefined;
}

/**
 * The commands a wrapper may run (`env -i FOO=1 git status` → `git status`, `timeout 5 ./x` → `./x`,
 * `npm exec -- tsc` → `tsc`): one candidate when its options can be read, two when an option of
 * unknown arity leaves it open whether the next word is its value or the command. Empty when
 * `argv` is no wrapper or names no command.
 */
export function wrappedCommands(argv: readonly string[]): string[][] {
  const argv0 = argv[0];
  if (argv0 === undefined) return [];
  const name = programName(argv0);
  const before = WRAPPERS.get(name);
  let start = 1;
  let table: OptionTable | undefined;
  if (before === undefined) {
    const subcommands = EXEC_SUBCOMMANDS.get(name);
    if (!subcommands || subcommands.length === 0) return [];
    const sub = firstOperand(argv, 1, undefined);
    if (typeof sub !== "number" || !subcommands.includes(argv[sub]!.toLowerCase())) return [];
    start = sub + 1;
  } else {
    table = WRAPPER_OPTIONS.get(name);
  }
  const found = new Set<number>();
  // Read once taking unknown options as flags and once as taking a value: the command is one of the two.
  for (const reading of [table, { ...table, assumeFlags: true }]) {
    let next = firstOperand(argv, start, reading, name === "env");
    for (let skipped = 0; skipped < (before ?? 0) && typeof next === "number"; skipped++) next = firstOperand(argv, next + 1, reading);
    if (typeof next === "number") found.add(next);
  }
  return [...found].sort((a, b) => a - b).map((i) => argv.slice(i));
}
