import type { Node } from "web-tree-sitter";
import { powershellParser } from "./grammar.js";

/** The text of a string literal with its quotes removed when it is constant; else as written. */
function literalText(node: Node): string {
  const text = node.text;
  const inner = node.type === "string_literal" && node.childCount === 1 ? node.child(0) : null;
  if (inner?.type === "verbatim_string_characters" && text.length >= 2) return text.slice(1, -1).replaceAll("''", "'");
  if (inner?.type === "expandable_string_literal" && inner.namedChildCount === 0 && !/[$`]/.test(text) && text.length >= 2) {
    return text.slice(1, -1).replaceAll('""', '"');
  }
  return text;
}

/** An argument as far as it is literal: bare words and constant strings cooked, anything else as written. */
function argumentText(node: Node): string {
  let n: Node = node;
  // array_literal_expression > unary_expression > string_literal: the usual wrapping of one string.
  while ((n.type === "array_literal_expression" || n.type === "unary_expression") && n.childCount === 1) n = n.child(0)!;
  return n.type === "string_literal" ? literalText(n) : node.text;
}

/** The literal name of a command node (`Remove-Item`, `& 'Remove-Item'`), or `undefined` when it is computed. */
function commandName(command: Node): string | undefined {
  for (const child of command.namedChildren) {
    if (!child) continue;
    if (child.type === "command_name") return child.text;
    if (child.type === "command_name_expr") {
      const inner = child.namedChildren[0];
      if (!inner) return undefined;
      if (inner.type === "command_name" || inner.type === "path_command_name") return inner.text;
      if (inner.type === "string_literal") {
        const name = literalText(inner);
        return /[$`]/.test(name) ? undefined : name;
      }
      return undefined;
    }
  }
  return undefined;
}

function literalCommand(command: Node): string[] | undefined {
  const name = commandName(command);
  if (name === undefined || name.includes("$")) return undefined;
  const words = [name];
  const elements = command.namedChildren.find((c) => c?.type === "command_elements");
  for (const child of elements?.namedChildren ?? []) {
    if (!child || child.type === "command_argument_sep" || child.type === "redirection" || child.type === "comment") continue;
    words.push(argumentText(child));
  }
  return words;
}

/**
 * Every command with a literal name anywhere in a PowerShell script — in pipelines, statements,
 * redirected commands, `$( )`, `@( )`, `( )`, script blocks, function bodies — in document order,
 * with words as far as they are literal. `undefined` when the script does not parse.
 */
export async function literalPowerShellCommands(script: string): Promise<string[][] | undefined> {
  const parser = await powershellParser();
  const tree = parser.parse(script);
  if (!tree) return undefined;
  try {
    if (tree.rootNode.hasError) return undefined;
    const out: string[][] = [];
    const stack: Node[] = [tree.rootNode];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.type === "command") {
        const words = literalCommand(node);
        if (words) out.push(words);
      }
      const kids = node.namedChildren;
      for (let i = kids.length - 1; i >= 0; i--) {
        const kid = kids[i];
        if (kid) stack.push(kid);
      }
    }
    return out;
  } finally {
    tree.delete();
  }
}
