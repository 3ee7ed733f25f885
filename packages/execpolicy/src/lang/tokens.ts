/**
 * Token vocabulary of the Starlark subset. Keywords use `longer_alt` so `format` or `in_place`
 * stay identifiers; Python/Starlark reserved words that we do not support lex as `Reserved` so the
 * parser can name them in its error.
 */
import type { TokenType } from "chevrotain";
import { chevrotain } from "./chevrotain-runtime.js";

/** Words Starlark reserves (or Python has) that this subset does not implement. */
const RESERVED_WORDS = [
  "as", "assert", "async", "await", "class", "del", "except", "finally", "from", "global",
  "import", "is", "nonlocal", "raise", "try", "while", "with", "yield",
];

/** String prefixes Starlark accepts. */
const STRING_PREFIXES = new Set(["", "r", "b", "f", "fr", "br", "rb"]);

/**
 * End offset of the string literal whose opening quote is at `start` (at most the text length when
 * unterminated: reported later). In an f-string, a `{...}` field is code: quotes inside it start
 * nested strings, so `f"{d["k"]}"` is one literal, as in Starlark.
 */
export function scanString(text: string, start: number, fstring: boolean): number {
  const q = text[start]!;
  const triple = text[start + 1] === q && text[start + 2] === q;
  let i = start + (triple ? 3 : 1);
  for (;;) {
    if (i >= text.length) return i;
    const c = text[i]!;
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (!triple && (c === "\n" || c === "\r")) return i; // unterminated single-line string
    if (c === q && (!triple || (text[i + 1] === q && text[i + 2] === q))) return i + (triple ? 3 : 1);
    if (fstring && c === "{") {
      if (text[i + 1] === "{") { i += 2; continue; }
      i = scanField(text, i + 1);
      continue;
    }
    i++;
  }
}

/** End of an f-string field: the offset just after its closing `}` (or where the text ends). */
export function scanField(text: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      let j = i - 1;
      while (j >= start && /[rbf]/.test(text[j]!)) j--;
      i = scanString(text, i, text.slice(j + 1, i).includes("f"));
      continue;
    }
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || (c === "}" && depth > 0)) depth = Math.max(0, depth - 1);
    else if (c === "}") return i + 1;
    i++;
  }
  return i;
}

/** Build the token types (once; see `tokens()`). */
function buildTokens() {
  const { createToken, Lexer } = chevrotain();

  /** Identifier (names of variables, functions, keyword arguments). */
  const Identifier = createToken({ name: "Identifier", pattern: /[A-Za-z_][A-Za-z0-9_]*/ });

  function keyword(word: string, name = word[0]!.toUpperCase() + word.slice(1)): TokenType {
    return createToken({ name, pattern: new RegExp(word), longer_alt: Identifier, label: `\`${word}\`` });
  }

  const And = keyword("and");
  const Break = keyword("break");
  const Continue = keyword("continue");
  const Def = keyword("def");
  const Elif = keyword("elif");
  const Else = keyword("else");
  const For = keyword("for");
  const If = keyword("if");
  const In = keyword("in");
  const Lambda = keyword("lambda");
  const Load = keyword("load");
  const Not = keyword("not");
  const Or = keyword("or");
  const Pass = keyword("pass");
  const Return = keyword("return");
  const None = keyword("None", "NoneLit");
  const True = keyword("True", "TrueLit");
  const False = keyword("False", "FalseLit");

  const Reserved = createToken({
    name: "Reserved",
    // Longest first so `assert` is not read as `as` + `sert`; `longer_alt` keeps `asks` an identifier.
    pattern: new RegExp([...RESERVED_WORDS].sort((a, b) => b.length - a.length).join("|")),
    longer_alt: Identifier,
    label: "reserved keyword",
  });

  /**
   * String literal with optional prefix (r, b, f and combinations). A custom matcher because the
   * body rules (escapes, triple quotes) are awkward as one regex. Unterminated strings still match
   * (to end of line, or end of file for triple quotes) so that the layout pass can report them with
   * a precise error instead of a generic "unexpected character".
   */
  const StringLit = createToken({
    name: "StringLit",
    pattern: { exec: matchString },
    line_breaks: true,
    start_chars_hint: ["'", '"', "r", "R", "b", "B", "f", "F", "u", "U"],
    label: "string",
  });

  function matchString(text: string, offset: number): RegExpExecArray | null {
    let i = offset;
    // Up to two prefix letters. Identifiers starting with these letters fail below.
    while (i < offset + 2 && i < text.length && /[rRbBfFuU]/.test(text[i]!)) i++;
    const q = text[i];
    if (q !== "'" && q !== '"') return null;
    // Exactly the prefixes Starlark accepts (lowercase; `fr` but not `rf`): `R"x"` is a name and a string.
    if (!STRING_PREFIXES.has(text.slice(offset, i))) return null;
    const end = scanString(text, i, text.slice(offset, i).includes("f"));
    return [text.slice(offset, Math.min(end, text.length))] as unknown as RegExpExecArray;
  }

  const Float = createToken({ name: "Float", pattern: /(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+/ });
  const Int = createToken({ name: "Int", pattern: /0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|\d+/, label: "integer" });

  const Newline = createToken({ name: "Newline", pattern: /\r\n|\r|\n/, line_breaks: true, label: "newline" });
  const Whitespace = createToken({ name: "Whitespace", pattern: /[ \f]+/, group: Lexer.SKIPPED });
  /** Tabs outside strings and comments are rejected (as Starlark does); the layout pass reports them. */
  const Tab = createToken({ name: "Tab", pattern: /\t+/, label: "tab" });
  const Comment = createToken({ name: "Comment", pattern: /#[^\r\n]*/, group: Lexer.SKIPPED });
  const LineJoin = createToken({ name: "LineJoin", pattern: /\\(?:\r\n|\r|\n)/, group: Lexer.SKIPPED, line_breaks: true });

  function punct(name: string, image: string): TokenType {
    return createToken({ name, pattern: new RegExp(image.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")), label: `\`${image}\`` });
  }

  const LParen = punct("LParen", "(");
  const RParen = punct("RParen", ")");
  const LBracket = punct("LBracket", "[");
  const RBracket = punct("RBracket", "]");
  const LBrace = punct("LBrace", "{");
  const RBrace = punct("RBrace", "}");
  const Comma = punct("Comma", ",");
  const Colon = punct("Colon", ":");
  const Semi = punct("Semi", ";");
  const Dot = punct("Dot", ".");
  const Arrow = punct("Arrow", "->");
  const AugAssign = createToken({ name: "AugAssign", pattern: /\+=|-=|\*=|\/\/=|\/=|%=|\|=|&=|\^=|<<=|>>=/, label: "augmented assignment" });
  const EqEq = punct("EqEq", "==");
  const NotEq = punct("NotEq", "!=");
  const LShift = punct("LShift", "<<");
  const RShift = punct("RShift", ">>");
  const LtEq = punct("LtEq", "<=");
  const GtEq = punct("GtEq", ">=");
  const Lt = punct("Lt", "<");
  const Gt = punct("Gt", ">");
  const Assign = punct("Assign", "=");
  const StarStar = punct("StarStar", "**");
  const Star = punct("Star", "*");
  const SlashSlash = punct("SlashSlash", "//");
  const Slash = punct("Slash", "/");
  const Percent = punct("Percent", "%");
  const Plus = punct("Plus", "+");
  const Minus = punct("Minus", "-");
  const Pipe = punct("Pipe", "|");
  const Amp = punct("Amp", "&");
  const Caret = punct("Caret", "^");
  const Tilde = punct("Tilde", "~");

  /** Layout tokens, never produced by the lexer itself: inserted by the layout pass. */
  const Indent = createToken({ name: "Indent", pattern: Lexer.NA, label: "indent" });
  const Dedent = createToken({ name: "Dedent", pattern: Lexer.NA, label: "dedent" });
  const LogicalNewline = createToken({ name: "LogicalNewline", pattern: Lexer.NA, label: "end of line" });

  /** Order matters: longer/more specific patterns first. */
  const allTokens: TokenType[] = [
    Whitespace, Tab, LineJoin, Comment, Newline, StringLit, Float, Int,
    Reserved, And, Break, Continue, Def, Elif, Else, For, If, In, Lambda, Load, Not, Or, Pass, Return, None, True, False,
    Identifier,
    Arrow, AugAssign, LShift, RShift, EqEq, NotEq, LtEq, GtEq, Lt, Gt, Assign, StarStar, Star, SlashSlash, Slash, Percent,
    Plus, Minus, Pipe, Amp, Caret, Tilde,
    LParen, RParen, LBracket, RBracket, LBrace, RBrace, Comma, Colon, Semi, Dot,
    Indent, Dedent, LogicalNewline,
  ];
  return { allTokens, Identifier, And, Break, Continue, Def, Elif, Else, For, If, In, Lambda, Load, Not, Or, Pass, Return, None, True, False, Reserved, StringLit, Float, Int, Newline, Whitespace, Tab, Comment, LineJoin, LParen, RParen, LBracket, RBracket, LBrace, RBrace, Comma, Colon, Semi, Dot, Arrow, AugAssign, LShift, RShift, EqEq, NotEq, LtEq, GtEq, Lt, Gt, Assign, StarStar, Star, SlashSlash, Slash, Percent, Plus, Minus, Pipe, Amp, Caret, Tilde, Indent, Dedent, LogicalNewline };
}

/** The token vocabulary. */
export type Tokens = ReturnType<typeof buildTokens>;

let built: Tokens | undefined;
/** The token types, created on first use. */
export function tokens(): Tokens {
  built ??= buildTokens();
  return built;
}
