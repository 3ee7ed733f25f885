import type { Tree, TreeCursor } from "web-tree-sitter";
import { powershellParser } from "./grammar.js";
import type { PowerShellEdition } from "./powershell-invocation.js";
import { argumentAt, commandNameAt, describe, lexicalRefusal, positionOf, type PowerShellWordFacts } from "./powershell-words.js";
import { MAX_SPLIT_SCRIPT_CHARS, firstError, type SplitResult } from "./split.js";
import { NotPlain } from "./words.js";

const BLANKS = /^[ \t]+$/;

/** The node type under the cursor, read afresh (TypeScript would keep a narrowing across cursor moves). */
const typeAt = (cursor: TreeCursor): string => cursor.nodeType;

/** Why the text between two words is not just blanks. */
function gapProblem(gap: string): string {
  if (gap.includes(":")) return "parameter with an attached value (-Name:value)";
  if (gap.includes("\n")) return "newline inside one command";
  // Two words with nothing between them are one argument to PowerShell (`x"y z"`), not two.
  return gap.length === 0 ? "two words without a blank between them (ambiguous parse)" : `${JSON.stringify(gap)} between two words`;
}

/**
 * The words of the `command` node under the cursor; the cursor is back on it when this returns. The
 * text between two words (and after the last) must be blanks, whatever separator nodes the grammar
 * made of it: that is how PowerShell splits arguments.
 */
function commandWords(cursor: TreeCursor, script: string, facts: PowerShellWordFacts): string[] {
  const where = (index: number) => positionOf(script, index);
  if (!cursor.gotoFirstChild()) throw new NotPlain(`empty command at ${where(cursor.startIndex)}`);
  const first = typeAt(cursor);
  const nameStart = cursor.startIndex;
  if (first !== "command_name") {
    const what = first === "command_invokation_operator" ? (script[nameStart] === "." ? "dot-sourcing (.)" : "call operator (&)") : describe(first);
    throw new NotPlain(`${what} at ${where(nameStart)}`);
  }
  const nameEnd = cursor.endIndex;
  const words = [commandNameAt(script, nameStart, nameEnd)];
  let prevEnd = nameEnd;
  if (cursor.gotoNextSibling()) {
    if (typeAt(cursor) !== "command_elements") throw new NotPlain(`${describe(cursor.nodeType)} at ${where(cursor.startIndex)}`);
    const elementsEnd = cursor.endIndex;
    if (cursor.gotoFirstChild()) {
      do {
        const type = typeAt(cursor);
        if (type === "command_argument_sep") continue;
        const start = cursor.startIndex;
        const end = cursor.endIndex;
        const gap = script.slice(prevEnd, start);
        if (!BLANKS.test(gap)) throw new NotPlain(`${gapProblem(gap)} at ${where(start)}`);
        words.push(argumentAt(cursor, script, facts, type, start, end));
        prevEnd = end;
      } while (cursor.gotoNextSibling());
      cursor.gotoParent();
    }
    const tail = script.slice(prevEnd, elementsEnd);
    if (tail.length > 0 && !BLANKS.test(tail)) throw new NotPlain(`${gapProblem(tail)} at ${where(prevEnd)}`);
    if (cursor.gotoNextSibling()) throw new NotPlain(`${describe(cursor.nodeType)} at ${where(cursor.startIndex)}`);
  }
  cursor.gotoParent();
  return words;
}

/** An operator (`|`, `&&`, `||`) must not start a line: Windows PowerShell does not continue a statement there. */
function checkOperatorGap(script: string, prevEnd: number, start: number, op: string): void {
  if (script.slice(prevEnd, start).includes("\n")) throw new NotPlain(`${op} at the start of a line at ${positionOf(script, start)}`);
}

/** `command | command ...` under the cursor (a `pipeline_chain`). */
function pipelineChain(cursor: TreeCursor, script: string, out: string[][], globbed: boolean[]): void {
  if (!cursor.gotoFirstChild()) throw new NotPlain(`empty pipeline at ${positionOf(script, cursor.startIndex)}`);
  let prevEnd = cursor.startIndex;
  do {
    const type = cursor.nodeType;
    if (type === "command") {
      const facts = { globbed: false };
      out.push(commandWords(cursor, script, facts));
      globbed.push(facts.globbed);
    } else if (type === "|" && !cursor.nodeIsNamed) {
      checkOperatorGap(script, prevEnd, cursor.startIndex, "|");
    } else {
      throw new NotPlain(`${describe(type)} at ${positionOf(script, cursor.startIndex)}`);
    }
    prevEnd = cursor.endIndex;
  } while (cursor.gotoNextSibling());
  cursor.gotoParent();
}

/** A statement (`pipeline` node): pipeline chains joined by `&&`/`||` where the edition has them. */
function pipeline(cursor: TreeCursor, script: string, edition: PowerShellEdition, out: string[][], globbed: boolean[]): void {
  if (!cursor.gotoFirstChild()) throw new NotPlain(`empty statement at ${positionOf(script, cursor.startIndex)}`);
  let prevEnd = cursor.startIndex;
  do {
    const type = cursor.nodeType;
    const where = () => positionOf(script, cursor.startIndex);
    if (type === "pipeline_chain") {
      pipelineChain(cursor, script, out, globbed);
    } else if (type === "pipeline_chain_tail") {
      const op = script.slice(cursor.startIndex, cursor.endIndex);
      if (op !== "&&" && op !== "||") throw new NotPlain(`operator ${JSON.stringify(op)} at ${where()}`);
      if (edition === "powershell") throw new NotPlain(`pipeline chain (${op}) at ${where()} (Windows PowerShell 5.1 has no && or ||)`);
      checkOperatorGap(script, prevEnd, cursor.startIndex, op);
    } else {
      throw new NotPlain(`${describe(type)} at ${where()}`);
    }
    prevEnd = cursor.endIndex;
  } while (cursor.gotoNextSibling());
  cursor.gotoParent();
}

/** Walk `program > statement_list > (pipeline | ;)*`; anything else names a construct we refuse. */
function collect(tree: Tree, script: string, edition: PowerShellEdition, out: string[][], globbed: boolean[]): void {
  const cursor = tree.walk();
  try {
    if (!cursor.gotoFirstChild()) return;
    do {
      if (cursor.nodeType !== "statement_list") throw new NotPlain(`${describe(cursor.nodeType)} at ${positionOf(script, cursor.startIndex)}`);
      if (!cursor.gotoFirstChild()) continue;
      // Two statements on one line need a `;` between them; the grammar could otherwise split one.
      let separated = true;
      let prevEnd = cursor.startIndex;
      do {
        const type = typeAt(cursor);
        if (type === "empty_statement") {
          separated = true;
        } else if (type === "pipeline") {
          if (!separated && !script.slice(prevEnd, cursor.startIndex).includes("\n")) {
            throw new NotPlain(`two statements without a separator at ${positionOf(script, cursor.startIndex)} (ambiguous parse)`);
          }
          pipeline(cursor, script, edition, out, globbed);
          separated = false;
        } else {
          throw new NotPlain(`${describe(type)} at ${positionOf(script, cursor.startIndex)}`);
        }
        prevEnd = cursor.endIndex;
      } while (cursor.gotoNextSibling());
      cursor.gotoParent();
    } while (cursor.gotoNextSibling());
  } finally {
    cursor.delete();
  }
}

/**
 * Split a PowerShell script into its plain commands, or say why it is not plain. `edition` decides
 * what the script may hold (`&&`/`||` only under PowerShell 7).
 * @throws GrammarLoadError when the grammar cannot be loaded.
 */
export async function splitPowerShellScript(script: string, edition: PowerShellEdition): Promise<SplitResult> {
  const dialect = "powershell" as const;
  if (script.length > MAX_SPLIT_SCRIPT_CHARS) {
    return { kind: "not-plain", reason: `script too long to split (${script.length} > ${MAX_SPLIT_SCRIPT_CHARS} characters)`, dialect };
  }
  const lexical = lexicalRefusal(script);
  if (lexical !== undefined) return { kind: "not-plain", reason: lexical, dialect };
  const parser = await powershellParser();
  const tree = parser.parse(script);
  if (!tree) return { kind: "not-plain", reason: "the parser returned no tree", dialect };
  try {
    if (tree.rootNode.hasError) {
      const bad = firstError(tree);
      return { kind: "not-plain", reason: `syntax error${bad ? ` at ${bad.row + 1}:${bad.column + 1}` : ""}`, dialect };
    }
    const commands: string[][] = [];
    const globbed: boolean[] = [];
    collect(tree, script, edition, commands, globbed);
    if (commands.length === 0) return { kind: "not-plain", reason: "empty script", dialect };
    return { kind: "plain", commands, globbed, dialect };
  } catch (err) {
    if (err instanceof NotPlain) return { kind: "not-plain", reason: err.message, dialect };
    throw err;
  } finally {
    tree.delete();
  }
}
