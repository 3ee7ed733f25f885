import { isPassThrough, runCommand } from "./bin/command-runner.js";
import type { CommandModule } from "./bin/command-runner.js";
import { wantsHelp } from "./options.js";

export { debugEnabled, debugRequested, runCommand, stripDebug } from "./bin/command-runner.js";
export type { CommandModule } from "./bin/command-runner.js";

/**
 * Load `src/commands/<module>/index.js` lazily and run it (one dynamic import per command, so a command
 * loads nothing another command needs; the bundle keeps each in its own chunk). See {@link runCommand}
 * for how errors are reported.
 */
export async function runCommandModule(module: string, args: string[], prog = "shellgate"): Promise<number> {
  return runCommand(module, args, prog, async () => {
    // zod's settings must be made before any schema is (see zod-jitless.ts); a command's --help
    // needs no zod at all, so it does not load it, and neither do `policy` / `policy-check`: execpolicy
    // has no zod schemas, and the one schema of `--stdin` is an array's, which zod never compiles.
    if (!isPassThrough(module) && !wantsHelp(args)) await import("./zod-jitless.js");
    return (await import(`./commands/${module}/index.js`)) as CommandModule;
  });
}

