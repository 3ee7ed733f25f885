import type { Parser, Point, Tree, TreeCursor } from "web-tree-sitter";
import { z } from "zod";
import { InvalidShellArgumentError } from "./errors.js";
import { bashParser } from "./grammar.js";
import { splitPlainWords } from "./plain-words.js";
import { CMD_REASON, isCmdInvocation, powerShellInvocation } from "./powershell-invocation.js";
import { splitPowerShellScript } from "./powershell-split.js";
import { trustedShellType } from "./shell-type.js";
import { NotPlain, describeNode, extractWordAt, type WordFacts } from "./words.js";

/** The language a split script was read in, when it is not a POSIX shell's. */
export type ScriptDialect = "powershell";

/**
 * What a command line would run. `plain`: a trusted `bash|zsh|sh -c|-lc SCRIPT` wrapper whose script
 * is nothing but simple commands joined by `&&`, `||`, `;`, `|` (newlines count as `;`), with each
 * command's words as the shell would pass them, or a trusted PowerShell invocation whose script is
 * static pipelines and `;`-sequences (`dialect: "powershell"`). `not-plain`: a recognised shell
 * wrapper whose script we cannot prove plain; judge the whole argv as one opaque command.
 * `not-a-shell`: argv is not a trusted shell wrapper at all; judge argv itself. `dialect` is absent
 * for POSIX shells (and for cmd.exe, whose scripts are never read).
 */
export type SplitResult =
  | {
      kind: "plain";
      commands: string[][];
      /**
       * Per command (same index as `commands`): whether one of its words is an unquoted glob that bash
       * expands to file names at run time, so the words shown are not the words the program receives.
       * Such a command must not be judged by its arguments alone (the known-safe shortcut refuses it).
       */
      globbed: boolean[];
      dialect?: ScriptDialect;
    }
  | { kind: "not-plain"; reason: string; dialect?: ScriptDialect }
  | { kind: "not-a-shell" };

const ArgvSchema = z.array(z.string());

/** Named nodes that may appear in a plain script; anything else names a construct we refuse. */
const STRUCTURE = new Set(["program", "list", "pipeline"]);
const OPERATORS = new Set(["&&", "||", ";", "|"]);
const OPERATOR_NAMES: Readonly<Record<string, string>> = {
  "&": "background (&)",
  ";;": "empty command (;;)",
  "|&": "stderr pipe (|&)",
};
const ARGUMENT_TYPES = new Set(["word", "string", "raw_string", "number", "concatenation"]);

const at = (p: { row: number; column: number }) => `${p.row + 1}:${p.column + 1}`;

/**
 * The text between two words of one command must be blanks, as bash would split them. tree-sitter-bash
 * 0.25.1 sometimes disagrees, and such a parse is refused rather than trusted.
 * @internal Kept out of the published declarations, like `bashParser` (it takes web-tree-sitter's `Point`).
 */
export function checkWordGap(script: string, prevEnd: number, start: number, position: () => Point): void {
  const gap = script.slice(prevEnd, start);
  if (gap === " ") return;
  const joined = gap.replaceAll("\\\n", "");
  // A command run on past a newline (`x | 'a'⏎a` parses as one command `'a' a`) would hide the next
  // command inside the arguments; bash never does that except after a backslash-newline.
  if (joined.includes("\n")) {
    throw new NotPlain(`newline inside one command at ${at(position())} (ambiguous parse)`);
  }
  // Two words with no blank between them are one word to bash. bash deletes a backslash-newline
  // before splitting words, so `ab\⏎cd` is the one word `abcd`; tree-sitter makes two of it.
  if (!/[ \t]/.test(joined)) {
    const what = gap.length > 0 ? "line continuation inside a word" : "two words without a blank between them";
    throw new NotPlain(`${what} at ${at(position())} (ambiguous parse)`);
  }
}

/** The words of the command under the cursor; the cursor is back on the command when this returns. */
function commandWords(cursor: TreeCursor, script: string, facts: WordFacts): string[] {
  const words: string[] = [];
  const here = () => cursor.startPosition;
  if (!cursor.gotoFirstChild()) throw new NotPlain(`command without a name at ${at(here())}`);
  let prevEnd = -1;
  do {
    if (prevEnd >= 0) checkWordGap(script, prevEnd, cursor.startIndex, here);
    prevEnd = cursor.endIndex;
    const type = cursor.nodeType;
    if (type === "command_name") {
      if (words.length > 0 || !cursor.gotoFirstChild()) throw new NotPlain(describeNode(cursor.currentNode));
      const name = cursor.nodeIsNamed ? extractWordAt(cursor, script, true) : undefined;
      const more = cursor.gotoNextSibling();
      cursor.gotoParent();
      if (name === undefined || more) throw new NotPlain(describeNode(cursor.currentNode));
      words.push(name);
    } else if (ARGUMENT_TYPES.has(type)) {
      if (words.length === 0) throw new NotPlain(describeNode(cursor.currentNode));
      words.push(extractWordAt(cursor, script, false, facts));
    } else {
      throw new NotPlain(cursor.nodeIsNamed ? describeNode(cursor.currentNode) : `${JSON.stringify(type)} in a command`);
    }
  } while (cursor.gotoNextSibling());
  cursor.gotoParent();
  if (words.length === 0) throw new NotPlain(`command without a name at ${at(here())}`);
  return words;
}

/**
 * Walk the statement structure (program, list, pipeline) with a cursor — iteratively, because
 * tree-sitter nests `a && b && c ...` one list per operator and a long chain would overflow the stack.
 */
function collect(tree: Tree, script: string, out: string[][], globbed: boolean[]): void {
  const cursor = tree.walk();
  try {
    if (!cursor.gotoFirstChild()) return;
    let depth = 1;
    for (;;) {
      let descended = false;
      const type = cursor.nodeType;
      if (!cursor.nodeIsNamed) {
        if (!OPERATORS.has(type)) {
          throw new NotPlain(`${OPERATOR_NAMES[type] ?? `operator ${JSON.stringify(type)}`} at ${at(cursor.startPosition)}`);
        }
      } else if (type === "command") {
        const facts: WordFacts = { globbed: false };
        out.push(commandWords(cursor, script, facts));
        globbed.push(facts.globbed);
      } else if (STRUCTURE.has(type)) {
        descended = cursor.gotoFirstChild();
        if (descended) depth++;
      } else {
        throw new NotPlain(describeNode(cursor.currentNode));
      }
      if (descended) continue;
      while (!cursor.gotoNextSibling()) {
        if (depth === 1 || !cursor.gotoParent()) return;
        depth--;
      }
    }
  } finally {
    cursor.delete();
  }
}

/**
 * The first ERROR or MISSING node in document order, found without recursion (both grammars' splits use it).
 * @internal Kept out of the published declarations: it takes web-tree-sitter's `Tree`, whose types a
 * consumer would otherwise need.
 */
export function firstError(tree: Tree): { row: number; column: number } | undefined {
  const cursor = tree.walk();
  try {
    for (;;) {
      if (cursor.nodeType === "ERROR" || cursor.nodeIsMissing) return cursor.startPosition;
      // Only descend where the error is: subtrees without one are skipped whole.
      if (cursor.currentNode.hasError && cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return undefined;
      }
    }
  } finally {
    cursor.delete();
  }
}

/**
 * Longest script we split. Walking tree-sitter's nesting of long `&&` chains grows faster than linearly
 * (about 0.3 s for 800 commands on a busy 2-core machine), so a huge script is judged whole instead.
 */
export const MAX_SPLIT_SCRIPT_CHARS = 64 * 1024;

/** Control whitespace that tree-sitter-bash skips as blank but bash keeps inside a word. */
export const CONTROL_BLANKS = /[\r\v\f]/;

/** The refusals every bash split makes before reading the script: too long, or a control blank in it. */
function refuseUnsplittable(script: string): SplitResult | undefined {
  if (script.length > MAX_SPLIT_SCRIPT_CHARS) {
    return { kind: "not-plain", reason: `script too long to split (${script.length} > ${MAX_SPLIT_SCRIPT_CHARS} characters)` };
  }
  const blank = CONTROL_BLANKS.exec(script);
  if (blank) return { kind: "not-plain", reason: `control character ${JSON.stringify(blank[0])} (bash keeps it inside a word; the parser would not)` };
  return undefined;
}

function splitParsed(parser: Parser, script: string): SplitResult {
  const tree = parser.parse(script);
  if (!tree) return { kind: "not-plain", reason: "the parser returned no tree" };
  try {
    if (tree.rootNode.hasError) {
      const bad = firstError(tree);
      return { kind: "not-plain", reason: `syntax error${bad ? ` at ${at(bad)}` : ""}` };
    }
    const commands: string[][] = [];
    const globbed: boolean[] = [];
    collect(tree, script, commands, globbed);
    if (commands.length === 0) return { kind: "not-plain", reason: "empty script" };
    return { kind: "plain", commands, globbed };
  } catch (err) {
    if (err instanceof NotPlain) return { kind: "not-plain", reason: err.message };
    throw err;
  } finally {
    tree.delete();
  }
}

/**
 * Split a bash script into its plain commands, or say why it is not plain. Exposed for callers that
 * already hold a script (the argv form {@link splitShellCommand} is what admission uses).
 * @throws GrammarLoadError when the grammar cannot be loaded.
 */
export async function splitScript(script: string): Promise<SplitResult> {
  // Loaded even when the parse is skipped, so that a missing grammar fails every call alike.
  const parser = await bashParser();
  // Most scripts agents send are a few plain words (`git status`); their split needs no parse.
  return refuseUnsplittable(script) ?? splitPlainWords(script) ?? splitParsed(parser, script);
}

/**
 * {@link splitScript} without the plain-words shortcut: every script goes through the parser. What the
 * shortcut returns must equal what this returns, which the tests and the benchmark compare.
 * @internal Not part of the package's API.
 */
export async function splitScriptByParser(script: string): Promise<SplitResult> {
  const parser = await bashParser();
  return refuseUnsplittable(script) ?? splitParsed(parser, script);
}

/** Checks argv shape: `[trusted bash|zsh|sh, "-c"|"-lc", script]`, exactly three elements. */
export function shellWrapperScript(argv: readonly string[]): { shell: string; script: string } | undefined {
  if (argv.length !== 3) return undefined;
  const [shell, flag, script] = argv as [string, string, string];
  const type = trustedShellType(shell);
  if (type !== "bash" && type !== "zsh" && type !== "sh") return undefined;
  if (flag !== "-c" && flag !== "-lc") return undefined;
  return { shell, script };
}

/**
 * Which commands would `argv` run? For `[bash|zsh|sh, -c|-lc, SCRIPT]` — where the shell is a bare
 * name or a system path (not any file called `bash`) and there are exactly three elements — the
 * script is parsed with tree-sitter-bash and split when it is plain. A trusted `pwsh`/`powershell`
 * invocation (see `powerShellInvocation`) has its script parsed with tree-sitter-powershell, with
 * `dialect: "powershell"`. A cmd.exe script is never read: `not-plain`, judged as one command.
 * Other argv is `not-a-shell`.
 * @throws InvalidShellArgumentError when argv is not an array of strings.
 * @throws GrammarLoadError when the grammar cannot be loaded.
 */
export async function splitShellCommand(argv: readonly string[]): Promise<SplitResult> {
  const parsed = ArgvSchema.safeParse(argv);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidShellArgumentError(`argv${issue.path.map((p) => `[${String(p)}]`).join("")}`, issue.message);
  }
  const wrapper = shellWrapperScript(parsed.data);
  if (wrapper) return splitScript(wrapper.script);
  // A bare `pwsh` (interactive) stays argv to judge, as a bare `bash` does.
  const ps = parsed.data.length > 1 ? powerShellInvocation(parsed.data) : undefined;
  if (ps) {
    if (ps.refusal !== undefined || ps.script === undefined) return { kind: "not-plain", reason: ps.refusal ?? "no script", dialect: "powershell" };
    return splitPowerShellScript(ps.script, ps.edition);
  }
  if (isCmdInvocation(parsed.data)) return { kind: "not-plain", reason: CMD_REASON };
  return { kind: "not-a-shell" };
}
