import { NOTE_MARKER } from "../approval/retry-message.js";
import type { SandboxKept } from "../pipeline/types.js";

/** The note the model reads when allow rules matched but the command ran in the sandbox anyway. */
export function sandboxKeptNote(kept: SandboxKept): string {
  return `${kept.reason}. Do not move the program or repository to get around this; ask the user if it must run outside the sandbox`;
}

/**
 * Tool output text with the sandbox-kept note: a line after the freeform text, or a
 * `shellgate_sandbox_kept` field of the `shell` tool's JSON object.
 */
export function withSandboxKeptNote(content: string, kept: SandboxKept | undefined, style: "freeform" | "structured"): string {
  if (!kept) return content;
  const note = sandboxKeptNote(kept);
  if (style === "structured") {
    try {
      const value = JSON.parse(content) as Record<string, unknown>;
      return JSON.stringify({ ...value, shellgate_sandbox_kept: note });
    } catch {
      // Not JSON after all: fall back to a line, never lose the note.
    }
  }
  return `${content}${content.endsWith("\n") || content === "" ? "" : "\n"}${NOTE_MARKER} ${note}`;
}
