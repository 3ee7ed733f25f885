import { exitCodesHelp } from "../../exit-table.js";

/** `shellgate policy <subcommand>`: only `check` exists (it is `policy-check`). */
const USAGE = `Usage: shellgate policy check --rules <PATH>... [OPTIONS] [--] <COMMAND>...
       shellgate policy check test <RULES_FILE>...

Subcommands:
  check   check a command against execpolicy rules (same as \`policy-check\`; see \`shellgate policy check --help\`)

${exitCodesHelp("policy")}

Examples:
  shellgate policy check --rules examples/default.rules -- git push --force
  shellgate policy check --rules examples/default.rules --explain git status
  shellgate policy check test examples/default.rules
`;

/** Run `shellgate policy ...`; returns the exit code. */
export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === "check") {
    const { run: runCheck } = await import("../policy-check/index.js");
    return runCheck(rest);
  }
  if (sub === "-h" || sub === "--help" || sub === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  process.stderr.write(sub === undefined ? `shellgate policy: missing subcommand\n\n${USAGE}` : `shellgate policy: unknown subcommand ${JSON.stringify(sub)}\n\n${USAGE}`);
  return 2;
}
