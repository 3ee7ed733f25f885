import { exitCodesHelp } from "../../exit-table.js";
import { CONFIG_FILES_HELP, CONFIG_OPTIONS_HELP, wantsHelp } from "../../options.js";

/** `shellgate doctor --help`. */
export const HELP = `Usage: shellgate doctor [options]

Report what shellgate finds on this machine: the detected shell, every sandbox backend with its
availability (and why not), the isolation the configured sandbox gets, the configuration files read
(and whether the project's is trusted), whether the workspace is too broad (/ or your home under
workspace-write), whether each rules file parses, and the domain policy (network_rule, --allow-domain, [network]).

Options:
      --json                 print the report as one JSON object
${CONFIG_OPTIONS_HELP}
  -h, --help                 show this help

${CONFIG_FILES_HELP}

${exitCodesHelp("doctor")}

Examples:
  shellgate doctor
  shellgate doctor --json | jq .sandbox
  shellgate doctor --sandbox read-only --rules examples/default.rules
`;

/** `shellgate doctor`: see {@link HELP}. Only `--help` is answered here; the rest loads on demand. */
export async function run(args: string[]): Promise<number> {
  if (wantsHelp(args)) {
    process.stdout.write(HELP);
    return 0;
  }
  const { doctorMain } = await import("./main.js");
  return doctorMain(args);
}
