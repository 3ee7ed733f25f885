import type { TreeCursor } from "web-tree-sitter";
import { NotPlain } from "./words.js";

/** 1-based line:column of a character index. */
export function positionOf(script: string, index: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = script.indexOf("\n"); i >= 0 && i < index; i = script.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `${line}:${index - lineStart + 1}`;
}

/**
 * Characters PowerShell reads as quotes or dashes although they are not ASCII (‘ ’ ‚ ‛ “ ” „ – — ―):
 * `–Force` is `-Force` to PowerShell, so words holding them would not say what runs.
 */
const LOOKALIKE = /[\u2018-\u201e\u2013-\u2015]/;
/** Blanks other than space, tab and newline, and control characters: PowerShell and the grammar may read them differently. */
const ODD_BLANK = /[^\S \t\n]|[\u0000-\u0008\u000e-\u001f\u007f]/u;
/** What may stand outside quotes in a plain script (`&` only as `&&`, checked apart). */
const BARE = /[\p{L}\p{N}\p{M} \t\n_./\\:~%+=*?!^|;-]/u;

const NAMED: Readonly<Record<string, string>> = {
  $: "variable or sub-expression ($)",
  "@": "array, hash table, splatting or here-string (@)",
  "{": "script block ({ })",
  "}": "script block ({ })",
  "(": "parenthesised expression or sub-command (( ))",
  ")": "parenthesised expression or sub-command (( ))",
  "&": "call operator (&)",
  ">": "redirection (>)",
  "<": "redirection (<)",
  "`": "backtick escape",
  ",": "array argument (,)",
  "[": "type literal, index or wildcard range ([ ])",
  "]": "type literal, index or wildcard range ([ ])",
  "#": "comment (#)",
};

/**
 * A character-level check that runs before the parse: outside single quotes a plain script holds only
 * words, blanks, `|`, `;`, `&&`, `||` and double-quoted text without `$` or backtick. Whatever the
 * grammar makes of a script, one with `$`, `@`, `{`, `(`, `&`, `>`, `[`, `,`, `#` or a backtick outside
 * single quotes is never plain. Returns the reason, or `undefined` when the grammar must decide.
 */
export function lexicalRefusal(script: string): string | undefined {
  const odd = LOOKALIKE.exec(script) ?? ODD_BLANK.exec(script);
  if (odd) return `character ${JSON.stringify(odd[0])} at ${positionOf(script, odd.index)} (PowerShell reads it as a quote, dash or blank)`;
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === "'") {
      const end = script.indexOf("'", i + 1);
      if (end < 0) return `unterminated string at ${positionOf(script, i)}`;
      // `''` inside a single-quoted string is one quote: the string goes on.
      i = end;
      while (script[i + 1] === "'") {
        const next = script.indexOf("'", i + 2);
        if (next < 0) return `unterminated string at ${positionOf(script, i)}`;
        i = next;
      }
    } else if (c === '"') {
      let j = i + 1;
      for (; j < script.length; j++) {
        const d = script[j]!;
        if (d === "$" || d === "`") return `${d === "$" ? "variable or sub-expression ($)" : "backtick escape"} inside a double-quoted string at ${positionOf(script, j)}`;
        if (d === '"') {
          if (script[j + 1] !== '"') break;
          j++;
        }
      }
      if (j >= script.length) return `unterminated string at ${positionOf(script, i)}`;
      i = j;
    } else if (c === "&" && script[i + 1] === "&") {
      i++;
    } else if (!BARE.test(c)) {
      return `${NAMED[c] ?? `character ${JSON.stringify(c)}`} at ${positionOf(script, i)}`;
    }
  }
  return undefined;
}

/** A bare word PowerShell passes as written: no quote, escape, expansion or array syntax can be in it. */
const GENERIC = /^[\p{L}\p{N}\p{M}_./\\:~%+=*?!^-]+$/u;
const PARAMETER = /^--?[\p{L}\p{N}_][\p{L}\p{N}_-]*$/u;
/** At the start of a statement `-`, `+`, `!` are operators and `%`/`?` aliases: a name starts tamer. */
const COMMAND_NAME = /^[\p{L}\p{N}_./\\~][\p{L}\p{N}\p{M}_./\\:~%+=!^-]*$/u;
/** Decimal integers PowerShell passes back unchanged (no leading zero, no suffix, small enough for an int). */
const INTEGER = /^(?:0|[1-9][0-9]{0,8})$/;
/**
 * Text PowerShell reads as a number in an argument (hex, binary, exponent, type suffixes, multipliers),
 * passing its value: `0b11` is 3 and `1n` a big integer in PowerShell 7, which the grammar leaves as words.
 */
const NUMBER_LIKE = /^[+-]?(?:0x[0-9a-f]+|0b[01]+|(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)(?:[uysnld]|u[ysl]|lu)?(?:[kmgtp]b)?$/i;
const SINGLE_QUOTED = /^'(?:[^']|'')*'$/;
const DOUBLE_QUOTED = /^"(?:[^"$`]|"")*"$/;

/**
 * Language keywords: a statement that starts with one is not a command (the grammar usually says so,
 * this catches the rest).
 */
const KEYWORDS = new Set([
  "begin", "break", "catch", "class", "clean", "configuration", "continue", "data", "define", "do", "dynamicparam", "else",
  "elseif", "end", "enum", "exit", "filter", "finally", "for", "foreach", "from", "function", "hidden", "if", "in",
  "inlinescript", "parallel", "param", "process", "return", "sequence", "static", "switch", "throw", "trap", "try",
  "until", "using", "var", "while", "workflow",
]);
/** Commands that run a string as code. */
const EVALUATORS = new Set(["invoke-expression", "iex"]);

/** The command name of a `command_name` node spanning `start`..`end`, or NotPlain. */
export function commandNameAt(script: string, start: number, end: number): string {
  const text = script.slice(start, end);
  const where = () => positionOf(script, start);
  if (!COMMAND_NAME.test(text)) throw new NotPlain(`command name ${JSON.stringify(text)} at ${where()} is not a plain word`);
  if (text[0] === "~") throw new NotPlain(`tilde in command name ${JSON.stringify(text)} at ${where()}`);
  if (NUMBER_LIKE.test(text)) throw new NotPlain(`number ${JSON.stringify(text)} at ${where()} where a command name should be`);
  const lower = text.toLowerCase();
  // A module-qualified name (`Microsoft.PowerShell.Utility\Invoke-Expression`) is the same command.
  const base = lower.slice(lower.lastIndexOf("\\") + 1);
  if (EVALUATORS.has(base)) throw new NotPlain(`Invoke-Expression (${text}) at ${where()} runs a string as code`);
  if (KEYWORDS.has(lower)) throw new NotPlain(`keyword ${text} at ${where()}`);
  return text;
}

/**
 * Words PowerShell 5.1 passes to a native program differently from what they say (legacy quoting):
 * an empty string is dropped, an embedded `"` is not escaped, a trailing `\` escapes the closing quote.
 * Refused in both editions so that one rule holds whichever runs the script.
 */
function checkQuoted(value: string, where: () => string): string {
  if (value.length === 0) throw new NotPlain(`empty string argument at ${where()} (Windows PowerShell drops it)`);
  if (value.includes('"')) throw new NotPlain(`string with a double quote inside at ${where()} (passed differently by each edition)`);
  if (value.endsWith("\\")) throw new NotPlain(`string ending in a backslash at ${where()} (passed differently by each edition)`);
  return value;
}

/** Move to the only child of the cursor's node; NotPlain when there is none or more than one. */
function onlyChild(cursor: TreeCursor, where: () => string): string {
  const parent = cursor.nodeType;
  if (!cursor.gotoFirstChild()) throw new NotPlain(`empty ${describe(parent)} at ${where()}`);
  const type = cursor.nodeType;
  if (cursor.gotoNextSibling()) throw new NotPlain(`${describe(cursor.nodeIsNamed ? cursor.nodeType : parent)} at ${where()}`);
  return type;
}

/**
 * The constant an `array_literal_expression` argument stands for: one string or small integer, nothing
 * else. On success the cursor is exactly three levels down (unary expression, literal, its text).
 */
function constantArgument(cursor: TreeCursor, script: string): string {
  const where = () => positionOf(script, cursor.startIndex);
  if (onlyChild(cursor, where) !== "unary_expression") throw new NotPlain(`${describe(cursor.nodeType)} at ${where()}`);
  const kind = onlyChild(cursor, where);
  const inner = onlyChild(cursor, where);
  const text = script.slice(cursor.startIndex, cursor.endIndex);
  if (kind === "integer_literal") {
    if (inner !== "decimal_integer_literal" || !INTEGER.test(text)) throw new NotPlain(`number ${JSON.stringify(text)} at ${where()} (PowerShell passes its value, not its text)`);
    return text;
  }
  if (kind === "string_literal" && inner === "verbatim_string_characters" && text.length >= 2 && text[0] === "'" && text.endsWith("'")) {
    return checkQuoted(text.slice(1, -1).replaceAll("''", "'"), where);
  }
  if (kind === "string_literal" && inner === "expandable_string_literal" && text.length >= 2 && text[0] === '"' && text.endsWith('"')) {
    // The lexical check already refused `$` and backticks inside double quotes; any child is a construct.
    if (cursor.gotoFirstChild()) throw new NotPlain(`${describe(cursor.nodeType)} inside a double-quoted string at ${where()}`);
    return checkQuoted(text.slice(1, -1).replaceAll('""', '"'), where);
  }
  throw new NotPlain(`${describe(kind === "string_literal" ? inner : kind)} at ${where()}`);
}

/** What {@link argumentAt} noticed about a word besides its text. */
export interface PowerShellWordFacts {
  /**
   * Set for an unquoted `*` or `?`, or a leading `~`: PowerShell 7 on Unix expands them for native
   * programs (and cmdlets read `*`/`?` as wildcards), so the words shown are not what is received.
   */
  globbed: boolean;
}

/**
 * The word an argument node under the cursor stands for (the cursor is back on it when this returns),
 * or NotPlain: bare words (generic tokens), parameters (`-Skip`), small decimal integers and constant
 * strings are plain; anything else is not. `type`, `start` and `end` are the cursor's, read once by
 * the caller (each read is a call into the parser's wasm).
 */
export function argumentAt(cursor: TreeCursor, script: string, facts: PowerShellWordFacts, type: string, start: number, end: number): string {
  const text = script.slice(start, end);
  const where = () => positionOf(script, start);
  if (type === "generic_token") {
    if (!GENERIC.test(text)) throw new NotPlain(`word ${JSON.stringify(text)} at ${where()} is not a plain word`);
    if (NUMBER_LIKE.test(text) && !INTEGER.test(text)) throw new NotPlain(`number ${JSON.stringify(text)} at ${where()} (PowerShell passes its value, not its text)`);
    if (/[*?]/.test(text)) {
      if (text[0] === "-") throw new NotPlain(`wildcard in option-like argument ${JSON.stringify(text)} at ${where()}`);
      facts.globbed = true;
    }
    if (text[0] === "~") facts.globbed = true;
    return text;
  }
  if (type === "command_parameter") {
    // `-Name:value` hangs the `:` under the parameter node, past its end: the caller's check that a
    // blank separates every two words refuses it.
    if (!PARAMETER.test(text)) throw new NotPlain(`parameter ${JSON.stringify(text)} at ${where()} is not a plain word`);
    return text;
  }
  if (type === "array_literal_expression") {
    // Fast path: text that is one quoted string or one small integer can be no other node (the lexical
    // check has run); anything else takes the structural path below, which refuses what it does not know.
    if (SINGLE_QUOTED.test(text)) return checkQuoted(text.slice(1, -1).replaceAll("''", "'"), where);
    if (DOUBLE_QUOTED.test(text)) return checkQuoted(text.slice(1, -1).replaceAll('""', '"'), where);
    if (INTEGER.test(text)) return text;
    const word = constantArgument(cursor, script);
    cursor.gotoParent();
    cursor.gotoParent();
    cursor.gotoParent();
    return word;
  }
  throw new NotPlain(`${describe(type)} at ${where()}`);
}

const DESCRIPTIONS: Readonly<Record<string, string>> = {
  redirection: "redirection",
  stop_parsing: "stop-parsing token (--%)",
  variable: "variable",
  sub_expression: "sub-expression $( )",
  array_expression: "array expression @( )",
  hash_literal_expression: "hash table @{ }",
  script_block_expression: "script block { }",
  parenthesized_expression: "parenthesised sub-command ( )",
  member_access: "member access",
  invokation_expression: "method call",
  element_access: "index [ ]",
  cast_expression: "type conversion [type]",
  type_literal: "type literal [type]",
  expression_with_unary_operator: "expression with an operator",
  real_literal: "real number",
  assignment_expression: "assignment",
  if_statement: "control flow (if)",
  switch_statement: "control flow (switch)",
  foreach_statement: "control flow (foreach)",
  for_statement: "control flow (for)",
  while_statement: "control flow (while)",
  do_statement: "control flow (do)",
  function_statement: "function definition",
  flow_control_statement: "flow control (return/exit/throw/break)",
  trap_statement: "trap",
  try_statement: "try/catch",
  data_statement: "data section",
  class_statement: "class definition",
  enum_statement: "enum definition",
  param_block: "param block",
  comment: "comment",
  logical_expression: "expression",
  command_invokation_operator: "call operator (&) or dot-sourcing (.)",
  verbatim_here_string_characters: "here-string",
  expandable_here_string_literal: "here-string",
  ERROR: "syntax error",
};

/** A human name for a node type. */
export function describe(type: string): string {
  return DESCRIPTIONS[type] ?? type.replaceAll("_", " ");
}
