import { z } from "zod";
import { withSandboxRetryNote } from "../../approval/retry-message.js";
import { formatFreeform, formatStructured } from "../../output/format.js";
import { networkRefusalsOf, withNetworkNote } from "../../output/network-note.js";
import { withSandboxKeptNote } from "../../output/sandbox-kept-note.js";
import { describeSpill } from "../../output/spill.js";
import type { ToolHandler, ToolOutput } from "../registry.js";
import { ShellArgsSchema, ShellCommandArgsSchema } from "../schemas.js";
import type { ShellArgs, ShellCommandArgs } from "../schemas.js";
import { runOneShot } from "./one-shot.js";
import type { OneShotOutcome } from "./one-shot.js";
import { resolveWorkdir, shellScriptArgv } from "./runtime.js";
import type { ToolRuntime } from "./runtime.js";

/**
 * The tool output of a finished one-shot command, formatted freeform or structured. When the model's
 * view is cut, it names the file the output was streamed to (and what it holds when not all of it);
 * otherwise the file is removed.
 */
async function oneShotOutput(runtime: ToolRuntime, outcome: OneShotOutcome, style: "freeform" | "structured"): Promise<ToolOutput> {
  const result = outcome.value;
  const view = {
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    aggregated: result.aggregated,
    timedOut: result.timedOut,
    ...(outcome.sandboxDenial ? { sandboxDenial: outcome.sandboxDenial } : {}),
    // The process layer kept only the head and tail: the counts the model reads come from the stream.
    ...(result.droppedBytes > 0 && outcome.totals ? { totals: outcome.totals } : {}),
  };
  const format = style === "freeform" ? formatFreeform : formatStructured;
  const { spill } = outcome;
  const first = format(view, runtime.oneShotOutputPolicy);
  let rendered: { text: string; fullOutputPath?: string } = first;
  try {
    if (spill && first.truncation.truncated) {
      const summary = await spill.reveal();
      if (summary.path !== undefined) {
        const fullOutputPath = summary.path;
        rendered = { text: format(view, runtime.oneShotOutputPolicy, fullOutputPath, describeSpill(summary)).text, fullOutputPath };
      }
    }
  } finally {
    await spill?.end();
  }
  const refusals = networkRefusalsOf(outcome.network);
  const networkNote = outcome.network?.note();
  return {
    content: withSandboxKeptNote(
      withNetworkNote(withSandboxRetryNote(rendered.text, { status: outcome.sandboxRetry, exitCode: result.exitCode }, style), outcome.network, style),
      outcome.sandboxKept,
      style,
    ),
    success: result.exitCode === 0 && !result.timedOut && !outcome.sandboxDenied,
    exitCode: result.exitCode,
    ...(outcome.sandboxRetry ? { sandboxRetry: outcome.sandboxRetry } : {}),
    ...(outcome.sandboxDenial ? { sandboxDenial: outcome.sandboxDenial } : {}),
    ...(rendered.fullOutputPath !== undefined ? { fullOutputPath: rendered.fullOutputPath } : {}),
    ...(refusals ? { networkRefusals: refusals } : {}),
    ...(networkNote ? { networkNote } : {}),
    ...(outcome.sandboxKept ? { sandboxKept: outcome.sandboxKept } : {}),
    ...(outcome.runRepositories ? { runRepositories: outcome.runRepositories } : {}),
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
      return oneShotOutput(runtime, outcome, "structured");
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
    ...(runtime.allowLoginShell ? {} : { advertisedSchema: z.lazy(() => ShellCommandArgsSchema.unwrap().omit({ login: true })) }),
    freeformField: "command",
    isMutating: async (args) => !(await runtime.isKnownSafe(shellCommandArgv(runtime, args))),
    handle: async (args, ctx) => {
      const cwd = await resolveWorkdir(ctx.tool, runtime.cwd, args.workdir);
      const argv = shellCommandArgv(runtime, args);
      const outcome = await runOneShot(runtime, { ...args, argv, cwd, timeoutMs: args.timeout_ms }, ctx);
      return oneShotOutput(runtime, outcome, "freeform");
    },
  };
}
