import type { ExecResult } from "@shellgate/pty";
import { formatFreeform, formatStructured } from "../../output/format.js";
import { renderWithSpill } from "../../output/spill.js";
import type { PipelineOutcome } from "../../pipeline/index.js";
import type { ToolContext, ToolHandler, ToolOutput } from "../registry.js";
import { ShellArgsSchema, ShellCommandArgsSchema } from "../schemas.js";
import type { ShellArgs, ShellCommandArgs } from "../schemas.js";
import { runOneShot } from "./one-shot.js";
import { resolveWorkdir, shellScriptArgv } from "./runtime.js";
import type { ToolRuntime } from "./runtime.js";

/** The tool output of a finished one-shot command, formatted freeform or structured, spilled when cut. */
async function oneShotOutput(
  runtime: ToolRuntime,
  outcome: PipelineOutcome<ExecResult>,
  style: "freeform" | "structured",
  ctx: ToolContext,
): Promise<ToolOutput> {
  const result = outcome.value;
  const view = {
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    aggregated: result.aggregated,
    timedOut: result.timedOut,
  };
  const format = style === "freeform" ? formatFreeform : formatStructured;
  const rendered = await renderWithSpill(
    (fullOutputPath) => format(view, runtime.oneShotOutputPolicy, fullOutputPath),
    result.aggregated,
    runtime.spill,
    ctx.callId,
  );
  return {
    content: rendered.text,
    success: result.exitCode === 0 && !result.timedOut && !outcome.sandboxDenied,
    exitCode: result.exitCode,
    ...(rendered.fullOutputPath !== undefined ? { fullOutputPath: rendered.fullOutputPath } : {}),
  };
}

/** `shell` (and its alias `container.exec`): run an argv as-is; structured JSON output. */
export function createShellHandler(runtime: ToolRuntime): ToolHandler<ShellArgs> {
  return {
    description: "Runs a command given as an argv array and returns its output.",
    schema: ShellArgsSchema,
    isMutating: async (args) => !(await runtime.isKnownSafe(args.command)),
    handle: async (args, ctx) => {
      const cwd = await resolveWorkdir(ctx.tool, runtime.cwd, args.workdir);
      const outcome = await runOneShot(runtime, { ...args, argv: args.command, cwd, timeoutMs: args.timeout_ms }, ctx);
      return oneShotOutput(runtime, outcome, "structured", ctx);
    },
  };
}

/** The argv `shell_command` runs: the script in the user's shell, login by default. */
export function shellCommandArgv(runtime: ToolRuntime, args: Pick<ShellCommandArgs, "command" | "login">): string[] {
  return shellScriptArgv("shell_command", runtime, runtime.userShell(), args.command, args.login);
}

/** `shell_command`: run a script in the user's default shell; freeform text output. */
export function createShellCommandHandler(runtime: ToolRuntime): ToolHandler<ShellCommandArgs> {
  return {
    description:
      "Runs a shell command (a string) in the user's default shell and returns its output. Prefer this for pipelines and redirections.",
    schema: ShellCommandArgsSchema,
    // `login` is only advertised when login shells are allowed.
    ...(runtime.allowLoginShell ? {} : { advertisedSchema: ShellCommandArgsSchema.omit({ login: true }) }),
    freeformField: "command",
    isMutating: async (args) => !(await runtime.isKnownSafe(shellCommandArgv(runtime, args))),
    handle: async (args, ctx) => {
      const cwd = await resolveWorkdir(ctx.tool, runtime.cwd, args.workdir);
      const argv = shellCommandArgv(runtime, args);
      const outcome = await runOneShot(runtime, { ...args, argv, cwd, timeoutMs: args.timeout_ms }, ctx);
      return oneShotOutput(runtime, outcome, "freeform", ctx);
    },
  };
}
