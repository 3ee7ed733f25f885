/**
 * Lexing: chevrotain tokenises, then a layout pass turns physical lines into Starlark's logical
 * structure (NEWLINE / INDENT / DEDENT), ignoring line breaks inside brackets, and enforces the
 * nesting bound so that the recursive-descent parser can never overflow the stack.
 */
import type { IToken, TokenType } from "chevrotain";
import type { Lexer as ChevrotainLexer } from "chevrotain";
import { chevrotain } from "./chevrotain-runtime.js";
import type { PolicyErrorCode } from "../errors.js";
import { tokens } from "./tokens.js";
import type { Tokens } from "./tokens.js";
import { SourceText } from "./source.js";
import { MAX_BLOCK_DEPTH, MAX_BRACKET_DEPTH } from "../limits.js";


let lexerInstance: ChevrotainLexer | undefined;
function lexer(): ChevrotainLexer {
  lexerInstance ??= new (chevrotain().Lexer)(tokens().allTokens, {
    positionTracking: "full",
    ensureOptimizations: false,
    skipValidations: true,
  });
  return lexerInstance;
}

function synth(type: TokenType, at: IToken, image = ""): IToken {
  return chevrotain().createTokenInstance(
    type, image, at.startOffset, at.endOffset ?? at.startOffset,
    at.startLine ?? 1, at.endLine ?? 1, at.startColumn ?? 1, at.endColumn ?? 1,
  );
}


/** Tokenise `src` into the token stream the parser consumes. Throws `PolicyDiagnosticError`. */
export function tokenize(src: SourceText): IToken[] {
  const result = lexer().tokenize(src.text);
  const first = result.errors[0];
  if (first) {
    const line = first.line ?? 1;
    const column = first.column ?? 1;
    const ch = src.text.slice(first.offset, first.offset + 1);
    throw src.error("SYNTAX_ERROR", `unexpected character ${JSON.stringify(ch)}`, line, column);
  }
  return layout(src, result.tokens, tokens());
}

function layout(src: SourceText, input: IToken[], T: Tokens): IToken[] {
  const OPEN = new Set<TokenType>([T.LParen, T.LBracket, T.LBrace]);
  const CLOSE = new Set<TokenType>([T.RParen, T.RBracket, T.RBrace]);
  const out: IToken[] = [];
  const indents: number[] = [0];
  let depth = 0;
  let atLineStart = true;
  let last: IToken | undefined;
  for (const tok of input) {
    const type = tok.tokenType;
    if (type === T.Tab) fail(src, "SYNTAX_ERROR", "tabs are not allowed (indent with spaces)", tok);
    if (type === T.Newline) {
      if (depth === 0 && !atLineStart) {
        out.push(synth(T.LogicalNewline, tok, "\n"));
        atLineStart = true;
      }
      continue;
    }
    if (atLineStart && depth === 0) {
      const col = (tok.startColumn ?? 1) - 1;
      const top = indents[indents.length - 1]!;
      if (col > top) {
        if (indents.length > MAX_BLOCK_DEPTH) fail(src, "NESTING_TOO_DEEP", `blocks nested deeper than ${MAX_BLOCK_DEPTH} levels`, tok);
        indents.push(col);
        out.push(synth(T.Indent, tok));
      } else if (col < top) {
        while (col < indents[indents.length - 1]!) {
          indents.pop();
          out.push(synth(T.Dedent, tok));
        }
        if (col !== indents[indents.length - 1]) fail(src, "INDENTATION_ERROR", "unindent does not match any outer indentation level", tok);
      }
      atLineStart = false;
    }
    if (OPEN.has(type)) {
      depth++;
      if (depth > MAX_BRACKET_DEPTH) fail(src, "NESTING_TOO_DEEP", `brackets nested deeper than ${MAX_BRACKET_DEPTH} levels`, tok);
    } else if (CLOSE.has(type) && depth > 0) {
      depth--;
    } else if (type === T.StringLit) {
      checkTerminated(src, tok);
    }
    out.push(tok);
    last = tok;
  }
  const end = last ?? ({ startOffset: src.text.length, startLine: src.lineCount, startColumn: 1, image: "" } as IToken);
  if (!atLineStart) out.push(synth(T.LogicalNewline, end));
  while (indents.length > 1) {
    indents.pop();
    out.push(synth(T.Dedent, end));
  }
  return out;
}

function checkTerminated(src: SourceText, tok: IToken): void {
  const body = tok.image.replace(/^[rRbBfF]{0,2}/, "");
  const q = body[0]!;
  const closer = body.startsWith(q.repeat(3)) ? q.repeat(3) : q;
  const ok = body.length >= closer.length * 2 && body.endsWith(closer) && !endsEscaped(body, closer.length);
  if (!ok) fail(src, "UNTERMINATED_STRING", "unterminated string literal", tok);
}

function endsEscaped(body: string, closerLen: number): boolean {
  let n = 0;
  for (let i = body.length - closerLen - 1; i >= 0 && body[i] === "\\"; i--) n++;
  return n % 2 === 1;
}

function fail(src: SourceText, code: PolicyErrorCode, message: string, tok: IToken): never {
  throw src.error(code, message, tok.startLine ?? 1, tok.startColumn ?? 1, Math.max(1, tok.image.length));
}

/**
 * Tokenise a fragment of code that starts at `line:column` of `src` (an f-string field), with
 * positions in the file's terms. Line breaks inside are ignored as they are inside brackets.
 */
export function tokenizeFragment(src: SourceText, text: string, line: number, column: number): IToken[] {
  const T = tokens();
  const result = lexer().tokenize(text);
  const place = (l: number | undefined, c: number | undefined): [number, number] => {
    const ll = l ?? 1;
    return [ll + line - 1, ll === 1 ? (c ?? 1) + column - 1 : (c ?? 1)];
  };
  const first = result.errors[0];
  if (first) {
    const [l, c] = place(first.line, first.column);
    throw src.error("SYNTAX_ERROR", `unexpected character ${JSON.stringify(text.slice(first.offset, first.offset + 1))}`, l, c);
  }
  const out: IToken[] = [];
  for (const tok of result.tokens) {
    if (tok.tokenType === T.Newline) continue;
    if (tok.tokenType === T.Tab) fail(src, "SYNTAX_ERROR", "tabs are not allowed", tok);
    const [sl, sc] = place(tok.startLine, tok.startColumn);
    const [el, ec] = place(tok.endLine, tok.endColumn);
    tok.startLine = sl; tok.startColumn = sc; tok.endLine = el; tok.endColumn = ec;
    if (tok.tokenType === T.StringLit) checkTerminated(src, tok);
    out.push(tok);
  }
  return out;
}
