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
 * then the truncated text.
 */
export function formattedTruncateText(text: string, policy: TruncationPolicy): Truncation {
  const cut = truncateText(text, policy);
  if (!cut.truncated) return cut;
  const header =
    `Warning: truncated output (original token count: ${approxTokenCount(text)})\n` +
    `Total output lines: ${countLines(text)}\n\n`;
  return { ...cut, text: header + cut.text };
}
