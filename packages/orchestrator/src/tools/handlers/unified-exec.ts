import { z } from "zod";
import { decodeLossy } from "@shellgate/pty";
import type { Shell } from "@shellgate/shell-detect";
import { errorMessage, InvalidToolArgumentsError, SessionNotTtyError, SpawnFailedError } from "../../errors.js";
import { OutputDeltaEmitter } from "../../output/deltas.js";
import { NOTE_MARKER, sandboxRetryMessage } from "../../approval/retry-message.js";
import { networkNoteLines, networkRefusalsOf } from "../../output/network-note.js";
import { sandboxKeptNote } from "../../output/sandbox-kept-note.js";
import { releaseSandbox } from "../../pipeline/decisions.js";
import { clampExecYield, clampWriteYield, EARLY_EXIT_WAIT_MS, EXIT_OUTPUT_GRACE_MS, POST_WRITE_DELAY_MS, waitForExit } from "../../sessions/collect.js";
import type { UnifiedExecManager } from "../../sessions/manager.js";
import type { Session } from "../../sessions/session.js";
import type { ToolContext, ToolHandler, ToolOutput } from "../registry.js";
import { DEFAULT_EXEC_COMMAND_YIELD_MS, DEFAULT_WRITE_STDIN_YIELD_MS, EXEC_COMMAND_DESCRIPTION, ExecCommandArgsSchema, WriteStdinArgsSchema } from "../schemas.js";
import type { ExecCommandArgs, WriteStdinArgs } from "../schemas.js";
import { outputTokensFor, resolveWorkdir, safetyFields, shellScriptArgv } from "./runtime.js";
import type { ToolRuntime } from "./runtime.js";

/** The shell `exec_command` runs in: the one the model named, else the user's default (never a fixed bash). */
export function execCommandShell(runtime: ToolRuntime, args: Pick<ExecCommandArgs, "shell">): Shell {
  if (args.shell === undefined || args.shell.trim() === "") return runtime.userShell();
  try {
    return runtime.resolveShell(args.shell);
  } catch (error) {
    throw new InvalidToolArgumentsError("exec_command", "shell", errorMessage(error), { cause: error });
  }
}

/** The argv `exec_command` runs. */
export function execCommandArgv(runtime: ToolRuntime, args: Pick<ExecCommandArgs, "cmd" | "shell" | "login">): string[] {
  return shellScriptArgv("exec_command", runtime, execCommandShell(runtime, args), args.cmd, args.login);
}

/**
 * `exec_command`: start a process (on a terminal when `tty`), return what it printed within the
 * yield time, and keep it as a session when it is still running.
 */
export function createExecCommandHandler(runtime: ToolRuntime): ToolHandler<ExecCommandArgs> {
  return {
    description: EXEC_COMMAND_DESCRIPTION,
    schema: ExecCommandArgsSchema,
    // `login` is only advertised when login shells are allowed.
    ...(runtime.allowLoginShell ? {} : { advertisedSchema: z.lazy(() => ExecCommandArgsSchema.unwrap().omit({ login: true })) }),
    freeformField: "cmd",
    isMutating: async (args) => !(await runtime.isKnownSafe(execCommandArgv(runtime, args))),
    handle: async (args, ctx) => {
      const startedAt = performance.now();
      const cwd = await resolveWorkdir(ctx.tool, runtime.cwd, args.workdir);
      const shell = execCommandShell(runtime, args);
      const argv = shellScriptArgv(ctx.tool, runtime, shell, args.cmd, args.login);
      const tty = args.tty ?? false;
      const yieldMs = clampExecYield(args.yield_time_ms ?? DEFAULT_EXEC_COMMAND_YIELD_MS);
      const { sessions, events } = runtime;
      const id = sessions.store.reserveId();
      let began = false;
      let attemptStartedAt = startedAt;
      // Shared by both attempts of a retried call: one delta cap per call, and the replaced attempt's
      // session stops listening to its (exited) process.
      const deltas = new OutputDeltaEmitter(events, ctx.callId);
      let previous: Session | undefined;
      const warnings = shell.fallback ? [`shell: ${shell.fallback}`] : [];
      try {
        const outcome = await runtime.pipeline.run<Session>(
          {
            callId: ctx.callId,
            tool: ctx.tool,
            argv,
            cwd,
            env: runtime.commandEnv("session"),
            ...safetyFields(args),
            approvalKeyExtra: { tty },
            // A tty session gets a PTY of its own (the session factory's contract).
            dedicatedTerminal: tty,
            ...(ctx.signal ? { signal: ctx.signal } : {}),
          },
          async (execEnv) => {
            if (!began) {
              began = true;
              events.emit({ type: "exec.begin", callId: ctx.callId, tool: ctx.tool, argv, cwd, sessionId: id });
            }
            attemptStartedAt = performance.now();
            const proc = await runtime.spawnSession({ argv: execEnv.argv, cwd: execEnv.cwd, env: execEnv.env, tty });
            previous?.detach();
            const session = sessions.createSession(id, proc, ctx.callId, deltas);
            previous = session;
            let exited = await waitForExit(session, EARLY_EXIT_WAIT_MS);
            if (!exited) {
              // Stored before the yield, so a cancelled call leaves a session the model can poll, never an orphan.
              warnings.push(...(await sessions.admit(session)));
              exited = await waitForExit(session, attemptStartedAt + yieldMs - performance.now(), ctx.signal);
              // Finished within its first yield after all: judged like a one-shot command (and maybe retried).
              if (exited) sessions.store.remove(id, { keepReservation: true });
            }
            if (!exited) {
              // Still running: it cannot be judged, and its sandbox files live as long as it does.
              if (execEnv.cleanup) void proc.exited.finally(() => releaseSandbox(execEnv));
              return { value: session };
            }
            await session.waitForDrain(EXIT_OUTPUT_GRACE_MS);
            const text = decodeLossy(session.peek());
            const exitCode = session.exitCode ?? -1;
            return { value: session, probe: { exitCode, stdout: text, stderr: "", aggregated: text, timedOut: false } };
          },
        );
        const session = outcome.value;
        sessions.trackExit(session);
        if (outcome.sandboxRetry) {
          warnings.push(`${NOTE_MARKER} ${sandboxRetryMessage(outcome.sandboxRetry, session.exitCode ?? -1, "model")}`);
        }
        if (outcome.sandboxKept) warnings.push(`${NOTE_MARKER} ${sandboxKeptNote(outcome.sandboxKept)}`);
        // Refusals up to this response; a session still running may be refused more hosts later.
        warnings.push(...networkNoteLines(outcome.network).map((line) => `${NOTE_MARKER} ${line}`));
        const response = await sessions.respond(session, {
          callId: ctx.callId,
          startedAt: attemptStartedAt,
          yieldMs,
          warnings,
          maxOutputTokens: outputTokensFor(runtime, args.max_output_tokens),
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        });
        const refusals = networkRefusalsOf(outcome.network);
        const networkNote = outcome.network?.note();
        return {
          ...response,
          ...(outcome.sandboxRetry ? { sandboxRetry: outcome.sandboxRetry } : {}),
          ...(refusals ? { networkRefusals: refusals } : {}),
          ...(networkNote ? { networkNote } : {}),
          ...(outcome.sandboxKept ? { sandboxKept: outcome.sandboxKept } : {}),
        };
      } catch (error) {
        if (!sessions.store.has(id)) sessions.store.releaseId(id);
        throw error;
      }
    },
  };
}

/** `write_stdin`: send characters to a session (empty = poll) and return its recent output. */
export function createWriteStdinHandler(runtime: ToolRuntime): ToolHandler<WriteStdinArgs> {
  return {
    description: "Writes characters to an existing unified exec session and returns recent output.",
    schema: WriteStdinArgsSchema,
    isMutating: () => true,
    handle: (args, ctx) => writeStdin(runtime.sessions, { ...args, max_output_tokens: outputTokensFor(runtime, args.max_output_tokens) }, ctx),
  };
}

/**
 * `write_stdin` on `sessions`: send `chars` (empty = poll) to a session and return what it printed.
 * `max_output_tokens` is the budget already resolved for the model (see `outputTokensFor`).
 * @throws UnknownSessionError, SessionNotTtyError (input to a session without a terminal).
 */
export async function writeStdin(
  sessions: UnifiedExecManager,
  args: WriteStdinArgs & { max_output_tokens: number },
  ctx: ToolContext,
): Promise<ToolOutput> {
  const startedAt = performance.now();
  const session = sessions.store.get(args.session_id);
  const chars = args.chars ?? "";
  if (chars !== "" && !session.tty) throw new SessionNotTtyError(session.id);
  if (chars !== "" && !session.hasExited) {
    try {
      session.process.write(chars);
    } catch (error) {
      // A process that exited between our check and the write is reported as exited below.
      if (!session.hasExited) {
        throw new SpawnFailedError(`cannot write to session ${session.id}: ${errorMessage(error)}`, { cause: error });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POST_WRITE_DELAY_MS));
  }
  const yieldMs = clampWriteYield(args.yield_time_ms ?? DEFAULT_WRITE_STDIN_YIELD_MS, chars !== "", sessions.maxEmptyPollMs);
  // Input to a process that is gone was not delivered: say so, next to its exit code and last output.
  const warnings =
    chars !== "" && session.hasExited
      ? [`session ${session.id} had already exited (exit code ${session.exitCode}); the input was not sent. Its remaining output follows`]
      : [];
  return sessions.respond(session, {
    callId: ctx.callId,
    startedAt,
    yieldMs,
    maxOutputTokens: args.max_output_tokens,
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
}
