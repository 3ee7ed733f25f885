/** A budget for text shown to the model: bytes, or tokens (estimated at 4 bytes each). */
export type TruncationPolicy = { kind: "bytes"; limit: number } | { kind: "tokens"; limit: number };

/** The result of cutting text to a budget. */
export interface Truncation {
  /** The text to show: unchanged, or head + marker + tail. */
  text: string;
  truncated: boolean;
  /** Characters (code points) removed from the middle. */
  removedChars: number;
  /** Bytes removed from the middle. */
  removedBytes: number;
}

const BYTES_PER_TOKEN = 4;

/** Estimated tokens of `bytes` UTF-8 bytes: ceil(bytes / 4). */
export function approxTokensFromBytes(bytes: number): number {
  return Math.ceil(bytes / BYTES_PER_TOKEN);
}

/** Estimated tokens of a string. */
export function approxTokenCount(text: string): number {
  return approxTokensFromBytes(Buffer.byteLength(text, "utf8"));
}

/** The byte budget a policy allows. */
export function budgetBytes(policy: TruncationPolicy): number {
  const limit = Math.max(0, Math.floor(policy.limit));
  return policy.kind === "bytes" ? limit : limit * BYTES_PER_TOKEN;
}

/** The size of a whole output, for when the text at hand is only its head and tail. */
export interface OutputTotals {
  bytes: number;
  /** Lines as `countLines` counts them. */
  lines: number;
}

/**
 * Newline bytes in `chunk`. `Buffer#indexOf` is a native memchr; a JavaScript loop over every
 * byte was the cost of counting a command's whole output as it streams (see bench/session-tally.mjs).
 */
export function countNewlines(chunk: Uint8Array): number {
  const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let count = 0;
  for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) count += 1;
  return count;
}

/**
 * Bytes and lines of an output as it streams past, so the model is told the size of the whole
 * output even when only its head and tail were kept. No copies, no decoding.
 */
export class OutputTally {
  #bytes = 0;
  #newlines = 0;
  #last = -1;
  #takenBytes = 0;
  #takenNewlines = 0;

  /** Count the next chunk. */
  push(chunk: Uint8Array): void {
    const n = chunk.byteLength;
    if (n === 0) return;
    this.#newlines += countNewlines(chunk);
    this.#bytes += n;
    this.#last = chunk[n - 1] as number;
  }

  /** What has been counted so far. */
  totals(): OutputTotals {
    return { bytes: this.#bytes, lines: this.#newlines + (this.#bytes > 0 && this.#last !== 10 ? 1 : 0) };
  }

  /**
   * What was counted since the last `take` (everything, the first time): the size of one window of
   * the stream, such as the output between two polls of a session.
   */
  take(): OutputTotals {
    const bytes = this.#bytes - this.#takenBytes;
    const newlines = this.#newlines - this.#takenNewlines;
    this.#takenBytes = this.#bytes;
    this.#takenNewlines = this.#newlines;
    return { bytes, lines: newlines + (bytes > 0 && this.#last !== 10 ? 1 : 0) };
  }
}

/** Lines as a reader counts them: a trailing newline does not start another line. */
export function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}

/**
 * Keep a head and a tail of `text` within the policy's byte budget (half each, the odd byte to the
 * tail), never splitting a character, and put `…N tokens truncated…` (token policy) or
 * `…N chars truncated…` (byte policy) where the middle was.
 */
export function truncateText(text: string, policy: TruncationPolicy): Truncation {
  const budget = budgetBytes(policy);
  const totalBytes = Buffer.byteLength(text, "utf8");
  if (totalBytes <= budget) return { text, truncated: false, removedChars: 0, removedBytes: 0 };

  const bytes = Buffer.from(text, "utf8");
  const headBudget = Math.floor(budget / 2);
  const tailBudget = budget - headBudget;
  // Move the cut points onto character boundaries (never inside a multi-byte sequence).
  let headEnd = headBudget;
  while (headEnd > 0 && isContinuation(bytes[headEnd])) headEnd -= 1;
  let tailStart = totalBytes - tailBudget;
  while (tailStart < totalBytes && isContinuation(bytes[tailStart])) tailStart += 1;

  let removedChars = 0;
  for (let i = headEnd; i < tailStart; i += 1) if (!isContinuation(bytes[i])) removedChars += 1;
  const removedBytes = tailStart - headEnd;
  const marker =
    policy.kind === "tokens"
      ? `…${approxTokensFromBytes(removedBytes)} tokens truncated…`
      : `…${removedChars} chars truncated…`;
  const out = bytes.toString("utf8", 0, headEnd) + marker + bytes.toString("utf8", tailStart);
  return { text: out, truncated: true, removedChars, removedBytes };
}

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * `truncateText` with a header the model can act on: unchanged when within budget, otherwise
 * `Warning: truncated output (original token count: T)`, `Total output lines: L`, a blank line,
 * then the truncated text. `totals`: the whole output's size when `text` already lost its middle.
 */
export function formattedTruncateText(text: string, policy: TruncationPolicy, totals?: OutputTotals): Truncation {
  const cut = truncateText(text, policy);
  if (!cut.truncated) return cut;
  const tokens = totals ? approxTokensFromBytes(totals.bytes) : approxTokenCount(text);
  const header = `Warning: truncated output (original token count: ${tokens})\n` + `Total output lines: ${totals?.lines ?? countLines(text)}\n\n`;
  return { ...cut, text: header + cut.text };
}
