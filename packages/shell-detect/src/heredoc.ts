import type { Node } from "web-tree-sitter";
import { z } from "zod";
import { InvalidShellArgumentError } from "./errors.js";
import { bashParser } from "./grammar.js";
import { CONTROL_BLANKS, MAX_SPLIT_SCRIPT_CHARS, checkWordGap, shellWrapperScript } from "./split.js";
import { NotPlain, describeNode, extractWord } from "./words.js";

/**
 * The one command behind a heredoc or here-string script, for exec-policy *rule matching only*
 * (Codex calls this "complex parsing": it disables the known-safe shortcut and proposed amendments).
 */
export type HeredocSplit =
  | { kind: "heredoc-command"; command: string[] }
  | { kind: "not-plain"; reason: string }
  | { kind: "not-a-shell" };

const SIMPLE_DELIMITER = /^(?:'([A-Za-z0-9_]+)'|"([A-Za-z0-9_]+)"|([A-Za-z0-9_]+))$/;

function checkHeredoc(redirect: Node): void {
  const kids = redirect.children;
  const types = kids.map((k) => k.type);
  const op = types[0];
  if (kids.length !== 4 || (op !== "<<" && op !== "<<-") || types[1] !== "heredoc_start" || types[2] !== "heredoc_body" || types[3] !== "heredoc_end") {
    throw new NotPlain(`heredoc with more than a body (${types.join(" ")})`);
  }
  const [, start, body, end] = kids as [Node, Node, Node, Node];
  const m = SIMPLE_DELIMITER.exec(start.text);
  if (!m) throw new NotPlain(`heredoc delimiter ${JSON.stringify(start.text)} is not a simple word`);
  const delimiter = m[1] ?? m[2] ?? m[3]!;
  const quoted = m[3] === undefined;
  const stripTabs = (line: string) => (op === "<<-" ? line.replace(/^\t+/, "") : line);
  if (stripTabs(end.text) !== delimiter) throw new NotPlain("heredoc end does not match its delimiter");
  if (body.namedChildCount > 0 && body.namedChildren.some((c) => c !== null && c.type !== "heredoc_content")) {
    throw new NotPlain("expansion inside a heredoc body");
  }
  // Unquoted delimiters let bash expand `$`, backticks and backslashes in the body: refuse them all.
  if (!quoted && /[$`\\]/.test(body.text)) throw new NotPlain("expansion inside an unquoted heredoc body");
  // If the parser's body holds a line bash would take as the end, bash would run what follows.
  if (body.text.split("\n").some((line) => stripTabs(line) === delimiter)) throw new NotPlain("heredoc body holds its own delimiter");
}

function commandOf(node: Node, script: string): string[] {
  const words: string[] = [];
  let prevEnd = -1;
  for (const child of node.children) {
    if (prevEnd >= 0) checkWordGap(script, prevEnd, child.startIndex, () => child.startPosition);
    prevEnd = child.endIndex;
    if (child.type === "command_name") {
      const name = child.namedChildren[0];
      if (!name || words.length > 0) throw new NotPlain(describeNode(child));
      words.push(extractWord(name, script, true));
    } else if (child.type === "herestring_redirect") {
      const [op, content, ...rest] = child.children;
      if (op?.type !== "<<<" || !content || rest.length > 0) throw new NotPlain(describeNode(child));
      extractWord(content, script, false);
    } else if (words.length > 0 && ["word", "string", "raw_string", "number", "concatenation"].includes(child.type)) {
      words.push(extractWord(child, script, false));
    } else {
      throw new NotPlain(describeNode(child));
    }
  }
  if (words.length === 0) throw new NotPlain("command without a name");
  return words;
}

/**
 * For `[bash|zsh|sh, -c|-lc, SCRIPT]` where SCRIPT is exactly one command fed by heredocs or
 * here-strings and nothing else — no file redirections, assignments, expansions (also none in an
 * unquoted heredoc body), pipes or further commands — the words of that command:
 * `python3 <<'PY' ... PY` gives `["python3"]`. Use it only to match exec-policy rules, never for the
 * known-safe list; {@link splitShellCommand} reports such scripts as not plain.
 * @throws InvalidShellArgumentError when argv is not an array of strings.
 * @throws GrammarLoadError when the grammar cannot be loaded.
 */
export async function splitHeredocCommand(argv: readonly string[]): Promise<HeredocSplit> {
  const parsed = z.array(z.string()).safeParse(argv);
  if (!parsed.success) throw new InvalidShellArgumentError("argv", "must be an array of strings");
  const wrapper = shellWrapperScript(parsed.data);
  if (!wrapper) return { kind: "not-a-shell" };
  if (wrapper.script.length > MAX_SPLIT_SCRIPT_CHARS) return { kind: "not-plain", reason: "script too long to split" };
  if (CONTROL_BLANKS.test(wrapper.script)) return { kind: "not-plain", reason: "control character (\\r, \\v or \\f) in the script" };
  const parser = await bashParser();
  const tree = parser.parse(wrapper.script);
  if (!tree) return { kind: "not-plain", reason: "the parser returned no tree" };
  try {
    const root = tree.rootNode;
    if (root.hasError) return { kind: "not-plain", reason: "syntax error" };
    const statements = root.namedChildren.filter((c): c is Node => c !== null && c.type !== "comment");
    if (statements.length !== 1) return { kind: "not-plain", reason: `${statements.length} statements, not exactly one` };
    const stmt = statements[0]!;
    if (!root.children.every((c) => c === null || c.isNamed)) return { kind: "not-plain", reason: "operators around the command" };
    let command: Node;
    let heredocs = 0;
    if (stmt.type === "redirected_statement") {
      const [body, ...redirects] = stmt.namedChildren.filter((c): c is Node => c !== null);
      if (body?.type !== "command") return { kind: "not-plain", reason: describeNode(body ?? stmt) };
      if (stmt.children.some((c) => c !== null && !c.isNamed)) return { kind: "not-plain", reason: "operator in a redirected statement" };
      for (const r of redirects) {
        if (r.type !== "heredoc_redirect") return { kind: "not-plain", reason: describeNode(r) };
        checkHeredoc(r);
        heredocs++;
      }
      command = body;
    } else if (stmt.type === "command") {
      command = stmt;
    } else {
      return { kind: "not-plain", reason: describeNode(stmt) };
    }
    const words = commandOf(command, wrapper.script);
    const hereStrings = command.children.filter((c) => c.type === "herestring_redirect").length;
    if (heredocs + hereStrings === 0) return { kind: "not-plain", reason: "no heredoc or here-string (use splitShellCommand)" };
    return { kind: "heredoc-command", command: words };
  } catch (err) {
    if (err instanceof NotPlain) return { kind: "not-plain", reason: err.message };
    throw err;
  } finally {
    tree.delete();
  }
}
