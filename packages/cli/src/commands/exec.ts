import { CONFIG_FILES_HELP, CONFIG_OPTIONS_HELP, wantsHelp } from "../options.js";

/** `shellgate exec --help`. */
export const HELP = `Usage: shellgate exec [options] -- COMMAND [ARGS...]
       shellgate exec [options] "SCRIPT"

Run one command the way an agent's command runs: checked against your rules, approved by you when
the rules or the approval policy say so, and run in the sandbox. Its output streams to this
terminal and shellgate exits with its exit code.

After \`--\` the words are the command itself (no shell). A single quoted argument without \`--\` is
a script run by your shell (\`bash -lc SCRIPT\`, or whatever your shell is); every plain command in it
is checked against the rules. The command's stdin is empty (/dev/null), as an agent's would be.

Options:
      --timeout MS           kill the command after MS milliseconds (exit 124); 0 = no timeout
                             (default: timeout_ms from the config, else 600000 = 10 minutes)
      --json                 print one JSON object with the result instead of streaming the output
      --escalate             ask to run it OUTSIDE the sandbox (always needs your approval)
${CONFIG_OPTIONS_HELP}
      --debug                show stack traces for unexpected errors
  -h, --help                 show this help

${CONFIG_FILES_HELP}

Approval: when a person must decide, shellgate asks on the terminal (run once / for this session /
always allow the prefix / deny / abort). Without a terminal (stdin not a TTY) it refuses instead of
waiting, with exit code 126.

Exit codes:
  N    the command's own exit code (128+n when killed by signal n)
  124  timed out
  125  shellgate could not run it: bad arguments, configuration (including an untrusted project
       file that would loosen the policy, or a workspace that is / or your home), rules file, or
       no sandbox available
  126  refused: forbidden by a rule, denied, or approval needed but no terminal to ask on
  127  the program could not be started
  130  aborted (you chose abort, or pressed Ctrl-C)
  141  the reader of shellgate's output went away (e.g. \`| head\`); the command was stopped

Examples:
  shellgate exec -- ls -la
  shellgate exec "git status && git diff --stat"
  shellgate exec --rules examples/default.rules -- git push --force
  shellgate exec --sandbox read-only --timeout 5000 -- make test
  shellgate exec --json -- node --version
`;

/** `shellgate exec`: see {@link HELP}. Only `--help` is answered here; the rest loads on demand. */
export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(HELP);
    return 0;
  }
  const { execMain } = await import("../exec/main.js");
  return execMain(args);
}
