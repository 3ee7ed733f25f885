import type { Node } from "web-tree-sitter";
import { z } from "zod";
import { InvalidShellArgumentError } from "./errors.js";
import { bashParser } from "./grammar.js";
import { powerShellInvocation } from "./powershell-invocation.js";
import { literalPowerShellCommands } from "./powershell-literal.js";
import { MAX_SPLIT_SCRIPT_CHARS, shellWrapperScript } from "./split.js";
import { NotPlain, extractWord } from "./words.js";

const ARGUMENT_TYPES = new Set(["word", "string", "raw_string", "number", "concatenation"]);

function wordOrSource(node: Node, script: string, isCommandName: boolean): string {
  try {
    return extractWord(node, script, isCommandName);
  } catch (err) {
    // A word with an expansion is kept as written (`"$TARGET"`): it still holds a place in argv, and
    // its text cannot pass for an option such as `-f` because it starts with a quote or `$`.
    if (err instanceof NotPlain) return node.text;
    throw err;
  }
}

function literalCommand(node: Node, script: string): string[] | undefined {
  const name = node.children.find((c) => c.type === "command_name")?.namedChildren[0];
  if (!name || !(name.type === "word" || name.type === "raw_string" || name.type === "string" || name.type === "concatenation")) return undefined;
  const words = [wordOrSource(name, script, true)];
  for (const child of node.namedChildren) {
    if (!child || child.type === "command_name" || child.type === "variable_assignment" || child.type.endsWith("_redirect") || child.type === "comment") continue;
    words.push(ARGUMENT_TYPES.has(child.type) ? wordOrSource(child, script, false) : child.text);
  }
  // A name that is itself an expansion (`$cmd -rf d`) is not a literal command.
  return /[$`]/.test(words[0]!) ? undefined : words;
}

/** Depth-first, in document order, with an explicit stack: long `&&` chains nest one level per operator. */
function visit(root: Node, script: string, out: string[][]): void {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === "command") {
      const words = literalCommand(node, script);
      if (words) out.push(words);
    }
    const kids = node.namedChildren;
    for (let i = kids.length - 1; i >= 0; i--) {
      const kid = kids[i];
      if (kid) stack.push(kid);
    }
  }
}

/**
 * Every literal command anywhere in a trusted `bash|zsh|sh -c|-lc SCRIPT` wrapper: in pipelines,
 * lists, `if`/`for`/`while` bodies, redirected statements, functions and `$(...)` substitutions, but
 * not inside quoted strings, and not commands whose name is an expansion (`$cmd`). Meant for the
 * "might be dangerous" scan (`rm -rf` anywhere), which must look further than the plain-command
 * split. Returns `undefined` when argv is not such a wrapper, the script does not parse, or it is
 * longer than {@link MAX_SPLIT_SCRIPT_CHARS}.
 *
 * A trusted PowerShell invocation is read the same way with the PowerShell grammar — even one whose
 * switches make it not plain (`-ExecutionPolicy Bypass -Command …`, `-EncodedCommand`, decoded) —
 * including commands inside redirections, `$( )`, `@( )`, `( )` and script blocks. The words are in
 * the dialect `splitShellCommand` reports for the same argv (PowerShell words for a PowerShell argv).
 * @throws InvalidShellArgumentError when argv is not an array of strings.
 * @throws GrammarLoadError when the grammar cannot be loaded.
 */
export async function literalCommands(argv: readonly string[]): Promise<string[][] | undefined> {
  const parsed = z.array(z.string()).safeParse(argv);
  if (!parsed.success) throw new InvalidShellArgumentError("argv", "must be an array of strings");
  const wrapper = shellWrapperScript(parsed.data);
  if (!wrapper) {
    const script = powerShellInvocation(parsed.data)?.script;
    return script === undefined || script.length > MAX_SPLIT_SCRIPT_CHARS ? undefined : literalPowerShellCommands(script);
  }
  if (wrapper.script.length > MAX_SPLIT_SCRIPT_CHARS) return undefined;
  const parser = await bashParser();
  const tree = parser.parse(wrapper.script);
  if (!tree) return undefined;
  try {
    if (tree.rootNode.hasError) return undefined;
    const out: string[][] = [];
    visit(tree.rootNode, wrapper.script, out);
    return out;
  } finally {
    tree.delete();
  }
}
