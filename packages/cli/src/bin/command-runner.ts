// How a command module is run and its errors reported, for both entry points. Kept apart from
// run-command.ts, whose table of command modules (a dynamic import of `./commands/${module}/index.js`)
// a bundler follows into every command: the policy-check entry imports this module and its one command,
// so its bundle holds nothing else.
import { describeError, errorCode } from "../error-text.js";
import { UsageError } from "../errors.js";
import { CONFIG_ERROR_EXIT, isConfigErrorCode } from "../exit-table.js";
import { splitCommandLine } from "../options.js";

/** What every command's `src/commands/<name>/index.ts` exports: run with the arguments after the subcommand, return the exit code. */
export interface CommandModule {
  run(args: string[]): Promise<number>;
}

let debugMode = false;

/** Whether the running command was started with `--debug` (or SHELLGATE_DEBUG=1). */
export function debugEnabled(): boolean {
  return debugMode || process.env["SHELLGATE_DEBUG"] === "1";
}

/** Whether stack traces were asked for (`--debug` among shellgate's own options, or `SHELLGATE_DEBUG=1`). */
export function debugRequested(args: readonly string[]): boolean {
  return args.slice(0, splitCommandLine(args).ownCount).includes("--debug") || process.env["SHELLGATE_DEBUG"] === "1";
}

/** Remove `--debug` from a command's own options (never from the command, which starts at `--` or its first word). */
export function stripDebug(args: readonly string[]): string[] {
  const end = splitCommandLine(args).ownCount;
  return [...args.slice(0, end).filter((a) => a !== "--debug"), ...args.slice(end)];
}

function isMissingModule(error: unknown, module: string): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : "";
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && message.includes(`commands/${module}/index.js`);
}

/** policy-check treats everything from the first command word on as the command (Codex-compatible). */
export function isPassThrough(module: string): boolean {
  return module === "policy-check" || module === "policy";
}

/**
 * Run the command module `load` resolves to (`runCommandModule` in run-command.ts loads one by name). Errors escaping a command become one line on stderr
 * (exit 1; usage errors exit 2, configuration errors {@link CONFIG_ERROR_EXIT}); the stack trace is shown only with `--debug` or `SHELLGATE_DEBUG=1`.
 */
export async function runCommand(module: string, args: string[], prog: string, load: () => Promise<CommandModule>): Promise<number> {
  // policy-check's arguments are passed untouched; `--debug` before the command name or SHELLGATE_DEBUG still work.
  const passThrough = isPassThrough(module);
  const debug = passThrough ? process.env["SHELLGATE_DEBUG"] === "1" || args[0] === "--debug" : debugRequested(args);
  debugMode = debug;
  let mod: CommandModule;
  try {
    mod = await load();
  } catch (error) {
    if (isMissingModule(error, module)) {
      process.stderr.write(`${prog}: the \`${module}\` command is not part of this build (commands/${module}/index.js is missing)\n`);
    } else {
      process.stderr.write(`${prog}: cannot load the \`${module}\` command: ${describeError(error)}\n`);
    }
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return 1;
  }
  try {
    return await mod.run(passThrough ? (args[0] === "--debug" ? args.slice(1) : args) : stripDebug(args));
  } catch (error) {
    process.stderr.write(`${prog}: ${describeError(error)}\n`);
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    if (error instanceof UsageError) return 2;
    return isConfigErrorCode(errorCode(error)) ? CONFIG_ERROR_EXIT : 1;
  }
}
