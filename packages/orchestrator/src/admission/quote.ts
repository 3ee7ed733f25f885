import { shlexQuote } from "@shellgate/execpolicy";

/** An argv rendered as one shell-quoted line, for messages (never executed). */
export function renderCommand(argv: readonly string[]): string {
  return argv.map(shlexQuote).join(" ");
}
