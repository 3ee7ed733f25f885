import { randomHex } from "../ids.js";
import { sandboxDenialNote, type SandboxDenial } from "@shellgate/sandbox";
import { approxTokenCount, approxTokensFromBytes, countLines, formattedTruncateText, truncateText } from "./truncate.js";
import type { OutputTotals, Truncation, TruncationPolicy } from "./truncate.js";

/** A finished one-shot command as the model is told about it. */
export interface OneShotResult {
  exitCode: number;
  durationMs: number;
  /** stdout then stderr, already decoded. */
  aggregated: string;
  timedOut: boolean;
  /** What the sandbox refused, when the run's evidence shows it; becomes a `[shellgate] sandbox:` line or a JSON field. */
  sandboxDenial?: SandboxDenial;
  /** The whole output's size, when `aggregated` is only its head and tail (the counts the model is told). */
  totals?: OutputTotals;
}

/** The size of `oneShotContent(result)` had nothing been dropped, when `result.totals` says more was printed. */
function contentTotals(result: OneShotResult, content: string): OutputTotals | undefined {
  if (!result.totals) return undefined;
  const notice = Buffer.byteLength(content) - Buffer.byteLength(result.aggregated);
  return { bytes: result.totals.bytes + notice, lines: result.totals.lines + (result.timedOut ? 1 : 0) };
}

/** The text a one-shot result shows the model before truncation (the timeout notice first). */
export function oneShotContent(result: OneShotResult): string {
  return result.timedOut
    ? `command timed out after ${Math.round(result.durationMs)} milliseconds\n${result.aggregated}`
    : result.aggregated;
}

/** Seconds rounded to 0.1 without trailing zeros: `0.1`, `1`, `12.5`. */
export function formatDurationSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

/** Seconds with four decimals, as unified exec reports wall time. */
export function formatWallTime(ms: number): string {
  return (ms / 1000).toFixed(4);
}

/** Six lowercase hex digits identifying one unified exec response. */
export function newChunkId(): string {
  return randomHex(3);
}

/** Where the full output went, as a line the model can act on; `note` says what the file holds when that is not simply all of it. */
export function fullOutputLine(fullOutputPath: string, note?: string): string {
  return `Full output saved to: ${fullOutputPath}${note !== undefined ? ` (${note})` : ""}`;
}

/**
 * Freeform text for `shell_command`: `Exit code`, `Wall time`, `Total output lines` (only when the
 * output was cut), the spill file (when there is one), `Output:`, then the head+tail of the output,
 * then, after a sandbox denial, one `[shellgate] sandbox: …` line naming the cause and the way out
 * (after the output, where the model reads last, and never cut with it).
 */
export function formatFreeform(
  result: OneShotResult,
  policy: TruncationPolicy,
  fullOutputPath?: string,
  fullOutputNote?: string,
): { text: string; truncation: Truncation } {
  const content = oneShotContent(result);
  const truncation = truncateText(content, policy);
  const lines = [`Exit code: ${result.exitCode}`, `Wall time: ${formatDurationSeconds(result.durationMs)} seconds`];
  if (truncation.truncated) lines.push(`Total output lines: ${contentTotals(result, content)?.lines ?? countLines(content)}`);
  if (fullOutputPath !== undefined) lines.push(fullOutputLine(fullOutputPath, fullOutputNote));
  lines.push("Output:", truncation.text);
  let text = lines.join("\n");
  if (result.sandboxDenial) text += `${text.endsWith("\n") ? "" : "\n"}${sandboxDenialNote(result.sandboxDenial)}`;
  return { text, truncation };
}

/** The JSON object `shell` returns: output plus metadata (`exit_code`, `duration_seconds`, spill path). */
export interface StructuredOutput {
  output: string;
  metadata: { exit_code: number; duration_seconds: number; full_output_path?: string; full_output_note?: string };
  /** What the sandbox refused and the way out (written for the model), after a sandbox denial. */
  sandboxDenial?: SandboxDenial;
}

/** Structured JSON text for the `shell` tool; a sandbox denial adds the `sandboxDenial` object. */
export function formatStructured(
  result: OneShotResult,
  policy: TruncationPolicy,
  fullOutputPath?: string,
  fullOutputNote?: string,
): { text: string; value: StructuredOutput; truncation: Truncation } {
  const content = oneShotContent(result);
  const truncation = formattedTruncateText(content, policy, contentTotals(result, content));
  const value: StructuredOutput = {
    output: truncation.text,
    metadata: {
      exit_code: result.exitCode,
      duration_seconds: Math.round(result.durationMs / 100) / 10,
      ...(fullOutputPath !== undefined ? { full_output_path: fullOutputPath } : {}),
      ...(fullOutputPath !== undefined && fullOutputNote !== undefined ? { full_output_note: fullOutputNote } : {}),
    },
    ...(result.sandboxDenial ? { sandboxDenial: result.sandboxDenial } : {}),
  };
  return { text: JSON.stringify(value), value, truncation };
}

/** One unified exec response (exec_command or write_stdin). */
export interface UnifiedExecResponse {
  chunkId: string;
  wallTimeMs: number;
  /** Set when the process has exited (the session is then gone). */
  exitCode?: number;
  /** Set while the process is still running. */
  sessionId?: number;
  /** Output collected during this call. */
  output: string;
  /** The size of everything the window received, when `output` is only its head and tail. */
  totals?: OutputTotals;
  maxOutputTokens: number;
  fullOutputPath?: string;
  /** What the file holds, when that is not simply all of the output (see `describeSpill`). */
  fullOutputNote?: string;
  warnings?: readonly string[];
}

/**
 * Text for unified exec: `Chunk ID`, `Wall time` (4 decimals), the exit or session line, the
 * original token count, warnings and the spill file when any, `Output:`, then the output cut to
 * `max_output_tokens`.
 */
export function formatUnifiedExec(response: UnifiedExecResponse): { text: string; truncation: Truncation } {
  const truncation = formattedTruncateText(response.output, { kind: "tokens", limit: response.maxOutputTokens }, response.totals);
  const lines = [`Chunk ID: ${response.chunkId}`, `Wall time: ${formatWallTime(response.wallTimeMs)} seconds`];
  if (response.exitCode !== undefined) lines.push(`Process exited with code ${response.exitCode}`);
  if (response.sessionId !== undefined) lines.push(`Process running with session ID ${response.sessionId}`);
  lines.push(`Original token count: ${response.totals ? approxTokensFromBytes(response.totals.bytes) : approxTokenCount(response.output)}`);
  for (const warning of response.warnings ?? []) lines.push(`Warning: ${warning}`);
  if (response.fullOutputPath !== undefined) lines.push(fullOutputLine(response.fullOutputPath, response.fullOutputNote));
  lines.push("Output:", truncation.text);
  return { text: lines.join("\n"), truncation };
}
