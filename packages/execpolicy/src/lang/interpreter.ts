/**
 * A small tree-walking interpreter for the Starlark subset. It is bounded: a step budget stops
 * runaway loops (`for i in range(10**15)`), recursion is refused as in Starlark, call depth is
 * capped, and value sizes are capped (see `MAX_VALUE_SIZE`). Every failure becomes a
 * `PolicyDiagnosticError` at the position of the operation that failed.
 */
import type { Arg, BinaryOp, CompClause, Expr, Module, Param, Pos, Stmt } from "./ast.js";
import {
  Scope, ValueError, checkInt, isFloat, mkFloat, numeric, checkSize, compare, equals, hashKey, mkDict, mkList, mkTuple, rangeLength, repr, str, truthy, typeName,
} from "./values.js";
import type { DictValue, FunctionValue, ListValue, NativeCall, Value } from "./values.js";
import { getMethod, iterate, methodNames, standardBuiltins } from "./builtins-std.js";
import type { SourceText } from "./source.js";
import { didYouMean } from "./suggest.js";
import { PolicyDiagnosticError } from "../errors.js";
import { DEFAULT_MAX_STEPS, MAX_CALL_DEPTH } from "../limits.js";


const enum Signal { Normal, Break, Continue, Return }

/** Options of one interpreter run. */
export interface InterpretOptions {
  maxSteps?: number;
}

/** Runs one module with the standard builtins plus `extra` predeclared names. */
export class Interpreter {
  private steps = 0;
  private readonly maxSteps: number;
  private pos: Pos = { line: 1, column: 1 };
  private readonly stack: FunctionValue[] = [];
  private returnValue: Value = null;
  private readonly globals: Scope;

  constructor(private readonly src: SourceText, extra: Map<string, Value>, options: InterpretOptions = {}) {
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    const predeclared = new Scope();
    for (const [k, v] of standardBuiltins()) predeclared.vars.set(k, v);
    for (const [k, v] of extra) predeclared.vars.set(k, v);
    this.globals = new Scope(predeclared);
  }

  /** Execute the module. Throws `PolicyDiagnosticError`. */
  run(module: Module): void {
    try {
      const sig = this.exec(module.body, this.globals);
      if (sig !== Signal.Normal) this.fail("SYNTAX_ERROR", "`return`, `break` or `continue` outside of a function or loop");
    } catch (e) {
      throw this.wrap(e);
    }
  }

  private wrap(e: unknown): unknown {
    if (e instanceof PolicyDiagnosticError) return e;
    if (e instanceof ValueError) {
      // Underline the name at the failing position (the callee of a failing call, typically).
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.src.line(this.pos.line).slice(this.pos.column - 1));
      return this.src.error(e.code, e.message, this.pos.line, this.pos.column, word ? word[0].length : 1);
    }
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      return this.src.error("NESTING_TOO_DEEP", "evaluation nested too deeply", this.pos.line, this.pos.column);
    }
    return e;
  }

  private fail(code: ConstructorParameters<typeof ValueError>[0], message: string, keyword?: string): never {
    throw new ValueError(code, message, keyword);
  }

  private charge(n: number): void {
    this.steps += n;
    if (this.steps > this.maxSteps) {
      this.fail("STEP_BUDGET_EXCEEDED", `evaluation exceeded its budget of ${this.maxSteps} steps (an endless or huge loop?)`);
    }
  }

  private exec(body: Stmt[], scope: Scope): Signal {
    for (const s of body) {
      this.charge(1);
      const sig = this.stmt(s, scope);
      if (sig !== Signal.Normal) return sig;
    }
    return Signal.Normal;
  }

  private stmt(s: Stmt, scope: Scope): Signal {
    switch (s.kind) {
      case "expr": this.eval(s.expr, scope); return Signal.Normal;
      case "assign": this.assign(s.target, this.eval(s.value, scope), scope); return Signal.Normal;
      case "augassign": {
        const cur = this.eval(s.target, scope);
        const rhs = this.eval(s.value, scope);
        this.pos = s.pos;
        if (s.op === "+" && isList(cur)) {
          const items = iterate(rhs, this.nativeCtx(), "+=");
          this.mutableList(cur).items.push(...items);
          checkSize(cur.items.length);
          return Signal.Normal;
        }
        this.assign(s.target, this.binary(s.op, cur, rhs), scope);
        return Signal.Normal;
      }
      case "if": {
        for (const b of s.branches) {
          if (truthy(this.eval(b.test, scope))) return this.exec(b.body, scope);
        }
        return s.orelse ? this.exec(s.orelse, scope) : Signal.Normal;
      }
      case "for": return this.forLoop(s, scope);
      case "def": {
        scope.vars.set(s.name, this.makeFunction(s.name, s.params, s.body, scope));
        return Signal.Normal;
      }
      case "return":
        if (this.stack.length === 0) { this.pos = s.pos; this.fail("SYNTAX_ERROR", "`return` outside of a function"); }
        this.returnValue = s.value ? this.eval(s.value, scope) : null;
        return Signal.Return;
      case "break": return Signal.Break;
      case "continue": return Signal.Continue;
      case "pass": return Signal.Normal;
      case "load":
        this.pos = s.pos;
        return this.fail("LOAD_UNSUPPORTED", `\`load\` is not supported: policy files cannot import modules (tried \`${s.module}\`)`);
    }
  }

  private forLoop(s: Extract<Stmt, { kind: "for" }>, scope: Scope): Signal {
    const it = this.eval(s.iterable, scope);
    this.pos = s.pos;
    const run = (v: Value): Signal => {
      this.charge(1);
      this.assign(s.target, v, scope);
      return this.exec(s.body, scope);
    };
    if (it !== null && typeof it === "object" && it.kind === "range") {
      const n = rangeLength(it);
      for (let i = 0; i < n; i++) {
        const sig = run(it.start + i * it.step);
        if (sig === Signal.Break) break;
        if (sig === Signal.Return) return sig;
      }
      return Signal.Normal;
    }
    const holder = it !== null && typeof it === "object" && (it.kind === "list" || it.kind === "dict") ? it : undefined;
    const items = iterate(it, { charge: () => undefined }, "for loop");
    if (holder) holder.iterating++;
    try {
      for (const v of items) {
        const sig = run(v);
        if (sig === Signal.Break) break;
        if (sig === Signal.Return) return sig;
      }
    } finally {
      if (holder) holder.iterating--;
    }
    return Signal.Normal;
  }

  private makeFunction(name: string, params: Param[], body: Stmt[] | Expr, scope: Scope): FunctionValue {
    const defaults = new Map<string, Value>();
    const seen = new Set<string>();
    for (const p of params) {
      const pname = p.kind === "star" ? p.name : p.name;
      if (pname !== undefined) {
        if (seen.has(pname)) { this.pos = p.pos; this.fail("ARGUMENT_ERROR", `duplicate parameter \`${pname}\` in ${name}()`); }
        seen.add(pname);
      }
      if (p.kind === "plain" && p.default) defaults.set(p.name, this.eval(p.default, scope));
    }
    return { kind: "function", name, params, defaults, body, closure: scope };
  }

  private assign(target: Expr, v: Value, scope: Scope): void {
    switch (target.kind) {
      case "name": scope.vars.set(target.name, v); return;
      case "tuple":
      case "list": {
        this.pos = target.pos;
        const items = iterate(v, this.nativeCtx(), "unpacking");
        if (items.length !== target.items.length) {
          this.fail("VALUE_ERROR", `cannot unpack ${items.length} value(s) into ${target.items.length} variable(s)`);
        }
        target.items.forEach((t, i) => this.assign(t, items[i]!, scope));
        return;
      }
      case "index": {
        const obj = this.eval(target.object, scope);
        const key = this.eval(target.index, scope);
        this.pos = target.pos;
        if (isList(obj)) {
          const l = this.mutableList(obj);
          l.items[this.indexOf(l.items.length, key)] = v;
          return;
        }
        if (isDict(obj)) {
          if (obj.frozen || obj.iterating) this.fail("FROZEN_VALUE", "cannot modify a dict while iterating over it");
          obj.map.set(hashKey(key), [key, v]);
          checkSize(obj.map.size);
          return;
        }
        return this.fail("TYPE_ERROR", `${typeName(obj)} does not support item assignment`);
      }
      default:
        this.pos = target.pos;
        return this.fail("SYNTAX_ERROR", "cannot assign to this expression");
    }
  }

  private mutableList(l: ListValue): ListValue {
    if (l.frozen) this.fail("FROZEN_VALUE", "cannot modify a frozen list");
    if (l.iterating) this.fail("FROZEN_VALUE", "cannot modify a list while iterating over it");
    return l;
  }

  private indexOf(n: number, key: Value): number {
    if (typeof key !== "number") this.fail("TYPE_ERROR", `indices must be integers, not ${typeName(key)}`);
    const j = key < 0 ? key + n : key;
    if (j < 0 || j >= n) this.fail("INDEX_ERROR", `index ${key} out of range (length ${n})`);
    return j;
  }

  private nativeCtx(): NativeCall {
    return { args: [], kwargs: [], invoke: (f, a) => this.callValue(f, a, []), charge: (n) => this.charge(n), pos: this.pos };
  }

  /** Evaluate an expression. */
  eval(e: Expr, scope: Scope): Value {
    switch (e.kind) {
      case "literal": return e.value;
      case "float": return mkFloat(e.value);
      case "name": {
        const v = scope.lookup(e.name);
        if (v === undefined) { this.pos = e.pos; this.fail("UNDEFINED_NAME", `name \`${e.name}\` is not defined${didYouMean(e.name, scope.names())}`); }
        return v;
      }
      case "fstring": {
        const out = e.parts.map((p) => {
          if (typeof p === "string") return p;
          const v = this.eval(p.expr, scope);
          return p.repr ? repr(v) : str(v);
        }).join("");
        checkSize(out.length);
        return out;
      }
      case "list": return mkList(e.items.map((x) => this.eval(x, scope)));
      case "tuple": return mkTuple(e.items.map((x) => this.eval(x, scope)));
      case "dict": {
        const d = mkDict();
        for (const [k, v] of e.entries) {
          const kv = this.eval(k, scope);
          const vv = this.eval(v, scope);
          this.pos = k.pos;
          const key = hashKey(kv);
          if (d.map.has(key)) this.fail("KEY_ERROR", `duplicate key ${repr(kv)} in dict literal`);
          d.map.set(key, [kv, vv]);
        }
        return d;
      }
      case "comprehension": return this.comprehension(e, scope);
      case "unary": {
        const v = this.eval(e.operand, scope);
        this.pos = e.pos;
        if (e.op === "not") return !truthy(v);
        if (isFloat(v) && e.op !== "~") return mkFloat(e.op === "-" ? -v.value : v.value);
        if (typeof v !== "number") return this.fail("TYPE_ERROR", `unary ${e.op} is not defined for ${typeName(v)}`);
        return e.op === "-" ? checkInt(-v) : e.op === "+" ? v : ~v;
      }
      case "logical": {
        const l = this.eval(e.left, scope);
        if (e.op === "and" ? !truthy(l) : truthy(l)) return l;
        return this.eval(e.right, scope);
      }
      case "binary": {
        const l = this.eval(e.left, scope);
        const r = this.eval(e.right, scope);
        this.pos = e.pos;
        return this.binary(e.op, l, r);
      }
      case "conditional": return truthy(this.eval(e.test, scope)) ? this.eval(e.then, scope) : this.eval(e.otherwise, scope);
      case "call": return this.call(e, scope);
      case "index": {
        const obj = this.eval(e.object, scope);
        const key = this.eval(e.index, scope);
        this.pos = e.pos;
        return this.index(obj, key);
      }
      case "slice": return this.slice(e, scope);
      case "attr": {
        const obj = this.eval(e.object, scope);
        this.pos = e.pos;
        const m = getMethod(obj, e.name);
        if (!m) this.fail("VALUE_ERROR", `${typeName(obj)} has no attribute \`${e.name}\`${didYouMean(e.name, methodNames(obj))}`);
        return m;
      }
      case "lambda": return this.makeFunction("lambda", e.params, e.body, scope);
    }
  }

  private comprehension(e: Extract<Expr, { kind: "comprehension" }>, scope: Scope): Value {
    const inner = new Scope(scope);
    const list: Value[] = [];
    const dict: DictValue = mkDict();
    const walk = (i: number): void => {
      const clause: CompClause | undefined = e.clauses[i];
      if (!clause) {
        this.charge(1);
        const k = this.eval(e.element, inner);
        if (e.result === "list") { list.push(k); checkSize(list.length); }
        else { const v = this.eval(e.value!, inner); dict.map.set(hashKey(k), [k, v]); checkSize(dict.map.size); }
        return;
      }
      if (clause.kind === "if") {
        if (truthy(this.eval(clause.test, inner))) walk(i + 1);
        return;
      }
      const it = this.eval(clause.iterable, inner);
      this.pos = clause.pos;
      for (const v of iterate(it, this.nativeCtx(), "comprehension")) {
        this.assign(clause.target, v, inner);
        walk(i + 1);
      }
    };
    walk(0);
    return e.result === "list" ? mkList(list) : dict;
  }

  private index(obj: Value, key: Value): Value {
    if (typeof obj === "string") return obj[this.indexOf(obj.length, key)]!;
    if (obj !== null && typeof obj === "object") {
      if (obj.kind === "list" || obj.kind === "tuple") return obj.items[this.indexOf(obj.items.length, key)]!;
      if (obj.kind === "dict") {
        const hit = obj.map.get(hashKey(key));
        if (!hit) this.fail("KEY_ERROR", `key ${repr(key)} not found in dict`);
        return hit[1];
      }
      if (obj.kind === "range") return obj.start + this.indexOf(rangeLength(obj), key) * obj.step;
    }
    return this.fail("TYPE_ERROR", `${typeName(obj)} is not subscriptable`);
  }

  private slice(e: Extract<Expr, { kind: "slice" }>, scope: Scope): Value {
    const obj = this.eval(e.object, scope);
    const num = (x: Expr | undefined): number | undefined => {
      if (!x) return undefined;
      const v = this.eval(x, scope);
      if (v === null) return undefined;
      if (typeof v !== "number") this.fail("TYPE_ERROR", `slice indices must be integers, not ${typeName(v)}`);
      return v;
    };
    const [a, b, c] = [num(e.start), num(e.stop), num(e.step)];
    this.pos = e.pos;
    const step = c ?? 1;
    if (step === 0) this.fail("VALUE_ERROR", "slice step cannot be zero");
    const seq: Value[] | string | undefined = typeof obj === "string" ? obj : obj !== null && typeof obj === "object" && (obj.kind === "list" || obj.kind === "tuple") ? obj.items : undefined;
    if (seq === undefined) return this.fail("TYPE_ERROR", `${typeName(obj)} cannot be sliced`);
    const n = seq.length;
    const clamp = (x: number | undefined, dflt: number, lo: number, hi: number): number => {
      if (x === undefined) return dflt;
      const y = x < 0 ? x + n : x;
      return Math.min(Math.max(y, lo), hi);
    };
    const start = step > 0 ? clamp(a, 0, 0, n) : clamp(a, n - 1, -1, n - 1);
    const stop = step > 0 ? clamp(b, n, 0, n) : clamp(b, -1, -1, n - 1);
    const idx: number[] = [];
    for (let i = start; step > 0 ? i < stop : i > stop; i += step) idx.push(i);
    if (typeof seq === "string") return idx.map((i) => seq[i]).join("");
    const items = idx.map((i) => seq[i]!);
    return isList(obj) ? mkList(items) : mkTuple(items);
  }

  private binary(op: BinaryOp, l: Value, r: Value): Value {
    switch (op) {
      case "==": return equals(l, r);
      case "!=": return !equals(l, r);
      case "<": return compare(l, r) < 0;
      case ">": return compare(l, r) > 0;
      case "<=": return compare(l, r) <= 0;
      case ">=": return compare(l, r) >= 0;
      case "in": return this.contains(r, l);
      case "not in": return !this.contains(r, l);
    }
    if (typeof l === "number" && typeof r === "number" && op === "/") {
      if (r === 0) this.fail("ZERO_DIVISION", "division by zero");
      return mkFloat(l / r);
    }
    const fl = numeric(l);
    const fr = numeric(r);
    if (fl !== undefined && fr !== undefined && (isFloat(l) || isFloat(r))) {
      switch (op) {
        case "+": return mkFloat(fl + fr);
        case "-": return mkFloat(fl - fr);
        case "*": return mkFloat(fl * fr);
        case "/": case "//": case "%":
          if (fr === 0) this.fail("ZERO_DIVISION", "float division by zero");
          return mkFloat(op === "/" ? fl / fr : op === "//" ? Math.floor(fl / fr) : ((fl % fr) + fr) % fr);
      }
    }
    if (typeof l === "number" && typeof r === "number") {
      switch (op) {
        case "+": return checkInt(l + r);
        case "-": return checkInt(l - r);
        case "*": return checkInt(l * r);
        case "//":
          if (r === 0) this.fail("ZERO_DIVISION", "integer division by zero");
          return Math.floor(l / r);
        case "%":
          if (r === 0) this.fail("ZERO_DIVISION", "integer modulo by zero");
          return ((l % r) + r) % r;
        case "<<":
          if (r < 0) this.fail("VALUE_ERROR", "negative shift count");
          return checkInt(l * 2 ** r);
        case ">>":
          if (r < 0) this.fail("VALUE_ERROR", "negative shift count");
          return Math.floor(l / 2 ** r);
        case "|": return l | r;
        case "&": return l & r;
        case "^": return l ^ r;
      }
    }
    if (op === "+") {
      if (typeof l === "string" && typeof r === "string") { checkSize(l.length + r.length); return l + r; }
      if (isList(l) && isList(r)) { checkSize(l.items.length + r.items.length); return mkList([...l.items, ...r.items]); }
      if (isTuple(l) && isTuple(r)) { checkSize(l.items.length + r.items.length); return mkTuple([...l.items, ...r.items]); }
    }
    if (op === "*") {
      const [seq, n] = typeof r === "number" ? [l, r] : [r, l];
      if (typeof n === "number") {
        const k = Math.max(0, n);
        if (typeof seq === "string") { checkSize(seq.length * k); return seq.repeat(k); }
        if (isList(seq) || isTuple(seq)) {
          checkSize(seq.items.length * k);
          const items: Value[] = [];
          for (let i = 0; i < k; i++) items.push(...seq.items);
          return isList(seq) ? mkList(items) : mkTuple(items);
        }
      }
    }
    if (op === "|" && isDict(l) && isDict(r)) {
      const d = mkDict();
      for (const [k, e] of l.map) d.map.set(k, e);
      for (const [k, e] of r.map) d.map.set(k, e);
      return d;
    }
    if (op === "%" && typeof l === "string") return this.percentFormat(l, r);
    return this.fail("TYPE_ERROR", `unsupported operand types for ${op}: ${typeName(l)} and ${typeName(r)}`);
  }

  private percentFormat(fmt: string, arg: Value): string {
    const args = isTuple(arg) ? arg.items : [arg];
    let i = 0;
    const out = fmt.replace(/%([sdr%])/g, (_, c: string) => {
      if (c === "%") return "%";
      if (i >= args.length) this.fail("VALUE_ERROR", "not enough arguments for format string");
      const v = args[i++]!;
      if (c === "d" && typeof v !== "number") this.fail("TYPE_ERROR", `%d format requires an int, not ${typeName(v)}`);
      return c === "r" ? repr(v) : str(v);
    });
    if (i < args.length) this.fail("VALUE_ERROR", "too many arguments for format string");
    checkSize(out.length);
    return out;
  }

  private contains(container: Value, x: Value): boolean {
    if (typeof container === "string") {
      if (typeof x !== "string") this.fail("TYPE_ERROR", `'in <string>' requires a string, not ${typeName(x)}`);
      return container.includes(x);
    }
    if (container !== null && typeof container === "object") {
      switch (container.kind) {
        case "list": case "tuple": this.charge(container.items.length); return container.items.some((v) => equals(v, x));
        case "dict": return container.map.has(hashKey(x));
        case "range":
          return typeof x === "number" && (container.step > 0 ? x >= container.start && x < container.stop : x <= container.start && x > container.stop) && (x - container.start) % container.step === 0;
      }
    }
    return this.fail("TYPE_ERROR", `'in' is not supported for ${typeName(container)}`);
  }

  private call(e: Extract<Expr, { kind: "call" }>, scope: Scope): Value {
    const fn = this.eval(e.callee, scope);
    const args: Value[] = [];
    const kwargs: Array<[string, Value]> = [];
    for (const a of e.args) this.evalArg(a, scope, args, kwargs);
    this.pos = e.pos;
    try {
      return this.callValue(fn, args, kwargs);
    } catch (err) {
      // A misspelt keyword is reported at the keyword, not at the start of the call.
      if (err instanceof ValueError && err.keyword !== undefined) {
        const arg = e.args.find((a) => a.kind === "keyword" && a.name === err.keyword);
        if (arg) this.pos = arg.pos;
        err.keyword = undefined;
      }
      throw err;
    }
  }

  private evalArg(a: Arg, scope: Scope, args: Value[], kwargs: Array<[string, Value]>): void {
    const v = this.eval(a.value, scope);
    this.pos = a.pos;
    switch (a.kind) {
      case "positional": args.push(v); return;
      case "keyword":
        if (kwargs.some(([k]) => k === a.name)) this.fail("ARGUMENT_ERROR", `keyword argument \`${a.name}\` repeated`);
        kwargs.push([a.name, v]);
        return;
      case "star": args.push(...iterate(v, this.nativeCtx(), "*args")); return;
      case "starstar":
        if (!isDict(v)) this.fail("TYPE_ERROR", `**kwargs must be a dict, not ${typeName(v)}`);
        for (const [k, val] of v.map.values()) {
          if (typeof k !== "string") this.fail("TYPE_ERROR", "**kwargs keys must be strings");
          kwargs.push([k, val]);
        }
        return;
    }
  }

  private callValue(fn: Value, args: Value[], kwargs: Array<[string, Value]>): Value {
    this.charge(1);
    if (fn !== null && typeof fn === "object") {
      if (fn.kind === "builtin") {
        const at = this.pos;
        return fn.impl({ args, kwargs, invoke: (f, a) => this.callValue(f, a, []), charge: (n) => this.charge(n), pos: at });
      }
      if (fn.kind === "function") return this.callFunction(fn, args, kwargs);
    }
    return this.fail("TYPE_ERROR", `${typeName(fn)} is not callable`);
  }

  private callFunction(fn: FunctionValue, args: Value[], kwargs: Array<[string, Value]>): Value {
    if (this.stack.includes(fn)) this.fail("RECURSION", `function ${fn.name}() called recursively (Starlark forbids recursion)`);
    if (this.stack.length >= MAX_CALL_DEPTH) this.fail("NESTING_TOO_DEEP", `calls nested deeper than ${MAX_CALL_DEPTH}`);
    const local = new Scope(fn.closure);
    this.bindParams(fn, args, kwargs, local);
    this.stack.push(fn);
    try {
      if (!Array.isArray(fn.body)) return this.eval(fn.body, local);
      const sig = this.exec(fn.body, local);
      if (sig === Signal.Break || sig === Signal.Continue) this.fail("SYNTAX_ERROR", "`break`/`continue` outside of a loop");
      const rv = sig === Signal.Return ? this.returnValue : null;
      this.returnValue = null;
      return rv;
    } finally {
      this.stack.pop();
    }
  }

  private bindParams(fn: FunctionValue, args: Value[], kwargs: Array<[string, Value]>, local: Scope): void {
    const positional: string[] = [];
    let starName: string | undefined;
    let starSeen = false;
    let kwName: string | undefined;
    const all: string[] = [];
    for (const p of fn.params) {
      if (p.kind === "plain") { all.push(p.name); if (!starSeen) positional.push(p.name); }
      else if (p.kind === "star") { starSeen = true; starName = p.name; }
      else kwName = p.name;
    }
    const extra: Value[] = [];
    args.forEach((a, i) => {
      const name = positional[i];
      if (name !== undefined) local.vars.set(name, a);
      else extra.push(a);
    });
    if (extra.length && starName === undefined) this.fail("ARGUMENT_ERROR", `${fn.name}() takes ${positional.length} positional argument(s) but ${args.length} were given`);
    if (starName !== undefined) local.vars.set(starName, mkTuple(extra));
    const kw = mkDict();
    for (const [k, v] of kwargs) {
      if (all.includes(k)) {
        if (local.vars.has(k)) this.fail("ARGUMENT_ERROR", `${fn.name}() got multiple values for argument \`${k}\``);
        local.vars.set(k, v);
      } else if (kwName !== undefined) kw.map.set(hashKey(k), [k, v]);
      else this.fail("ARGUMENT_ERROR", `${fn.name}() got an unexpected keyword argument \`${k}\`${didYouMean(k, all)}`, k);
    }
    if (kwName !== undefined) local.vars.set(kwName, kw);
    for (const name of all) {
      if (local.vars.has(name)) continue;
      const d = fn.defaults.get(name);
      if (d === undefined && !fn.defaults.has(name)) this.fail("ARGUMENT_ERROR", `${fn.name}() missing required argument \`${name}\``);
      local.vars.set(name, d!);
    }
  }
}

function isList(v: Value): v is ListValue {
  return v !== null && typeof v === "object" && v.kind === "list";
}
function isTuple(v: Value): v is Extract<Value, { kind: "tuple" }> {
  return v !== null && typeof v === "object" && v.kind === "tuple";
}
function isDict(v: Value): v is DictValue {
  return v !== null && typeof v === "object" && v.kind === "dict";
}
