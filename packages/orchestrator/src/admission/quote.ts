import { shlexQuote } from "@shellgate/execpolicy";
import { escapeForDisplay } from "../output/escape.js";

/**
 * An argv rendered as one shell-quoted line, for messages (never executed). Control and invisible
 * characters are escaped visibly: these lines reach people (refusals, approval reasons).
 */
export function renderCommand(argv: readonly string[]): string {
  return escapeForDisplay(argv.map(shlexQuote).join(" "));
}
