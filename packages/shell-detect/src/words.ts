import type { Node, TreeCursor } from "web-tree-sitter";

/** One character of a shell word after quote removal, and whether the shell would still expand it. */
interface Ch {
  c: string;
  quoted: boolean;
}

/** Thrown inside word extraction; the splitter turns it into a "not-plain" reason. */
export class NotPlain extends Error {}

const DQ_ESCAPABLE = new Set(["$", "`", '"', "\\"]);

function cookUnquoted(text: string, out: Ch[]): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    // Even escaped (`\$x`), a `$` or backtick makes the word not plain: one rule for every quoting form.
    if (c === "$" || c === "`") throw new NotPlain(`${c === "$" ? "$" : "backtick"} in word ${JSON.stringify(text)}`);
    if (c !== "\\") {
      out.push({ c, quoted: false });
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) throw new NotPlain(`trailing backslash in word ${JSON.stringify(text)}`);
    if (next === "$" || next === "`") throw new NotPlain(`${next === "$" ? "$" : "backtick"} in word ${JSON.stringify(text)}`);
    i++;
    // A backslash-newline is a line continuation: both characters vanish.
    if (next !== "\n") out.push({ c: next, quoted: true });
  }
}

function cookDoubleQuoted(inner: string, out: Ch[]): void {
  if (inner.includes("$") || inner.includes("`")) {
    throw new NotPlain(`double-quoted string containing ${inner.includes("$") ? "$" : "a backtick"}`);
  }
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    const next = inner[i + 1];
    if (c === "\\" && next !== undefined && (DQ_ESCAPABLE.has(next) || next === "\n")) {
      i++;
      if (next !== "\n") out.push({ c: next, quoted: true });
    } else {
      out.push({ c, quoted: true });
    }
  }
}

/** A double-quoted string may hold only its quotes and literal content (no expansion nodes). */
function checkStringChildren(cursor: TreeCursor): void {
  if (!cursor.gotoFirstChild()) return;
  do {
    if (cursor.nodeIsNamed ? cursor.nodeType !== "string_content" : cursor.nodeType !== '"') {
      const what = cursor.nodeIsNamed ? describeNode(cursor.currentNode) : JSON.stringify(cursor.nodeType);
      throw new NotPlain(`${what} inside a double-quoted string`);
    }
  } while (cursor.gotoNextSibling());
  cursor.gotoParent();
}

/** Cook the node under the cursor; the cursor is back on that node when this returns normally. */
function cookAt(cursor: TreeCursor, script: string, out: Ch[]): void {
  const text = script.slice(cursor.startIndex, cursor.endIndex);
  switch (cursor.nodeType) {
    case "word":
    case "number":
      cookUnquoted(text, out);
      return;
    case "raw_string":
      for (const c of text.slice(1, -1)) out.push({ c, quoted: true });
      return;
    case "string":
      checkStringChildren(cursor);
      cookDoubleQuoted(text.slice(1, -1), out);
      return;
    case "concatenation":
      if (!cursor.gotoFirstChild()) throw new NotPlain("empty concatenation");
      do cookAt(cursor, script, out);
      while (cursor.gotoNextSibling());
      cursor.gotoParent();
      return;
    default:
      throw new NotPlain(cursor.nodeIsNamed ? describeNode(cursor.currentNode) : JSON.stringify(cursor.nodeType));
  }
}

/** True when an unquoted `{...}` holds a `,` or `..`, i.e. bash would brace-expand it into several words. */
function hasBraceExpansion(chars: readonly Ch[]): boolean {
  for (let i = 0; i < chars.length; i++) {
    if (chars[i]!.c !== "{" || chars[i]!.quoted) continue;
    for (let j = i + 1; j < chars.length; j++) {
      if (chars[j]!.c === "}" && !chars[j]!.quoted) {
        const inner = chars.slice(i + 1, j).map((x) => x.c).join("");
        if (inner.includes(",") || inner.includes("..")) return true;
        break;
      }
    }
  }
  return false;
}

const GLOB = new Set(["*", "?", "["]);

/** Characters that need no cooking and trigger no expansion: most words are just these. */
const SIMPLE_WORD = /^[A-Za-z0-9_./:@%+,=-]+$/;

/** What {@link extractWordAt} noticed about a word besides its text. */
export interface WordFacts {
  /**
   * Set when the word holds an unquoted `*`, `?` or `[`: bash may replace it with file names from the
   * directory, which a command run in that directory may have chosen (a file named `-e1e touch X`).
   */
  globbed: boolean;
}

/**
 * The word the shell would pass for the argument node under the cursor (the cursor is left on it), or
 * a NotPlain when the shell would expand it into something else: a different command name, several
 * words, an option produced by a glob. A glob that stays plain (an operand such as `*.txt`) is
 * reported through `facts.globbed`.
 */
export function extractWordAt(cursor: TreeCursor, script: string, isCommandName: boolean, facts?: WordFacts): string {
  const type = cursor.nodeType;
  const text = script.slice(cursor.startIndex, cursor.endIndex);
  if ((type === "word" || type === "number") && SIMPLE_WORD.test(text)) {
    if (!isCommandName || text[0] !== "=") return text;
  } else if (type === "raw_string" && !(isCommandName && text.length <= 2)) {
    return text.slice(1, -1);
  }
  const chars: Ch[] = [];
  cookAt(cursor, script, chars);
  const word = chars.map((x) => x.c).join("");
  const where = JSON.stringify(text);
  if (hasBraceExpansion(chars)) throw new NotPlain(`brace expansion in ${where}`);
  const globbed = chars.some((x) => !x.quoted && GLOB.has(x.c));
  if (isCommandName) {
    if (word.length === 0) throw new NotPlain("empty command name");
    if (globbed) throw new NotPlain(`glob in command name ${where}`);
    if (chars[0]!.c === "~" && !chars[0]!.quoted) throw new NotPlain(`tilde expansion in command name ${where}`);
    // zsh turns `=rm` into the path of rm, so the name would hide the program it runs.
    if (chars[0]!.c === "=" && !chars[0]!.quoted) throw new NotPlain(`equals expansion in command name ${where}`);
  } else if (globbed && word.startsWith("-")) {
    // `find . -del*` could become `-delete` if such a file exists; the heuristics could not see it.
    throw new NotPlain(`glob in option-like argument ${where}`);
  }
  if (globbed && facts) facts.globbed = true;
  return word;
}

/** {@link extractWordAt} for a node (used off the hot path). */
export function extractWord(node: Node, script: string, isCommandName: boolean): string {
  const cursor = node.walk();
  try {
    return extractWordAt(cursor, script, isCommandName);
  } finally {
    cursor.delete();
  }
}

const NAMES: Readonly<Record<string, string>> = {
  redirected_statement: "redirection",
  file_redirect: "redirection",
  heredoc_redirect: "heredoc",
  herestring_redirect: "here-string (<<<)",
  command_substitution: "command substitution",
  process_substitution: "process substitution",
  simple_expansion: "variable expansion ($VAR)",
  expansion: "parameter expansion (${...})",
  arithmetic_expansion: "arithmetic expansion",
  subshell: "subshell ( ... )",
  compound_statement: "group { ...; }",
  variable_assignment: "variable assignment",
  variable_assignments: "variable assignment",
  declaration_command: "declaration (export/local/declare...)",
  unset_command: "unset",
  if_statement: "control flow (if)",
  for_statement: "control flow (for)",
  c_style_for_statement: "control flow (for)",
  while_statement: "control flow (while/until)",
  case_statement: "control flow (case)",
  function_definition: "function definition",
  test_command: "test command ([ ] / [[ ]])",
  negated_command: "negation (!)",
  comment: "comment",
  ansi_c_string: "ANSI-C quoting ($'...')",
  translated_string: "translated string ($\"...\")",
  brace_expression: "brace expansion",
  ERROR: "syntax error",
};

/** A human name for the construct a node stands for, with its position (1-based line:column). */
export function describeNode(node: Node): string {
  if (node.type === "redirected_statement") {
    const redirect = node.namedChildren.find((c) => c !== null && c.type.endsWith("_redirect"));
    if (redirect) return describeNode(redirect);
  }
  let name = NAMES[node.type] ?? node.type;
  if (node.type === "file_redirect") {
    const op = node.children.find((c) => c !== null && !c.isNamed);
    if (op) name = `redirection (${op.type})`;
  }
  if (node.type === "command_substitution" && node.text.startsWith("`")) name = "backtick command substitution";
  if (node.type === "compound_statement" && node.text.startsWith("((")) name = "arithmetic command ((...))";
  return `${name} at ${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
}
