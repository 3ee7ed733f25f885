/**
 * What became of the unsandboxed retry after a likely sandbox denial, when it did not run:
 * - `no_approver`: the approval policy allows asking, but no one can be asked here;
 * - `declined`: the person denied it.
 */
export type SandboxRetryStatus = "no_approver" | "declined";

/**
 * One line saying that the command ran in the sandbox and failed, and what happened to the retry
 * without the sandbox. `model`: for tool output (what the model can do next); `cli`: for a person at
 * `shellgate exec` (`rulesFile` is where an allow rule would go).
 */
export function sandboxRetryMessage(
  status: SandboxRetryStatus,
  exitCode: number,
  audience: "model" | "cli",
  rulesFile?: string,
): string {
  const ran = `it ran in the sandbox and failed (exit ${exitCode})`;
  if (status === "declined") {
    return audience === "model"
      ? `${ran}; the user denied the retry without the sandbox, so it was not run again. Do not retry it in another form; ask the user if it is needed`
      : `${ran}; the retry without the sandbox was not run (you denied it)`;
  }
  if (audience === "model") {
    return (
      `${ran}, probably because the sandbox refused something; a retry without the sandbox needs a person's approval, ` +
      "and no one can approve it here, so it was not retried. Ask the user to run it from a terminal (shellgate exec), " +
      "through an MCP host that can ask them (elicitation), or to add an allow rule for it"
    );
  }
  return (
    `${ran}; a retry without the sandbox needs a person, and there is no terminal to ask on (stdin is not a TTY): ` +
    `run it from a terminal, or allow it with a rule${rulesFile ? ` in ${rulesFile}` : ""}`
  );
}

/** The marker that starts every note shellgate adds to a command's tool output. */
export const NOTE_MARKER = "[shellgate]";

/**
 * Tool output text with the retry note added when the retry outside the sandbox did not run: a line
 * after the freeform text, or a `shellgate_note` field of the `shell` tool's JSON object.
 */
export function withSandboxRetryNote(
  content: string,
  retry: { status: SandboxRetryStatus | undefined; exitCode: number },
  style: "freeform" | "structured",
): string {
  if (!retry.status) return content;
  const note = sandboxRetryMessage(retry.status, retry.exitCode, "model");
  if (style === "structured") {
    try {
      const value = JSON.parse(content) as Record<string, unknown>;
      return JSON.stringify({ ...value, shellgate_note: note });
    } catch {
      // Not JSON after all: fall back to a line, never lose the note.
    }
  }
  return `${content}\n${NOTE_MARKER} ${note}`;
}
