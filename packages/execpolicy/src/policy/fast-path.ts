/**
 * Fast path for the commonest kind of large rules file: one literal builtin call per line, as
 * written by amend (`prefix_rule(pattern=["a", "b"], decision="allow")`) or by generators.
 *
 * It recognises only files in which every line is blank, a comment, or a single-line call of
 * `prefix_rule` / `host_executable` / `network_rule` at column 1 whose arguments are plain
 * (non-triple-quoted, unprefixed) string literals and lists of them. For such a file, evaluating
 * the program is exactly "call each builtin with these literal values, in order" (no name can be
 * rebound, nothing else runs), so we skip the chevrotain lexer/parser and the interpreter and
 * call the same builtins directly. Anything else, including anything malformed, returns `null`
 * and the file goes through the full parser, which also produces the proper diagnostics.
 * Equivalence with the full path is property-tested (test/fast-path.test.ts).
 */
import { decodeStringLiteral } from "../lang/strings.js";
import { mkList } from "../lang/values.js";
import type { Value } from "../lang/values.js";

/** One recognised call. */
export interface LiteralCall {
  name: string;
  args: Value[];
  kwargs: Array<[string, Value]>;
  /** 1-based column of each keyword argument's name (parallel to `kwargs`), for diagnostics. */
  kwargColumns: number[];
  line: number;
}

const BUILTINS = new Set(["prefix_rule", "host_executable", "network_rule"]);
const MAX_LIST_DEPTH = 3;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
// One-line single/double-quoted literals (escapes allowed, except an escaped line break); a
// triple quote is excluded by requiring the body not to start with the quote character.
const DQ = /"(?!"")(?:[^"\\\n\r]|\\[^\n\r])*"/y;
const SQ = /'(?!'')(?:[^'\\\n\r]|\\[^\n\r])*'/y;

/** Recognise `text` as a file of literal builtin calls, or return `null`. */
export function literalCalls(text: string): LiteralCall[] | null {
  const calls: LiteralCall[] = [];
  const n = text.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;

  const skipSpaces = () => {
    while (text.charCodeAt(i) === 32) i++;
  };
  /** End of a line: optional spaces, optional comment, then newline or EOF. */
  const endOfLine = (): boolean => {
    skipSpaces();
    if (text[i] === "#") while (i < n && text[i] !== "\n" && text[i] !== "\r") i++;
    if (i >= n) return true;
    if (text[i] === "\n") { i++; line++; lineStart = i; return true; }
    if (text[i] === "\r" && text[i + 1] === "\n") { i += 2; line++; lineStart = i; return true; }
    return false;
  };
  const ident = (): string | null => {
    IDENT.lastIndex = i;
    const m = IDENT.exec(text);
    if (!m) return null;
    i = IDENT.lastIndex;
    return m[0];
  };
  const string = (): string | null => {
    const re = text.charCodeAt(i) === 34 ? DQ : SQ;
    re.lastIndex = i;
    const m = re.exec(text);
    if (!m) return null; // not a string, unterminated, or triple-quoted: full parser
    i = re.lastIndex;
    const image = m[0];
    if (!image.includes("\\")) return image.slice(1, -1);
    try {
      return decodeStringLiteral(image).value;
    } catch {
      return null;
    }
  };
  const value = (depth: number): Value | undefined => {
    if (text[i] === "[") {
      if (depth >= MAX_LIST_DEPTH) return undefined;
      i++;
      const items: Value[] = [];
      skipSpaces();
      while (text[i] !== "]") {
        const v = value(depth + 1);
        if (v === undefined) return undefined;
        items.push(v);
        skipSpaces();
        if (text[i] === ",") { i++; skipSpaces(); continue; }
        if (text[i] !== "]") return undefined;
      }
      i++;
      return mkList(items);
    }
    const s = string();
    return s === null ? undefined : s;
  };

  while (i < n) {
    if (endOfLine()) continue;
    if (i > 0 && text[i - 1] === " ") return null; // indented statement: let the parser report it
    const callLine = line;
    const name = ident();
    if (name === null || !BUILTINS.has(name) || text[i] !== "(") return null;
    i++;
    const args: Value[] = [];
    const kwargs: Array<[string, Value]> = [];
    const kwargColumns: number[] = [];
    skipSpaces();
    while (text[i] !== ")") {
      const save = i;
      const key = ident();
      const keyColumn = save - lineStart + 1;
      if (key !== null) {
        skipSpaces();
        if (text[i] !== "=" || text[i + 1] === "=") return null;
        i++;
        skipSpaces();
        if (kwargs.some(([k]) => k === key)) return null;
      } else {
        i = save;
        if (kwargs.length) return null; // positional after keyword: let the parser decide
      }
      const v = value(0);
      if (v === undefined) return null;
      if (key !== null) { kwargs.push([key, v]); kwargColumns.push(keyColumn); }
      else args.push(v);
      skipSpaces();
      if (text[i] === ",") { i++; skipSpaces(); continue; }
      if (text[i] !== ")") return null;
    }
    i++;
    calls.push({ name, args, kwargs, kwargColumns, line: callLine });
    if (!endOfLine()) return null;
  }
  return calls;
}
