import { exitCodesHelp } from "../../exit-table.js";
import { CONFIG_FILES_HELP, CONFIG_OPTIONS_HELP, wantsHelp } from "../../options.js";

/** `shellgate exec --help`. */
export const HELP = `Usage: shellgate exec [options] [--] COMMAND [ARGS...]
       shellgate exec [options] "SCRIPT"

Run one command the way an agent's command runs: checked against your rules, approved by you when
the rules or the approval policy say so, and run in the sandbox. Its output streams to this
terminal and shellgate exits with its exit code.

The command starts at the first word that is not an option (or after \`--\`), as in
\`shellgate exec ls -la\`; options after it belong to the command. Several words are the command
itself (no shell). A single word is a script run by your shell (\`bash -lc SCRIPT\`, or whatever
your shell is), so quote a script as one argument; every plain command in it is checked against the
rules. The command's stdin is empty (/dev/null), as an agent's would be.

Options:
      --timeout DURATION     kill the command after DURATION (exit 124): 500ms, 30s, 2m, 1m30s, 1h;
                             a bare number is milliseconds (--timeout 3 is 3 ms); 0 = no timeout
                             (default: timeout from the config, else 10m)
      --json                 print one JSON object with the result instead of streaming the output
      --escalate             ask to run it OUTSIDE the sandbox (always needs your approval)
${CONFIG_OPTIONS_HELP}
      --debug                show stack traces for unexpected errors
  -h, --help                 show this help

${CONFIG_FILES_HELP}

Approval: when a person must decide, shellgate asks on the terminal and says why (run once / always
allow the prefix, which adds an allow rule so matching commands run without the sandbox / deny /
abort; "run for this session" is only for \`shellgate mcp\`, whose session outlives one command).
Without a terminal (stdin not a TTY) it refuses instead of waiting, with exit code 126.

${exitCodesHelp("exec")}

Examples:
  shellgate exec ls -la
  shellgate exec git status --short
  shellgate exec "git status && git diff --stat"
  shellgate exec --rules examples/default.rules -- git push --force
  shellgate exec --sandbox read-only --timeout 5m make test
  shellgate exec --network npm install
  shellgate exec --json -- node --version
`;

/** `shellgate exec`: see {@link HELP}. Only `--help` is answered here; the rest loads on demand. */
export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(HELP);
    return 0;
  }
  const { execMain } = await import("./main.js");
  return execMain(args);
}
