/**
 * Code points that act on a terminal or hide, reorder or disguise text instead of showing as
 * themselves: C0 and C1 controls and DEL (`Cc`), format characters (`Cf`: bidi embeddings,
 * overrides and isolates, zero-width characters, Unicode tags), line and paragraph separators,
 * lone surrogates, variation selectors, spaces other than U+0020, the Hangul fillers that
 * render as nothing, and unassigned code points (`Cn`, noncharacters included): a later Unicode
 * version may make one a format character (U+2065 sits among the invisible operators), and a
 * terminal with newer tables would then hide it.
 */
let hiddenPattern: RegExp | undefined;
// Made on first use: V8 builds the Unicode sets of a `\p{…}` pattern when the RegExp is created,
// ~1 ms of a start that escapes nothing.
const HIDDEN = (): RegExp =>
  (hiddenPattern ??= /[\p{Cc}\p{Cf}\p{Cn}\p{Zl}\p{Zp}\p{Cs}\p{Variation_Selector}\u115f\u1160\u3164\uffa0]|(?! )\p{Zs}/gu);

const NAMED: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

function visible(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const cp = ch.codePointAt(0) ?? 0;
  const hex = cp.toString(16);
  if (cp < 0x100) return `\\x${hex.padStart(2, "0")}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, "0")}`;
  return `\\u{${hex}}`;
}

/**
 * `text` made safe to show to a person (terminal prompt, MCP elicitation, error messages): every
 * character that a terminal would act on or that could hide, reorder or disguise text (see `HIDDEN`
 * above) becomes a visible escape — `\r`, `\n`, `\t`, `\x1b`, `\x9b`, `\u202e`, `\u{e0041}`. Everything
 * else, the backslash included, is left as it is: the result is for reading, never for running.
 */
export function escapeForDisplay(text: string): string {
  return text.replace(HIDDEN(), visible);
}

/** Whether `text` holds anything `escapeForDisplay` would escape. */
export function hasHiddenCharacters(text: string): boolean {
  const hidden = HIDDEN();
  hidden.lastIndex = 0;
  const found = hidden.test(text);
  hidden.lastIndex = 0;
  return found;
}
