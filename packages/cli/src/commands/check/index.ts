import { exitCodesHelp } from "../../exit-table.js";
import { CONFIG_FILES_HELP, CONFIG_OPTIONS_HELP, wantsHelp } from "../../options.js";

/** `shellgate check --help`. */
export const HELP = `Usage: shellgate check [options] [--] COMMAND [ARGS...]
       shellgate check [options] "SCRIPT"

Show what would happen if an agent ran this command: how it splits into segments, which rule
matched each segment (file:line), how a segment no rule matched is judged (known safe, dangerous,
or "no rule; runs in the sandbox"), and the resulting requirement — skip (in the sandbox, or
bypassing it), needs approval (with the reason and the prefix "always allow" would add), or
forbidden (with the reason). Nothing is executed.

The command starts at the first word that is not an option (or after \`--\`); options after it
belong to the command. A single word is a script for your shell (\`bash -lc SCRIPT\`, or whatever
your shell is), so quote a script as one argument.

Options:
      --json                 print one JSON object instead of the explanation
      --escalate             judge it as a request to run outside the sandbox
${CONFIG_OPTIONS_HELP}
  -h, --help                 show this help

${CONFIG_FILES_HELP}

JSON: { "requirement": "skip" | "needs_approval" | "forbidden", "bypassSandbox"?, "reason"?,
        "proposedAmendment"?, "segments": [[...]], "matchedRules": [...], "split", "unmatched",
        "networkRules"?: { "effective": false, "rules": [...] } }
A network_rule in a loaded rules file has no effect yet; the report says so.

${exitCodesHelp("check")}

Examples:
  shellgate check git push --force
  shellgate check --approval-policy untrusted "cargo build && echo ok"
  shellgate check --rules examples/default.rules --json -- rm -rf build
`;

/** `shellgate check`: see {@link HELP}. Only `--help` is answered here; the rest loads on demand. */
export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(HELP);
    return 0;
  }
  const { checkMain } = await import("./main.js");
  return checkMain(args);
}
