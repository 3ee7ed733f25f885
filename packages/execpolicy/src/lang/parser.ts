/**
 * chevrotain parser for the Starlark subset, building the typed AST directly (embedded actions;
 * a CST pass would double the allocation for large generated rule files, and compile time of a
 * 10,000-rule file is a product target). Expression recursion is bounded by `MAX_EXPR_DEPTH`.
 */
import type { IToken, TokenType } from "chevrotain";
import { chevrotain } from "./chevrotain-runtime.js";
import { tokens } from "./tokens.js";
import type { Tokens } from "./tokens.js";
import type { Arg, BinaryOp, CompClause, Expr, FStringField, Module, Param, Pos, Stmt } from "./ast.js";
import { decodeStringLiteral, StringDecodeError } from "./strings.js";
import type { SourceText } from "./source.js";
import { tokenize, tokenizeFragment } from "./lexer.js";
import { splitFStringImage } from "./fstring.js";
import { describeToken, errorMessageProvider, syntaxDiagnostic } from "./syntax-diagnostics.js";
import { MAX_EXPR_DEPTH } from "../limits.js";



class DepthError extends Error {
  constructor(readonly token: IToken) {
    super("nesting too deep");
  }
}
class LiteralError extends Error {
  constructor(readonly token: IToken, readonly detail: string, readonly offset: number) {
    super(detail);
  }
}

function pos(tok: IToken): Pos {
  return { line: tok.startLine ?? 1, column: tok.startColumn ?? 1 };
}

/**
 * Build the parser class and one instance (chevrotain's self-analysis runs once per process).
 * Grammar validations are skipped at run time (they cost start-up); `validate` turns them on for
 * the test that keeps the grammar free of ambiguities.
 */
function createParser(T: Tokens, validate = false) {
  const chev = chevrotain();
  const EXPR_START = new Set<TokenType>([
    T.Identifier, T.StringLit, T.Int, T.Float, T.None, T.True, T.False, T.LParen, T.LBracket, T.LBrace,
    T.Minus, T.Plus, T.Tilde, T.Not, T.Lambda, T.Reserved,
  ]);

  class StarlarkParser extends chev.EmbeddedActionsParser {
    private depth = 0;

    constructor() {
      super(T.allTokens, { skipValidations: !validate, maxLookahead: 3, errorMessageProvider: errorMessageProvider(T) });
      this.performSelfAnalysis();
    }

    resetDepth(): void {
      this.depth = 0;
    }

    private enter(): void {
      this.ACTION(() => {
        if (++this.depth > MAX_EXPR_DEPTH) throw new DepthError(this.LA(1));
      });
    }
    private leave(): void {
      this.ACTION(() => {
        this.depth--;
      });
    }

    public file = this.RULE("file", (): Module => {
      const body: Stmt[] = [];
      this.MANY(() => {
        this.OR([
          { ALT: () => { this.CONSUME(T.LogicalNewline); } },
          { ALT: () => { const st = this.SUBRULE(this.statement); this.ACTION(() => body.push(...st)); } },
        ]);
      });
      this.CONSUME(chev.EOF);
      return { body };
    });

    private statement = this.RULE("statement", (): Stmt[] =>
      this.OR([
        { ALT: () => [this.SUBRULE(this.defStmt)] },
        { ALT: () => [this.SUBRULE(this.ifStmt)] },
        { ALT: () => [this.SUBRULE(this.forStmt)] },
        { ALT: () => this.SUBRULE(this.simpleStmt) },
      ]),
    );

    private simpleStmt = this.RULE("simpleStmt", (): Stmt[] => {
      const out: Stmt[] = [this.SUBRULE(this.smallStmt)];
      this.MANY({
        GATE: () => this.LA(2).tokenType !== T.LogicalNewline,
        DEF: () => {
          this.CONSUME(T.Semi);
          out.push(this.SUBRULE2(this.smallStmt));
        },
      });
      this.OPTION(() => this.CONSUME2(T.Semi));
      this.CONSUME(T.LogicalNewline);
      return out;
    });

    private smallStmt = this.RULE("smallStmt", (): Stmt =>
      this.OR([
        {
          ALT: () => {
            const t = this.CONSUME(T.Return);
            let value: Expr | undefined;
            this.OPTION(() => { value = this.SUBRULE(this.testList); });
            return { kind: "return", value, pos: pos(t) } as Stmt;
          },
        },
        { ALT: () => ({ kind: "break", pos: pos(this.CONSUME(T.Break)) }) as Stmt },
        { ALT: () => ({ kind: "continue", pos: pos(this.CONSUME(T.Continue)) }) as Stmt },
        { ALT: () => ({ kind: "pass", pos: pos(this.CONSUME(T.Pass)) }) as Stmt },
        { ALT: () => this.SUBRULE(this.loadStmt) },
        { ALT: () => this.SUBRULE(this.exprOrAssign) },
      ]),
    );

    private loadStmt = this.RULE("loadStmt", (): Stmt => {
      const t = this.CONSUME(T.Load);
      this.CONSUME(T.LParen);
      const m = this.CONSUME(T.StringLit);
      this.MANY(() => {
        this.CONSUME(T.Comma);
        this.OPTION(() => {
          this.OR([
            { ALT: () => { this.CONSUME2(T.StringLit); } },
            { ALT: () => { this.CONSUME(T.Identifier); this.CONSUME(T.Assign); this.CONSUME3(T.StringLit); } },
          ]);
        });
      });
      this.CONSUME(T.RParen);
      return { kind: "load", module: this.ACTION(() => this.str(m)), pos: pos(t) } as Stmt;
    });

    private exprOrAssign = this.RULE("exprOrAssign", (): Stmt => {
      const first = this.LA(1);
      const lhs = this.SUBRULE(this.testList);
      const bare = this.bareTuple;
      let stmt: Stmt = { kind: "expr", expr: lhs, pos: pos(first) };
      this.OPTION(() => {
        this.OR([
          {
            ALT: () => {
              this.CONSUME(T.Assign);
              const value = this.SUBRULE2(this.testList);
              stmt = { kind: "assign", target: lhs, value, pos: pos(first) };
            },
          },
          {
            ALT: () => {
              const op = this.CONSUME(T.AugAssign);
              const value = this.SUBRULE3(this.testList);
              stmt = { kind: "augassign", op: op.image.slice(0, -1) as BinaryOp, target: lhs, value, pos: pos(first) };
            },
          },
        ]);
      });
      // As in Starlark, `a, b` alone is not a statement (it is only the left side of an assignment).
      this.ACTION(() => {
        if (bare && stmt.kind === "expr") throw new LiteralError(this.LA(1), `expected \`=\` after the unparenthesised tuple starting at ${first.startLine}:${first.startColumn} (a bare tuple is not a statement)`, 0);
      });
      return stmt;
    });

    private suite = this.RULE("suite", (): Stmt[] =>
      this.OR([
        {
          ALT: () => {
            this.CONSUME(T.LogicalNewline);
            this.CONSUME(T.Indent);
            const body: Stmt[] = [];
            this.AT_LEAST_ONE(() => { const st = this.SUBRULE(this.statement); this.ACTION(() => body.push(...st)); });
            this.CONSUME(T.Dedent);
            return body;
          },
        },
        { ALT: () => this.SUBRULE(this.simpleStmt) },
      ]),
    );

    private defStmt = this.RULE("defStmt", (): Stmt => {
      const t = this.CONSUME(T.Def);
      const name = this.CONSUME(T.Identifier).image;
      this.CONSUME(T.LParen);
      const params = this.SUBRULE(this.params);
      this.CONSUME(T.RParen);
      this.CONSUME(T.Colon);
      const body = this.SUBRULE(this.suite);
      return { kind: "def", name, params, body, pos: pos(t) };
    });

    private params = this.RULE("params", (): Param[] => {
      const out: Param[] = [];
      this.OPTION(() => {
        out.push(this.SUBRULE(this.param));
        this.MANY({
          GATE: () => this.LA(2).tokenType !== T.RParen && this.LA(2).tokenType !== T.Colon,
          DEF: () => {
            this.CONSUME(T.Comma);
            out.push(this.SUBRULE2(this.param));
          },
        });
        this.OPTION2(() => this.CONSUME2(T.Comma));
      });
      return out;
    });

    private param = this.RULE("param", (): Param =>
      this.OR([
        {
          ALT: () => {
            const t = this.CONSUME(T.Identifier);
            let def: Expr | undefined;
            this.OPTION(() => {
              this.CONSUME(T.Assign);
              def = this.SUBRULE(this.test);
            });
            return { kind: "plain", name: t.image, default: def, pos: pos(t) } as Param;
          },
        },
        {
          ALT: () => {
            const t = this.CONSUME(T.Star);
            let name: string | undefined;
            this.OPTION2(() => { name = this.CONSUME2(T.Identifier).image; });
            return { kind: "star", name, pos: pos(t) } as Param;
          },
        },
        {
          ALT: () => {
            const t = this.CONSUME(T.StarStar);
            return { kind: "starstar", name: this.CONSUME3(T.Identifier).image, pos: pos(t) } as Param;
          },
        },
      ]),
    );

    private ifStmt = this.RULE("ifStmt", (): Stmt => {
      const t = this.CONSUME(T.If);
      const branches: Array<{ test: Expr; body: Stmt[] }> = [];
      const test = this.SUBRULE(this.test);
      this.CONSUME(T.Colon);
      branches.push({ test, body: this.SUBRULE(this.suite) });
      this.MANY(() => {
        this.CONSUME(T.Elif);
        const t2 = this.SUBRULE2(this.test);
        this.CONSUME2(T.Colon);
        branches.push({ test: t2, body: this.SUBRULE2(this.suite) });
      });
      let orelse: Stmt[] | undefined;
      this.OPTION(() => {
        this.CONSUME(T.Else);
        this.CONSUME3(T.Colon);
        orelse = this.SUBRULE3(this.suite);
      });
      return { kind: "if", branches, orelse, pos: pos(t) };
    });

    private forStmt = this.RULE("forStmt", (): Stmt => {
      const t = this.CONSUME(T.For);
      const target = this.SUBRULE(this.targetList);
      this.CONSUME(T.In);
      // A single expression, as in Starlark: `for x in 1, 2:` is an error there.
      const iterable = this.SUBRULE(this.test);
      this.CONSUME(T.Colon);
      const body = this.SUBRULE(this.suite);
      return { kind: "for", target, iterable, body, pos: pos(t) };
    });

    /** Loop targets: primaries separated by commas (never `in` comparisons). */
    private targetList = this.RULE("targetList", (): Expr => {
      const first = this.LA(1);
      const items: Expr[] = [this.SUBRULE(this.primary)];
      let tuple = false;
      this.MANY(() => {
        this.CONSUME(T.Comma);
        tuple = true;
        items.push(this.SUBRULE2(this.primary));
      });
      return tuple ? { kind: "tuple", items, pos: pos(first) } : items[0]!;
    });

    /** Whether the last `testList` was an unparenthesised tuple (read right after it by `exprOrAssign`). */
    private bareTuple = false;

    /**
     * `a, b, c` (a tuple when a comma is present). A trailing comma is refused, as Starlark does:
     * `prefix_rule(...),` is an accidental one-element tuple, not a call.
     */
    private testList = this.RULE("testList", (): Expr => {
      const first = this.LA(1);
      const items: Expr[] = [this.SUBRULE(this.test)];
      let tuple = false;
      this.MANY({
        GATE: () => EXPR_START.has(this.LA(2).tokenType),
        DEF: () => {
          this.CONSUME(T.Comma);
          tuple = true;
          items.push(this.SUBRULE2(this.test));
        },
      });
      this.OPTION(() => {
        const comma = this.CONSUME2(T.Comma);
        this.ACTION(() => {
          throw new LiteralError(first, `unparenthesised tuple with a trailing comma (the \`,\` at ${comma.startLine}:${comma.startColumn}); remove the comma, or write the tuple in parentheses`, 0);
        });
      });
      this.ACTION(() => { this.bareTuple = tuple; });
      return tuple ? { kind: "tuple", items, pos: pos(first) } : items[0]!;
    });

    private test = this.RULE("test", (): Expr => {
      this.enter();
      const e = this.OR([
        { ALT: () => this.SUBRULE(this.lambda) },
        {
          ALT: () => {
            const first = this.LA(1);
            let e1 = this.SUBRULE(this.orTest);
            this.OPTION(() => {
              this.CONSUME(T.If);
              const cond = this.SUBRULE2(this.orTest);
              this.CONSUME(T.Else);
              const other = this.SUBRULE(this.test);
              e1 = { kind: "conditional", test: cond, then: e1, otherwise: other, pos: pos(first) };
            });
            return e1;
          },
        },
      ]);
      this.leave();
      return e;
    });

    private lambda = this.RULE("lambda", (): Expr => {
      const t = this.CONSUME(T.Lambda);
      const params: Param[] = [];
      // Parameters with an optional trailing comma (`lambda a,: a` is valid Starlark).
      this.OPTION(() => {
        params.push(this.SUBRULE(this.param));
        this.MANY({
          GATE: () => this.LA(2).tokenType !== T.Colon,
          DEF: () => {
            this.CONSUME(T.Comma);
            params.push(this.SUBRULE2(this.param));
          },
        });
        this.OPTION2(() => this.CONSUME2(T.Comma));
      });
      this.CONSUME(T.Colon);
      const body = this.SUBRULE(this.test);
      return { kind: "lambda", params, body, pos: pos(t) };
    });

    private orTest = this.RULE("orTest", (): Expr => {
      let left = this.SUBRULE(this.andTest);
      this.MANY(() => {
        const t = this.CONSUME(T.Or);
        const right = this.SUBRULE2(this.andTest);
        left = { kind: "logical", op: "or", left, right, pos: pos(t) };
      });
      return left;
    });

    private andTest = this.RULE("andTest", (): Expr => {
      let left = this.SUBRULE(this.notTest);
      this.MANY(() => {
        const t = this.CONSUME(T.And);
        const right = this.SUBRULE2(this.notTest);
        left = { kind: "logical", op: "and", left, right, pos: pos(t) };
      });
      return left;
    });

    private notTest = this.RULE("notTest", (): Expr =>
      this.OR([
        {
          ALT: () => {
            const t = this.CONSUME(T.Not);
            this.enter();
            const operand = this.SUBRULE(this.notTest);
            this.leave();
            return { kind: "unary", op: "not", operand, pos: pos(t) } as Expr;
          },
        },
        { ALT: () => this.SUBRULE(this.comparison) },
      ]),
    );

    private comparison = this.RULE("comparison", (): Expr => {
      let left = this.SUBRULE(this.bitOr);
      this.MANY(() => {
        const t = this.LA(1);
        const op = this.OR([
          { ALT: () => this.CONSUME(T.EqEq).image as BinaryOp },
          { ALT: () => this.CONSUME(T.NotEq).image as BinaryOp },
          { ALT: () => this.CONSUME(T.LtEq).image as BinaryOp },
          { ALT: () => this.CONSUME(T.GtEq).image as BinaryOp },
          { ALT: () => this.CONSUME(T.Lt).image as BinaryOp },
          { ALT: () => this.CONSUME(T.Gt).image as BinaryOp },
          { ALT: () => { this.CONSUME(T.In); return "in" as BinaryOp; } },
          { ALT: () => { this.CONSUME(T.Not); this.CONSUME2(T.In); return "not in" as BinaryOp; } },
        ]);
        const right = this.SUBRULE2(this.bitOr);
        left = { kind: "binary", op, left, right, pos: pos(t) };
      });
      return left;
    });

    private bitOr = this.RULE("bitOr", (): Expr => {
      let left = this.SUBRULE(this.shift);
      this.MANY(() => {
        const t = this.OR([
          { ALT: () => this.CONSUME(T.Pipe) },
          { ALT: () => this.CONSUME(T.Amp) },
          { ALT: () => this.CONSUME(T.Caret) },
        ]);
        const right = this.SUBRULE2(this.shift);
        left = { kind: "binary", op: t.image as BinaryOp, left, right, pos: pos(t) };
      });
      return left;
    });

    /** `<<` and `>>`, binding tighter than the bitwise operators and looser than `+`/`-`, as in Starlark. */
    private shift = this.RULE("shift", (): Expr => {
      let left = this.SUBRULE(this.arith);
      this.MANY(() => {
        const t = this.OR([{ ALT: () => this.CONSUME(T.LShift) }, { ALT: () => this.CONSUME(T.RShift) }]);
        const right = this.SUBRULE2(this.arith);
        left = { kind: "binary", op: t.image as BinaryOp, left, right, pos: pos(t) };
      });
      return left;
    });

    private arith = this.RULE("arith", (): Expr => {
      let left = this.SUBRULE(this.term);
      this.MANY(() => {
        const t = this.OR([{ ALT: () => this.CONSUME(T.Plus) }, { ALT: () => this.CONSUME(T.Minus) }]);
        const right = this.SUBRULE2(this.term);
        left = { kind: "binary", op: t.image as BinaryOp, left, right, pos: pos(t) };
      });
      return left;
    });

    private term = this.RULE("term", (): Expr => {
      let left = this.SUBRULE(this.factor);
      this.MANY(() => {
        const t = this.OR([
          { ALT: () => this.CONSUME(T.Star) },
          { ALT: () => this.CONSUME(T.SlashSlash) },
          { ALT: () => this.CONSUME(T.Slash) },
          { ALT: () => this.CONSUME(T.Percent) },
        ]);
        const right = this.SUBRULE2(this.factor);
        left = { kind: "binary", op: t.image as BinaryOp, left, right, pos: pos(t) };
      });
      return left;
    });

    private factor = this.RULE("factor", (): Expr =>
      this.OR([
        {
          ALT: () => {
            const t = this.OR2([
              { ALT: () => this.CONSUME(T.Minus) },
              { ALT: () => this.CONSUME(T.Plus) },
              { ALT: () => this.CONSUME(T.Tilde) },
            ]);
            this.enter();
            const operand = this.SUBRULE(this.factor);
            this.leave();
            return { kind: "unary", op: t.image as "-" | "+" | "~", operand, pos: pos(t) } as Expr;
          },
        },
        { ALT: () => this.SUBRULE(this.primary) },
      ]),
    );

    private primary = this.RULE("primary", (): Expr => {
      const start = pos(this.LA(1));
      let e = this.SUBRULE(this.operand);
      this.MANY(() => {
        this.OR([
          {
            ALT: () => {
              this.CONSUME(T.LParen);
              const args = this.SUBRULE(this.args);
              this.CONSUME(T.RParen);
              e = { kind: "call", callee: e, args, pos: start };
            },
          },
          { ALT: () => { e = this.SUBRULE(this.subscript, { ARGS: [e] }); } },
          {
            ALT: () => {
              this.CONSUME(T.Dot);
              const name = this.CONSUME(T.Identifier);
              e = { kind: "attr", object: e, name: name.image, pos: pos(name) };
            },
          },
        ]);
      });
      return e;
    });

    private subscript = this.RULE("subscript", (object: Expr): Expr => {
      const t = this.CONSUME(T.LBracket);
      let start: Expr | undefined;
      let stop: Expr | undefined;
      let step: Expr | undefined;
      let isSlice = false;
      this.OPTION(() => { start = this.SUBRULE(this.test); });
      this.OPTION2(() => {
        this.CONSUME(T.Colon);
        isSlice = true;
        this.OPTION3(() => { stop = this.SUBRULE2(this.test); });
        this.OPTION4(() => {
          this.CONSUME2(T.Colon);
          this.OPTION5(() => { step = this.SUBRULE3(this.test); });
        });
      });
      this.CONSUME(T.RBracket);
      return this.ACTION((): Expr => {
        if (isSlice) return { kind: "slice", object, start, stop, step, pos: pos(t) };
        if (!start) throw new LiteralError(t, "empty subscript", 0);
        return { kind: "index", object, index: start, pos: pos(t) };
      });
    });

    private args = this.RULE("args", (): Arg[] => {
      const out: Arg[] = [];
      this.OPTION(() => {
        out.push(this.SUBRULE(this.arg));
        this.MANY({
          GATE: () => this.LA(2).tokenType !== T.RParen,
          DEF: () => {
            this.CONSUME(T.Comma);
            out.push(this.SUBRULE2(this.arg));
          },
        });
        this.OPTION2(() => this.CONSUME2(T.Comma));
      });
      return out;
    });

    private arg = this.RULE("arg", (): Arg =>
      this.OR([
        {
          GATE: () => this.LA(1).tokenType === T.Identifier && this.LA(2).tokenType === T.Assign,
          ALT: () => {
            const name = this.CONSUME(T.Identifier);
            this.CONSUME(T.Assign);
            return { kind: "keyword", name: name.image, value: this.SUBRULE(this.test), pos: pos(name) } as Arg;
          },
        },
        {
          ALT: () => {
            const t = this.CONSUME(T.StarStar);
            return { kind: "starstar", value: this.SUBRULE2(this.test), pos: pos(t) } as Arg;
          },
        },
        {
          ALT: () => {
            const t = this.CONSUME(T.Star);
            return { kind: "star", value: this.SUBRULE3(this.test), pos: pos(t) } as Arg;
          },
        },
        {
          ALT: () => {
            const t = this.LA(1);
            return { kind: "positional", value: this.SUBRULE4(this.test), pos: pos(t) } as Arg;
          },
        },
      ]),
    );

    private operand = this.RULE("operand", (): Expr =>
      this.OR([
        { ALT: () => { const t = this.CONSUME(T.Identifier); return { kind: "name", name: t.image, pos: pos(t) } as Expr; } },
        { ALT: () => { const t = this.CONSUME(T.Int); return { kind: "literal", value: this.ACTION(() => this.int(t)), pos: pos(t) } as Expr; } },
        { ALT: () => { const t = this.CONSUME(T.Float); return { kind: "float", value: this.ACTION(() => Number(t.image)), pos: pos(t) } as Expr; } },
        { ALT: () => this.SUBRULE(this.stringLit) },
        { ALT: () => ({ kind: "literal", value: null, pos: pos(this.CONSUME(T.None)) }) as Expr },
        { ALT: () => ({ kind: "literal", value: true, pos: pos(this.CONSUME(T.True)) }) as Expr },
        { ALT: () => ({ kind: "literal", value: false, pos: pos(this.CONSUME(T.False)) }) as Expr },
        { ALT: () => this.SUBRULE(this.listExpr) },
        { ALT: () => this.SUBRULE(this.dictExpr) },
        { ALT: () => this.SUBRULE(this.parenExpr) },
        {
          ALT: () => {
            const t = this.CONSUME(T.Reserved);
            return this.ACTION((): Expr => {
              throw new LiteralError(t, `cannot use reserved keyword \`${t.image}\` (not supported in policy files)`, 0);
            });
          },
        },
      ]),
    );

    private stringLit = this.RULE("stringLit", (): Expr => {
      const t = this.CONSUME(T.StringLit);
      return this.ACTION((): Expr => {
        if (/^[rb]{0,2}f/.test(t.image)) return { kind: "fstring", parts: this.fstringParts(t), pos: pos(t) };
        const d = this.decode(t);
        return { kind: "literal", value: d.value, pos: pos(t) };
      });
    });

    private listExpr = this.RULE("listExpr", (): Expr => {
      const t = this.CONSUME(T.LBracket);
      const items: Expr[] = [];
      let comp: CompClause[] | undefined;
      this.OPTION(() => {
        items.push(this.SUBRULE(this.test));
        this.OR([
          { ALT: () => { comp = this.SUBRULE(this.compClauses); } },
          {
            ALT: () => {
              this.MANY({
                GATE: () => this.LA(2).tokenType !== T.RBracket,
                DEF: () => {
                  this.CONSUME(T.Comma);
                  items.push(this.SUBRULE2(this.test));
                },
              });
              this.OPTION2(() => this.CONSUME2(T.Comma));
            },
          },
        ]);
      });
      this.CONSUME(T.RBracket);
      if (comp) return { kind: "comprehension", result: "list", element: items[0]!, clauses: comp, pos: pos(t) };
      return { kind: "list", items, pos: pos(t) };
    });

    private dictExpr = this.RULE("dictExpr", (): Expr => {
      const t = this.CONSUME(T.LBrace);
      const entries: Array<[Expr, Expr]> = [];
      let comp: CompClause[] | undefined;
      this.OPTION(() => {
        const k = this.SUBRULE(this.test);
        this.CONSUME(T.Colon);
        const v = this.SUBRULE2(this.test);
        entries.push([k, v]);
        this.OR([
          { ALT: () => { comp = this.SUBRULE(this.compClauses); } },
          {
            ALT: () => {
              this.MANY({
                GATE: () => this.LA(2).tokenType !== T.RBrace,
                DEF: () => {
                  this.CONSUME(T.Comma);
                  const k2 = this.SUBRULE3(this.test);
                  this.CONSUME2(T.Colon);
                  const v2 = this.SUBRULE4(this.test);
                  entries.push([k2, v2]);
                },
              });
              this.OPTION2(() => this.CONSUME2(T.Comma));
            },
          },
        ]);
      });
      this.CONSUME(T.RBrace);
      if (comp) {
        const [k, v] = entries[0]!;
        return { kind: "comprehension", result: "dict", element: k, value: v, clauses: comp, pos: pos(t) };
      }
      return { kind: "dict", entries, pos: pos(t) };
    });

    private parenExpr = this.RULE("parenExpr", (): Expr => {
      const t = this.CONSUME(T.LParen);
      const items: Expr[] = [];
      let tuple = false;
      this.OPTION(() => {
        items.push(this.SUBRULE(this.test));
        this.MANY({
          GATE: () => this.LA(2).tokenType !== T.RParen,
          DEF: () => {
            this.CONSUME(T.Comma);
            tuple = true;
            items.push(this.SUBRULE2(this.test));
          },
        });
        this.OPTION2(() => {
          this.CONSUME2(T.Comma);
          tuple = true;
        });
      });
      this.CONSUME(T.RParen);
      if (items.length === 1 && !tuple) return items[0]!;
      return { kind: "tuple", items, pos: pos(t) };
    });

    private compClauses = this.RULE("compClauses", (): CompClause[] => {
      const out: CompClause[] = [];
      const forClause = (): void => {
        const t = this.CONSUME(T.For);
        const target = this.SUBRULE(this.targetList);
        this.CONSUME(T.In);
        const iterable = this.SUBRULE(this.orTest);
        out.push({ kind: "for", target, iterable, pos: pos(t) });
      };
      forClause();
      this.MANY(() => {
        this.OR([
          {
            ALT: () => {
              const t = this.CONSUME2(T.For);
              const target = this.SUBRULE2(this.targetList);
              this.CONSUME2(T.In);
              const iterable = this.SUBRULE2(this.orTest);
              out.push({ kind: "for", target, iterable, pos: pos(t) });
            },
          },
          {
            ALT: () => {
              const t = this.CONSUME(T.If);
              out.push({ kind: "if", test: this.SUBRULE3(this.orTest), pos: pos(t) });
            },
          },
        ]);
      });
      return out;
    });

    /** An f-string field parsed as an expression: `test` and nothing after it. */
    public fieldExpr = this.RULE("fieldExpr", (): Expr => {
      const e = this.SUBRULE(this.test);
      this.CONSUME(chev.EOF);
      return e;
    });

    /** Literal text and parsed `{expr}` fields of f-string token `t` (fields parsed by a nested parser). */
    private fstringParts(t: IToken): Array<string | FStringField> {
      let specs: ReturnType<typeof splitFStringImage>;
      try {
        specs = splitFStringImage(t.image);
      } catch (e) {
        if (e instanceof StringDecodeError) throw new LiteralError(t, e.message, e.offset);
        throw e;
      }
      return specs.map((p) => {
        if (typeof p === "string") return p;
        const before = t.image.slice(0, p.offset);
        const nl = before.lastIndexOf("\n");
        const line = (t.startLine ?? 1) + (before.match(/\n/g)?.length ?? 0);
        const column = nl < 0 ? (t.startColumn ?? 1) + p.offset : p.offset - nl;
        return { expr: parseField(tokenizeFragment(currentSource!, p.text, line, column), t), repr: p.repr };
      });
    }

    private decode(t: IToken): ReturnType<typeof decodeStringLiteral> {
      try {
        return decodeStringLiteral(t.image);
      } catch (e) {
        // Located at the literal's start, like the other literal errors.
        if (e instanceof StringDecodeError) throw new LiteralError(t, e.message, 0);
        throw e;
      }
    }
    private str(t: IToken): string {
      return this.decode(t).value;
    }
    private int(t: IToken): number {
      const img = t.image;
      // Leading zeros are refused, as in Starlark (`010` would be octal in C and decimal in JavaScript).
    if (/^0\d/.test(img)) throw new LiteralError(t, `integer literal ${img} has leading zeros, which are not allowed (write 0o${img.replace(/^0+/, "") || "0"} for octal)`, 0);
    const v = /^0[xob]/i.test(img) ? Number(img.toLowerCase()) : Number(img);
      if (!Number.isSafeInteger(v)) throw new LiteralError(t, `integer literal out of range: ${img}`, 0);
      return v;
    }
  }

  return new StarlarkParser();
}

type StarlarkParser = ReturnType<typeof createParser>;

/** Parsers by nesting level: 0 parses files, level n parses f-string fields at f-string depth n. */
const parsers: StarlarkParser[] = [];
let level = 0;
/** f-strings nested inside f-string fields deeper than this are refused (each level is a parser). */
const MAX_FSTRING_NESTING = 4;
/** The source being parsed (for locating errors in f-string fields). */
let currentSource: SourceText | undefined;

function parserAt(n: number): StarlarkParser {
  parsers[n] ??= createParser(tokens());
  return parsers[n]!;
}

/** A syntax error inside an f-string field, already located in the file. */
class FieldSyntaxError extends Error {
  constructor(readonly diagnostic: ReturnType<typeof syntaxDiagnostic>) {
    super(diagnostic.message);
  }
}

/** Parse the tokens of one f-string field (of token `t`) as an expression. */
function parseField(input: IToken[], t: IToken): Expr {
  if (level + 1 > MAX_FSTRING_NESTING) throw new LiteralError(t, `f-strings nested deeper than ${MAX_FSTRING_NESTING} levels`, 0);
  const T = tokens();
  if (input.length === 0) throw new LiteralError(t, "f-string: empty `{}` (expected an expression)", 0);
  level++;
  try {
    const p = parserAt(level);
    p.resetDepth();
    p.input = input;
    const e = p.fieldExpr();
    const err = p.errors[0];
    if (err) {
      if (err.token.tokenType === T.Reserved) throw new LiteralError(err.token, `cannot use reserved keyword \`${err.token.image}\` (not supported in policy files)`, 0);
      const d = syntaxDiagnostic(err, input, p, T, err.token.startLine ?? 1, "fieldExpr");
      // The end of a field's tokens is its closing brace.
      throw new FieldSyntaxError({ ...d, message: `f-string field: ${d.message.replace(/end of file/g, "`}`")}` });
    }
    return e;
  } finally {
    level--;
  }
}

/**
 * chevrotain's grammar validation errors (ambiguities, left recursion, unreachable alternatives)
 * for this grammar; empty when the grammar is sound. For tests: builds a fresh, validated parser.
 */
export function grammarDefinitionErrors(): string[] {
  try {
    const p = createParser(tokens(), true) as unknown as { definitionErrors: Array<{ message: string }> };
    return p.definitionErrors.map((e) => e.message);
  } catch (e) {
    return [e instanceof Error ? e.message : String(e)];
  }
}

/** Parse a policy source into an AST. Throws `PolicyDiagnosticError` with file:line:col. */
export function parseModule(src: SourceText): Module {
  const input = tokenize(src);
  const T = tokens();
  const parser = parserAt(0);
  level = 0;
  currentSource = src;
  parser.resetDepth();
  parser.input = input;
  let module: Module;
  try {
    module = parser.file();
  } catch (e) {
    if (e instanceof DepthError) {
      throw src.error("NESTING_TOO_DEEP", `expression nested deeper than ${MAX_EXPR_DEPTH} levels`, e.token.startLine ?? 1, e.token.startColumn ?? 1);
    }
    if (e instanceof LiteralError) {
      const code = e.detail.startsWith("integer") ? "INVALID_NUMBER" : e.detail.startsWith("cannot use reserved") ? "UNSUPPORTED_CONSTRUCT" : e.detail.startsWith("invalid") || e.detail.startsWith("trailing") ? "INVALID_ESCAPE" : "SYNTAX_ERROR";
      // Point inside the literal when the error is about a part of it (an escape, an f-string field).
      const before = e.token.image.slice(0, e.offset);
      const nl = before.lastIndexOf("\n");
      const line = (e.token.startLine ?? 1) + (before.match(/\n/g)?.length ?? 0);
      const column = nl < 0 ? (e.token.startColumn ?? 1) + e.offset : e.offset - nl;
      throw src.error(code, e.detail, line, column, e.offset > 0 ? 1 : e.token.image.length);
    }
    if (e instanceof FieldSyntaxError) {
      throw src.error("SYNTAX_ERROR", e.diagnostic.message, e.diagnostic.line, e.diagnostic.column, e.diagnostic.span);
    }
    if (e instanceof RangeError) {
      throw src.error("NESTING_TOO_DEEP", "input nested too deeply to parse", 1, 1);
    }
    throw e;
  }
  const err = parser.errors[0];
  if (err) {
    const tok = err.token;
    if (tok.tokenType === T.Reserved) {
      const line = Number.isFinite(tok.startLine) ? tok.startLine! : src.lineCount;
      const column = Number.isFinite(tok.startColumn) ? tok.startColumn! : 1;
      throw src.error("UNSUPPORTED_CONSTRUCT", `cannot use reserved keyword ${describeToken(tok, T)} (not supported in policy files)`, line, column, Math.max(1, tok.image.length));
    }
    const d = syntaxDiagnostic(err, input, parser, T, src.lineCount);
    throw src.error("SYNTAX_ERROR", d.message, d.line, d.column, d.span);
  }
  return module;
}
