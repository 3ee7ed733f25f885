import { z } from "zod";

/** Default `timeout_ms` of the one-shot tools (`shell`, `shell_command`). */
export const DEFAULT_EXEC_TIMEOUT_MS = 10_000;
/** Default `yield_time_ms` of `exec_command`. */
export const DEFAULT_EXEC_COMMAND_YIELD_MS = 10_000;
/** Default `yield_time_ms` of `write_stdin`. */
export const DEFAULT_WRITE_STDIN_YIELD_MS = 250;
/** Default `max_output_tokens` of the unified exec tools, and the token budget of the one-shot tools. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;

// Every schema here is built on first use (`z.lazy`): a run of one tool builds that tool's schema
// and no other. `shellgate exec` parses one `shell` call; building all four tools' ~95 zod objects
// when the module loaded was ~3 M instructions of its start (callgrind), about 1 ms on a 2-core VM.
// The pieces several tools share are built once, by whichever tool needs them first.
const shared = once(() => ({
  /** The fields with which a one-shot or unified-exec call asks to run outside the sandbox. */
  escalation: {
    sandbox_permissions: z
      .enum(["use_default", "require_escalated"])
      .describe(
        'Sandbox permissions for this command. "require_escalated" asks to run outside the sandbox; it needs approval and a justification.',
      )
      .optional(),
    justification: z
      .string()
      .min(1)
      .describe(
        'Only with sandbox_permissions "require_escalated": a short yes/no question to the user explaining why the command needs to run outside the sandbox.',
      )
      .optional(),
    prefix_rule: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        'Only with sandbox_permissions "require_escalated": a reusable command prefix (argv words) the user could allow from now on, e.g. ["npm", "test"].',
      )
      .optional(),
  },
  workdir: z
    .string()
    .describe("Working directory for the command; relative paths are resolved against the session's working directory."),
  timeoutMs: z
    .number()
    .int()
    .nonnegative()
    .describe(`Timeout in milliseconds after which the command is killed (default ${DEFAULT_EXEC_TIMEOUT_MS}; 0 = no timeout).`),
  maxOutputTokens: z
    .number()
    .int()
    .nonnegative()
    .describe(`Maximum number of tokens of output to return (default ${DEFAULT_MAX_OUTPUT_TOKENS}); the middle is cut when longer.`),
}));

/** The value `make` returns, made on the first call. */
function once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** Arguments of the `shell` tool (alias `container.exec`): an argv array run as-is. Built on first use; `.unwrap()` is the object schema. */
export const ShellArgsSchema = z.lazy(() => {
  const { escalation, workdir, timeoutMs } = shared();
  return z
    .strictObject({
      command: z.array(z.string()).min(1).describe('The command as an argv array, e.g. ["ls", "-la"].'),
      workdir: workdir.optional(),
      timeout_ms: timeoutMs.optional(),
      ...escalation,
    })
    .describe("Runs a command given as an argv array and returns its output.");
});
export type ShellArgs = z.infer<typeof ShellArgsSchema>;

/** Arguments of the `shell_command` tool: a script run in the user's shell (login shell by default). Built on first use; `.unwrap()` is the object schema. */
export const ShellCommandArgsSchema = z.lazy(() => {
  const { escalation, workdir, timeoutMs } = shared();
  return z
    .strictObject({
      command: z.string().min(1).describe("The shell script to run in the user's default shell."),
      workdir: workdir.optional(),
      login: z.boolean().describe("Run with login shell semantics (default true).").optional(),
      timeout_ms: timeoutMs.optional(),
      ...escalation,
    })
    .describe("Runs a shell command (a string) in the user's default shell and returns its output.");
});
export type ShellCommandArgs = z.infer<typeof ShellCommandArgsSchema>;

/** What `exec_command` does, as the model reads it (what `tty` changes included). */
export const EXEC_COMMAND_DESCRIPTION =
  'Runs a shell command and returns its output, or a session ID when it is still running after yield_time_ms (poll it or send input with write_stdin). With tty: true it runs on a pseudo-terminal: for interactive programs, prompts and colours, and write_stdin input such as "\\u0003" (Ctrl-C) interrupts it. Without tty (the default) its output comes through pipes and it gets no input, so nothing can answer a prompt.';

/** Arguments of `exec_command` (unified exec): start a process, optionally on a terminal, and keep it as a session. Built on first use; `.unwrap()` is the object schema. */
export const ExecCommandArgsSchema = z.lazy(() => {
  const { escalation, workdir, maxOutputTokens } = shared();
  return z
    .strictObject({
      cmd: z.string().min(1).describe("Shell command to execute."),
      workdir: workdir.optional(),
      shell: z
        .string()
        .min(1)
        .describe("Shell binary to launch the command with; defaults to the user's default shell.")
        .optional(),
      login: z.boolean().describe("Whether to run the shell with login semantics (default true).").optional(),
      tty: z
        .boolean()
        .describe(
          "Run on a pseudo-terminal (default false). true: for interactive programs and prompts, colours, and input through " +
            'write_stdin ("\\u0003" interrupts, like Ctrl-C). false: pipes, no input, so the command must not wait for one.',
        )
        .optional(),
      yield_time_ms: z
        .number()
        .finite()
        .describe(`How long to wait (ms) for output before returning (default ${DEFAULT_EXEC_COMMAND_YIELD_MS}, clamped to 250..30000).`)
        .optional(),
      max_output_tokens: maxOutputTokens.optional(),
      ...escalation,
    })
    .describe(EXEC_COMMAND_DESCRIPTION);
});
export type ExecCommandArgs = z.infer<typeof ExecCommandArgsSchema>;

/** Arguments of `write_stdin`: send characters to a session (empty = poll for output). Built on first use; `.unwrap()` is the object schema. */
export const WriteStdinArgsSchema = z.lazy(() => {
  const { maxOutputTokens } = shared();
  return z
    .strictObject({
      session_id: z.number().int().describe("Identifier of the running unified exec session."),
      chars: z.string().describe("Characters to write to stdin; empty (the default) only polls for output.").optional(),
      yield_time_ms: z
        .number()
        .finite()
        .describe(`How long to wait (ms) for output before returning (default ${DEFAULT_WRITE_STDIN_YIELD_MS}).`)
        .optional(),
      max_output_tokens: maxOutputTokens.optional(),
    })
    .describe("Writes characters to an existing unified exec session and returns recent output.");
});
export type WriteStdinArgs = z.infer<typeof WriteStdinArgsSchema>;
