/** Typed AST of the Starlark subset. Every node carries the 1-based line/column where it starts. */

/** Position of a node in its file. */
export interface Pos {
  line: number;
  column: number;
}

/** An expression. */
export type Expr =
  | { kind: "name"; name: string; pos: Pos }
  | { kind: "literal"; value: null | boolean | number | string; pos: Pos }
  | { kind: "float"; value: number; pos: Pos }
  | { kind: "fstring"; parts: Array<string | FStringField>; pos: Pos }
  | { kind: "list"; items: Expr[]; pos: Pos }
  | { kind: "tuple"; items: Expr[]; pos: Pos }
  | { kind: "dict"; entries: Array<[Expr, Expr]>; pos: Pos }
  | { kind: "comprehension"; result: "list" | "dict"; element: Expr; value?: Expr; clauses: CompClause[]; pos: Pos }
  | { kind: "unary"; op: "-" | "+" | "not" | "~"; operand: Expr; pos: Pos }
  | { kind: "binary"; op: BinaryOp; left: Expr; right: Expr; pos: Pos }
  | { kind: "logical"; op: "and" | "or"; left: Expr; right: Expr; pos: Pos }
  | { kind: "conditional"; test: Expr; then: Expr; otherwise: Expr; pos: Pos }
  | { kind: "call"; callee: Expr; args: Arg[]; pos: Pos }
  | { kind: "index"; object: Expr; index: Expr; pos: Pos }
  | { kind: "slice"; object: Expr; start?: Expr; stop?: Expr; step?: Expr; pos: Pos }
  | { kind: "attr"; object: Expr; name: string; pos: Pos }
  | { kind: "lambda"; params: Param[]; body: Expr; pos: Pos };

/** A `{expr}` field of an f-string; `repr` for the `!r` conversion (`!s` and none use `str`). */
export interface FStringField {
  expr: Expr;
  repr: boolean;
}

/** Binary operators (comparison and arithmetic). */
export type BinaryOp =
  | "+" | "-" | "*" | "/" | "//" | "%" | "|" | "&" | "^" | "<<" | ">>"
  | "==" | "!=" | "<" | ">" | "<=" | ">=" | "in" | "not in";

/** A `for`/`if` clause of a comprehension. */
export type CompClause =
  | { kind: "for"; target: Expr; iterable: Expr; pos: Pos }
  | { kind: "if"; test: Expr; pos: Pos };

/** A call argument. */
export type Arg =
  | { kind: "positional"; value: Expr; pos: Pos }
  | { kind: "keyword"; name: string; value: Expr; pos: Pos }
  | { kind: "star"; value: Expr; pos: Pos }
  | { kind: "starstar"; value: Expr; pos: Pos };

/** A function parameter. */
export type Param =
  | { kind: "plain"; name: string; default?: Expr; pos: Pos }
  | { kind: "star"; name?: string; pos: Pos }
  | { kind: "starstar"; name: string; pos: Pos };

/** A statement. */
export type Stmt =
  | { kind: "expr"; expr: Expr; pos: Pos }
  | { kind: "assign"; target: Expr; value: Expr; pos: Pos }
  | { kind: "augassign"; op: BinaryOp; target: Expr; value: Expr; pos: Pos }
  | { kind: "if"; branches: Array<{ test: Expr; body: Stmt[] }>; orelse?: Stmt[]; pos: Pos }
  | { kind: "for"; target: Expr; iterable: Expr; body: Stmt[]; pos: Pos }
  | { kind: "def"; name: string; params: Param[]; body: Stmt[]; pos: Pos }
  | { kind: "return"; value?: Expr; pos: Pos }
  | { kind: "break"; pos: Pos }
  | { kind: "continue"; pos: Pos }
  | { kind: "pass"; pos: Pos }
  | { kind: "load"; module: string; pos: Pos };

/** A parsed file. */
export interface Module {
  body: Stmt[];
}
