// The one source of the exit codes every command documents: each command's `--help` and the CLI
// README's table are generated from it (a test compares both), so they cannot drift apart.
// Kept free of imports so that `--help` loads nothing heavy.

/**
 * The exit code of a configuration error, the same from every command that reads the configuration:
 * an invalid `config.toml`, an untrusted project file that would loosen the policy, a workspace of `/`
 * or the home directory, a rules file that does not load. 125 because `exec` passes the command's own
 * codes through and can only use a code commands rarely return (as `env`, `timeout` and `nice` do).
 */
export const CONFIG_ERROR_EXIT = 125;

/** The error codes that count as configuration errors (exit {@link CONFIG_ERROR_EXIT}). */
const CONFIG_ERROR_CODES: ReadonlySet<string> = new Set(["CLI_CONFIG", "CLI_PROJECT_NOT_TRUSTED", "CLI_BROAD_WORKSPACE"]);

/** Whether an error code is one of the CLI's configuration errors. */
export function isConfigErrorCode(code: string | undefined): boolean {
  return code !== undefined && CONFIG_ERROR_CODES.has(code);
}

/** One documented exit code: the code (`N` for "the command's own code") and what it means. */
export interface ExitRow {
  code: string;
  meaning: string;
}

/** The commands that document exit codes, in the order the README lists them. */
export type ExitTableCommand = "exec" | "sandbox" | "check" | "mcp" | "doctor" | "policy" | "policy-check";

const CONFIG_ROW: ExitRow = {
  code: String(CONFIG_ERROR_EXIT),
  meaning:
    "configuration error, the same from every command: an invalid config.toml (file:line:col), an untrusted project file that " +
    "would loosen the policy, a workspace of / or your home without --allow-broad-workspace, or a rules file that does not load",
};

const POLICY_CHECK_ROWS: readonly ExitRow[] = [
  { code: "0", meaning: "the rules loaded and the command was evaluated, whatever the decision (`test`: every example passed)" },
  { code: "1", meaning: "a rules file is missing, unreadable or invalid, with its diagnostic on stderr (`test`: an example failed)" },
  { code: "2", meaning: "bad arguments" },
];

/** Every command's exit codes. */
export const EXIT_TABLE: Readonly<Record<ExitTableCommand, readonly ExitRow[]>> = {
  exec: [
    { code: "N", meaning: "the command's own exit code (128+n when it was killed by signal n)" },
    { code: "124", meaning: "the command ran past --timeout and was killed" },
    {
      code: "125",
      meaning:
        "shellgate could not run it: bad arguments, a configuration error (as for every command), a rules file that does not load, " +
        "or no sandbox available here (the Landlock fallback needs --allow-weaker-isolation)",
    },
    { code: "126", meaning: "refused: forbidden by a rule, denied, or approval needed without a terminal to ask on" },
    { code: "127", meaning: "command not found, or it could not be started" },
    { code: "130", meaning: "aborted (you chose abort, or pressed Ctrl-C)" },
    { code: "141", meaning: "the reader of shellgate's output went away (e.g. `| head`); the command was stopped" },
  ],
  sandbox: [
    { code: "N", meaning: "the command's own exit code (128+n when it was killed by signal n)" },
    { code: "0", meaning: "--probe: the full sandbox works here" },
    { code: "1", meaning: "--probe: only the weaker fallback, or nothing, works here" },
    {
      code: "125",
      meaning:
        "the sandbox could not be set up: bad arguments or paths, no sandbox available here (the Landlock fallback needs " +
        "--allow-weaker-isolation), a --backend that is unknown or cannot run here, or a backend whose package is missing (the message names it)",
    },
    { code: "127", meaning: "command not found" },
  ],
  check: [
    { code: "0", meaning: "the report was printed, whatever it says" },
    { code: "2", meaning: "bad arguments" },
    CONFIG_ROW,
  ],
  mcp: [
    { code: "0", meaning: "the client disconnected" },
    { code: "1", meaning: "the server failed unexpectedly (--debug shows why)" },
    { code: "2", meaning: "bad arguments" },
    CONFIG_ROW,
  ],
  doctor: [
    { code: "0", meaning: "everything the configuration needs is available" },
    {
      code: "1",
      meaning:
        "a problem was found: the configured sandbox cannot be provided, a rules file does not parse, no shell was found, " +
        "or the workspace is / or your home without --allow-broad-workspace",
    },
    { code: "2", meaning: "bad arguments" },
    { code: String(CONFIG_ERROR_EXIT), meaning: "configuration error: an invalid config.toml (file:line:col) or an untrusted project file that would loosen the policy" },
  ],
  policy: [...POLICY_CHECK_ROWS.slice(0, 2).map((r) => ({ code: r.code, meaning: `\`policy check\`: ${r.meaning}` })), { code: "2", meaning: "bad arguments or an unknown subcommand" }],
  "policy-check": POLICY_CHECK_ROWS,
};

const HELP_WIDTH = 100;

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/** The rows of one command as `--help` prints them (code, then the meaning wrapped under itself). */
export function exitCodeHelpRows(command: ExitTableCommand): string[] {
  return EXIT_TABLE[command].map((row) => {
    const [first, ...rest] = wrap(row.meaning, HELP_WIDTH - 7);
    return [`  ${row.code.padEnd(5)}${first ?? ""}`, ...rest.map((l) => `       ${l}`)].join("\n");
  });
}

/** The "Exit codes:" section of a command's `--help`. */
export function exitCodesHelp(command: ExitTableCommand): string {
  return `Exit codes:\n${exitCodeHelpRows(command).join("\n")}`;
}

/** The README's exit-code table (Markdown), every command in order. */
export function exitCodesMarkdown(): string {
  const lines = ["| command | code | meaning |", "|---|---|---|"];
  for (const [command, rows] of Object.entries(EXIT_TABLE)) {
    for (const row of rows) lines.push(`| \`${command}\` | \`${row.code}\` | ${row.meaning.replaceAll("|", "\\|")} |`);
  }
  return lines.join("\n");
}
