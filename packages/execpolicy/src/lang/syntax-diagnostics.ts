/**
 * Turning chevrotain's recognition exceptions into diagnostics that say what was expected and
 * where the enclosing construct started. chevrotain knows the expected token types (its content
 * assist walks the grammar from a rule with the tokens seen so far), the offending token and the
 * rule stack; a generic "unexpected X" would throw all of that away.
 */
import type { IRecognitionException, IToken, TokenType } from "chevrotain";
import { chevrotain } from "./chevrotain-runtime.js";
import type { Tokens } from "./tokens.js";

/** What the parser needs to expose for the diagnostics (content assist over its grammar). */
export interface ContentAssist {
  computeContentAssist(startRuleName: string, precedingInput: IToken[]): Array<{ nextTokenType: TokenType }>;
}

/** A located syntax error message. */
export interface SyntaxDiagnostic {
  message: string;
  line: number;
  column: number;
  span: number;
}

/** Content assist walks every grammar path; beyond this many tokens of one statement we skip it. */
const MAX_ASSIST_TOKENS = 400;

/** Describe a token as it appears in a message. */
export function describeToken(tok: IToken, T: Tokens): string {
  const type = tok.tokenType;
  if (type === chevrotain().EOF) return "end of file";
  if (type === T.LogicalNewline) return "end of line";
  if (type === T.Indent) return "indentation";
  if (type === T.Dedent) return "dedent";
  const image = tok.image.length > 40 ? `${tok.image.slice(0, 37)}...` : tok.image;
  return `\`${image}\``;
}

function labelOf(type: TokenType, T: Tokens): string {
  if (type === T.Identifier) return "a name";
  if (type === T.StringLit) return "a string";
  if (type === T.Int) return "an integer";
  if (type === T.Float) return "a float";
  if (type === T.LogicalNewline) return "end of line";
  if (type === T.Indent) return "an indented block";
  if (type === chevrotain().EOF) return "end of file";
  return type.LABEL ?? type.name;
}

/** Join labels as "`a`, `b` or `c`". */
function oneOf(labels: string[]): string {
  if (labels.length <= 1) return labels[0] ?? "";
  return `${labels.slice(0, -1).join(", ")} or ${labels[labels.length - 1]}`;
}

const CLOSER: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/**
 * Build the diagnostic for the first recognition exception. `input` is the token stream the parser
 * consumed; `exception.token` is the offending token (an EOF token when input ran out).
 */
export function syntaxDiagnostic(
  exception: IRecognitionException,
  input: readonly IToken[],
  parser: ContentAssist,
  T: Tokens,
  lastLine: number,
  startRule = "statement",
): SyntaxDiagnostic {
  const tok = exception.token;
  const eof = tok.tokenType === chevrotain().EOF;
  const index = eof ? input.length : indexOfToken(input, tok);
  const prev = index > 0 ? input[index - 1] : undefined;
  // EOF tokens carry no position, and the end of line synthesised at the end of the file sits on
  // the last token: point just after the last real token instead.
  const atEnd = eof || !Number.isFinite(tok.startLine) || (prev !== undefined && tok.tokenType === T.LogicalNewline && tok.startOffset === prev.startOffset);
  const line = atEnd ? (prev?.endLine ?? lastLine) : tok.startLine!;
  const column = atEnd ? (prev ? (prev.endColumn ?? 0) + 1 : 1) : tok.startColumn!;
  const found = describeToken(tok, T);
  const span = Math.max(1, eof ? 1 : tok.image.length);

  if (tok.tokenType === T.Indent) {
    return { message: "syntax error: unexpected indentation (this line is indented more than the statement before it)", line, column, span };
  }

  const opener = innermostOpener(input, index, T);
  const expected = expectedTypes(input, index, parser, T, startRule);
  let wanted: string | undefined;
  if (expected) {
    const structural = [...expected].filter((t) => STRUCTURAL(T).has(t));
    // `in` and `else` also continue expressions; name them only when nothing else fits.
    const primary = structural.filter((t) => t !== T.In && t !== T.Else);
    const chosen = primary.length > 0 ? primary : structural;
    const expressions = [...expected].some((t) => EXPRESSION_START(T).has(t));
    if (expected.size <= 5) {
      wanted = oneOf(order([...expected], T).map((t) => labelOf(t, T)));
    } else {
      // A closer or separator is what a user most likely forgot; the operators that could also
      // continue the expression are true but noise.
      const labels = order(chosen, T).map((t) => labelOf(t, T));
      if (expressions) labels.push("an expression");
      if (labels.length > 0) wanted = oneOf(labels);
    }
  }
  wanted ??= fallbackExpectation(exception.message);

  let message = wanted ? `syntax error: expected ${wanted}, found ${found}` : `syntax error: unexpected ${found}`;
  if (opener && wanted?.includes(`\`${CLOSER[opener.image]}\``)) {
    message += ` (the \`${opener.image}\` at ${opener.startLine}:${opener.startColumn} is not closed)`;
  } else if (opener && expected === undefined) {
    message += ` (inside the \`${opener.image}\` at ${opener.startLine}:${opener.startColumn})`;
  }
  return { message, line, column, span };
}

/** chevrotain's own message (built by our errorMessageProvider) carries "expected X" when content assist was skipped. */
function fallbackExpectation(message: string): string | undefined {
  const m = /^expected (.+?), found /.exec(message);
  return m?.[1];
}

function indexOfToken(input: readonly IToken[], tok: IToken): number {
  const i = input.indexOf(tok);
  if (i >= 0) return i;
  // Synthesised layout tokens are re-created per parse; fall back to the offset.
  const j = input.findIndex((t) => t.startOffset >= tok.startOffset);
  return j < 0 ? input.length : j;
}

/** The innermost bracket still open before token `index`. */
function innermostOpener(input: readonly IToken[], index: number, T: Tokens): IToken | undefined {
  const stack: IToken[] = [];
  for (let i = 0; i < index; i++) {
    const t = input[i]!.tokenType;
    if (t === T.LParen || t === T.LBracket || t === T.LBrace) stack.push(input[i]!);
    else if ((t === T.RParen || t === T.RBracket || t === T.RBrace) && stack.length) stack.pop();
    else if (stack.length === 0 && (t === T.LogicalNewline || t === T.Indent || t === T.Dedent)) stack.length = 0;
  }
  return stack[stack.length - 1];
}

/**
 * The token types the grammar allows at `index`, from the start of the statement that contains it
 * (content assist from the `statement` rule). `undefined` when that statement is too long to walk.
 */
function expectedTypes(input: readonly IToken[], index: number, parser: ContentAssist, T: Tokens, startRule: string): Set<TokenType> | undefined {
  // Any rule but `statement` is walked from the first token (it parses a fragment, not a file).
  let start = startRule === "statement" ? index : 0;
  let depth = 0;
  while (start > 0) {
    const t = input[start - 1]!.tokenType;
    if (t === T.RParen || t === T.RBracket || t === T.RBrace) depth++;
    else if (t === T.LParen || t === T.LBracket || t === T.LBrace) depth = Math.max(0, depth - 1);
    else if (depth === 0 && (t === T.LogicalNewline || t === T.Indent || t === T.Dedent)) break;
    start--;
  }
  if (index - start > MAX_ASSIST_TOKENS) return undefined;
  try {
    const paths = parser.computeContentAssist(startRule, input.slice(start, index) as IToken[]);
    return new Set(paths.map((p) => p.nextTokenType));
  } catch {
    return undefined;
  }
}

let structuralSet: Set<TokenType> | undefined;
let expressionSet: Set<TokenType> | undefined;

function STRUCTURAL(T: Tokens): Set<TokenType> {
  structuralSet ??= new Set([chevrotain().EOF, T.Comma, T.RParen, T.RBracket, T.RBrace, T.Colon, T.Assign, T.LogicalNewline, T.Indent, T.In, T.Else]);
  return structuralSet;
}

function EXPRESSION_START(T: Tokens): Set<TokenType> {
  // Only tokens that start an expression and never continue one (`(`, `-`, `not` do both).
  expressionSet ??= new Set([T.Identifier, T.StringLit, T.Int, T.Float, T.None, T.True, T.False, T.Lambda]);
  return expressionSet;
}

/** Separators before closers before the rest, so "`,` or `)`" reads naturally. */
function order(types: TokenType[], T: Tokens): TokenType[] {
  const rank = [T.Comma, T.Colon, T.Assign, T.In, T.Else, T.RParen, T.RBracket, T.RBrace, T.Indent, T.LogicalNewline];
  const r = (t: TokenType) => (rank.includes(t) ? rank.indexOf(t) : -1);
  return [...types].sort((a, b) => r(a) - r(b));
}

/** Message provider for chevrotain: "expected X, found Y" (used when content assist is skipped). */
export function errorMessageProvider(T: Tokens) {
  const found = (t: IToken) => describeToken(t, T);
  const paths = (p: TokenType[][]) => oneOf([...new Set(p.map((seq) => (seq[0] ? labelOf(seq[0], T) : "")).filter(Boolean))]);
  return {
    buildMismatchTokenMessage: (o: { expected: TokenType; actual: IToken }) => `expected ${labelOf(o.expected, T)}, found ${found(o.actual)}`,
    buildNotAllInputParsedMessage: (o: { firstRedundant: IToken }) => `unexpected ${found(o.firstRedundant)}`,
    buildNoViableAltMessage: (o: { expectedPathsPerAlt: TokenType[][][]; actual: IToken[] }) => `expected ${paths(o.expectedPathsPerAlt.flat())}, found ${found(o.actual[0]!)}`,
    buildEarlyExitMessage: (o: { expectedIterationPaths: TokenType[][]; actual: IToken[] }) => `expected ${paths(o.expectedIterationPaths)}, found ${found(o.actual[0]!)}`,
  };
}
