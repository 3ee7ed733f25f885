import { configOverrides, CONFIG_OPTIONS, parseCommandArgs } from "../../args.js";
import { parseDuration } from "../../duration.js";
import { loadConfig } from "../../config/load.js";
import { describeError } from "../../error-text.js";
import { UsageError } from "../../errors.js";
import { EXEC_EXIT, exitCodeForError } from "./exit-codes.js";
import { runExec, type ExecTarget } from "./run-exec.js";

/** The body of `shellgate exec` (see its `--help`). */
export async function execMain(args: string[]): Promise<number> {
  let target: ExecTarget;
  let json = false;
  let escalate = false;
  let config;
  try {
    const parsed = parseCommandArgs(args, {
      ...CONFIG_OPTIONS,
      timeout: { type: "string" },
      json: { type: "boolean" },
      escalate: { type: "boolean" },
      help: { type: "boolean" },
    });
    json = parsed.values["json"] === true;
    escalate = parsed.values["escalate"] === true;
    const overrides = configOverrides(parsed.values);
    const timeout = parsed.values["timeout"] as string | undefined;
    if (timeout !== undefined) overrides.timeoutMs = parseDuration("--timeout", timeout);
    target = commandTarget(parsed.hadTerminator, parsed.command);
    config = await loadConfig(overrides);
  } catch (error) {
    process.stderr.write(`shellgate exec: ${describeError(error)}\n`);
    if (error instanceof UsageError) process.stderr.write("Run `shellgate exec --help` for usage.\n");
    return EXEC_EXIT.SHELLGATE_ERROR;
  }
  try {
    return await runExec(config, target, { json, escalate });
  } catch (error) {
    process.stderr.write(`shellgate exec: ${describeError(error)}\n`);
    return exitCodeForError(error);
  }
}

/**
 * What to run: the words after `--` as an argv; without `--`, one word is a script for the user's shell
 * and several words are an argv (`shellgate exec ls -la`).
 */
function commandTarget(hadTerminator: boolean, command: string[]): ExecTarget {
  if (hadTerminator) {
    if (command.length === 0) throw new UsageError("no command after `--`");
    return { kind: "argv", argv: command };
  }
  if (command.length === 0) throw new UsageError('no command given: shellgate exec [options] COMMAND [ARGS...] or shellgate exec "SCRIPT"');
  if (command.length > 1) return { kind: "argv", argv: command };
  if (command[0]!.trim() === "") throw new UsageError("the script is empty");
  return { kind: "script", script: command[0]! };
}
