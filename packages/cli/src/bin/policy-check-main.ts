// The part of policy-check that runs a check, apart from the entry (policy-check.ts) so that
// `--version` does not even read it: bundled, it is its own file (scripts/bundle.mjs). The command is
// imported statically here, so that the bundler can leave out what it does not use of execpolicy
// (a lazily imported module is kept whole).
import * as command from "../commands/policy-check/index.js";
import { runCommand } from "./command-runner.js";

/** Run `policy-check ARGS`; resolves to the exit code. */
export function main(args: string[]): Promise<number> {
  return runCommand("policy-check", args, "policy-check", () => Promise.resolve(command));
}
