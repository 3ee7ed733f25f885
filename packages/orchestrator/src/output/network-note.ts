import { NOTE_MARKER } from "../approval/retry-message.js";
import type { NetworkRefusal } from "../network/run-network.js";
import type { NetworkReport } from "../pipeline/types.js";
import { escapeForDisplay } from "./escape.js";

/** Refused hosts listed at most; a command looping over many hosts must not flood the model's view. */
export const MAX_LISTED_REFUSALS = 20;

/** The lines telling the model what the run's network refused and why it had none, or `[]`. */
export function networkNoteLines(report: NetworkReport | undefined): string[] {
  if (!report) return [];
  const lines: string[] = [];
  const note = report.note();
  if (note) lines.push(`network: ${note}`);
  const refusals = report.refusals();
  for (const r of refusals.slice(0, MAX_LISTED_REFUSALS)) lines.push(refusalLine(r));
  if (refusals.length > MAX_LISTED_REFUSALS) lines.push(`network: ${refusals.length - MAX_LISTED_REFUSALS} more hosts were refused`);
  return lines;
}

// Host names come from the command (hostile input): escaped before they reach a model or a person.
function refusalLine(r: NetworkRefusal): string {
  const where = escapeForDisplay(`${r.host}:${r.port}`);
  return `network: refused ${where}: ${escapeForDisplay(r.reason)}${r.hint ? `; to allow it: ${escapeForDisplay(r.hint)}` : ""}`;
}

/**
 * Tool output text with the network lines added: lines after the freeform text, or a
 * `shellgate_network` array in the `shell` tool's JSON object.
 */
export function withNetworkNote(content: string, report: NetworkReport | undefined, style: "freeform" | "structured"): string {
  const lines = networkNoteLines(report);
  if (lines.length === 0) return content;
  if (style === "structured") {
    try {
      const value = JSON.parse(content) as Record<string, unknown>;
      return JSON.stringify({ ...value, shellgate_network: lines });
    } catch {
      // Not JSON after all: fall back to lines, never lose the note.
    }
  }
  return `${content}${content.endsWith("\n") || content === "" ? "" : "\n"}${lines.map((l) => `${NOTE_MARKER} ${l}`).join("\n")}`;
}

/** The structured form for integrators (`ToolOutput.networkRefusals`), or `undefined` when none. */
export function networkRefusalsOf(report: NetworkReport | undefined): NetworkRefusal[] | undefined {
  const list = report?.refusals() ?? [];
  return list.length > 0 ? list : undefined;
}
