/** Runtime values of the interpreter and the Starlark operations on them. */
import type { Param, Pos, Stmt, Expr } from "./ast.js";
import type { PolicyErrorCode } from "../errors.js";

/** A Starlark list (mutable until frozen). */
export interface ListValue { kind: "list"; items: Value[]; frozen: boolean; iterating: number }
/** A Starlark tuple. */
export interface TupleValue { kind: "tuple"; items: Value[] }
/** A Starlark dict: insertion-ordered, keyed by a canonical key string. */
export interface DictValue { kind: "dict"; map: Map<string, [Value, Value]>; frozen: boolean; iterating: number }
/** A Starlark float (ints are plain JS numbers; floats are boxed so the two stay distinct). */
export interface FloatValue { kind: "float"; value: number }
/** A lazily materialised `range(...)`. */
export interface RangeValue { kind: "range"; start: number; stop: number; step: number }
/** A user function (`def` or `lambda`). */
export interface FunctionValue {
  kind: "function";
  name: string;
  params: Param[];
  defaults: Map<string, Value>;
  body: Stmt[] | Expr;
  closure: Scope;
}
/** Signature of a native builtin. `self` is set for bound methods. */
export type NativeImpl = (call: NativeCall) => Value;
/** Arguments of a native call, already evaluated. */
export interface NativeCall {
  args: Value[];
  kwargs: Array<[string, Value]>;
  /** Call back into the interpreter (for `key=` functions and the like). */
  invoke: (fn: Value, args: Value[]) => Value;
  /** Charge `n` steps against the evaluation budget (for builtins that loop). */
  charge: (n: number) => void;
  /** Where the call expression starts (for builtins that record their call site). */
  pos: Pos;
}
/** A builtin function or a bound method. */
export interface BuiltinValue { kind: "builtin"; name: string; impl: NativeImpl }

/** Any runtime value. `null` is None; numbers are always integers. */
export type Value = null | boolean | number | string | FloatValue | ListValue | TupleValue | DictValue | RangeValue | FunctionValue | BuiltinValue;

/** A lexical scope: names bound here, then the parent. */
export class Scope {
  readonly vars = new Map<string, Value>();
  constructor(readonly parent?: Scope) {}
  lookup(name: string): Value | undefined {
    const v = this.vars.get(name);
    if (v !== undefined || this.vars.has(name)) return v;
    return this.parent?.lookup(name);
  }
  /** Every name visible from this scope (for "did you mean" suggestions). */
  names(): string[] {
    return [...this.vars.keys(), ...(this.parent?.names() ?? [])];
  }
}

/** Thrown by value operations; the interpreter attaches the location. */
export class ValueError extends Error {
  /** The keyword argument the error is about, so the interpreter can point at it rather than the call. */
  keyword: string | undefined;
  constructor(
    readonly code: PolicyErrorCode,
    message: string,
    keyword?: string,
  ) {
    super(message);
    this.keyword = keyword;
  }
}

/** Largest string or collection a policy file may build (keeps hostile files from exhausting memory). */
const MAX_VALUE_SIZE = 1 << 22;

/** Starlark type name of a value (`list`, `string`, `NoneType`, ...). */
export function typeName(v: Value): string {
  if (v === null) return "NoneType";
  switch (typeof v) {
    case "boolean": return "bool";
    case "number": return "int";
    case "string": return "string";
    default: return v.kind;
  }
}

export function mkList(items: Value[]): ListValue {
  return { kind: "list", items, frozen: false, iterating: 0 };
}
export function mkTuple(items: Value[]): TupleValue {
  return { kind: "tuple", items };
}
export function mkDict(): DictValue {
  return { kind: "dict", map: new Map(), frozen: false, iterating: 0 };
}

/** Truthiness as in Starlark. */
export function truthy(v: Value): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case "boolean": return v;
    case "number": return v !== 0;
    case "string": return v.length > 0;
  }
  switch (v.kind) {
    case "list": case "tuple": return v.items.length > 0;
    case "dict": return v.map.size > 0;
    case "range": return rangeLength(v) > 0;
    case "float": return v.value !== 0 && !Number.isNaN(v.value);
    default: return true;
  }
}

export function rangeLength(r: RangeValue): number {
  const n = r.step > 0 ? Math.ceil((r.stop - r.start) / r.step) : Math.ceil((r.start - r.stop) / -r.step);
  return Math.max(0, n);
}

/** Canonical key of a hashable value; throws for unhashable ones. */
export function hashKey(v: Value): string {
  if (v === null) return "N";
  switch (typeof v) {
    case "boolean": return v ? "T" : "F";
    case "number": return `i${v}`;
    case "string": return `s${v}`;
  }
  if (v.kind === "tuple") return `t(${v.items.map(hashKey).join(",")})`;
  if (v.kind === "float") return Number.isInteger(v.value) ? `i${v.value}` : `d${v.value}`;
  if (v.kind === "function" || v.kind === "builtin") return `f${v.name}`;
  throw new ValueError("TYPE_ERROR", `unhashable type: '${typeName(v)}'`);
}

/** Deep equality. */
export function equals(a: Value, b: Value): boolean {
  if (a === b) return true;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined && (isFloat(a) || isFloat(b))) return na === nb;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (a.kind !== b.kind) return false;
  if ((a.kind === "list" || a.kind === "tuple") && (b.kind === "list" || b.kind === "tuple")) {
    return a.items.length === b.items.length && a.items.every((x, i) => equals(x, b.items[i]!));
  }
  if (a.kind === "dict" && b.kind === "dict") {
    if (a.map.size !== b.map.size) return false;
    for (const [k, [, v]] of a.map) {
      const o = b.map.get(k);
      if (!o || !equals(v, o[1])) return false;
    }
    return true;
  }
  if (a.kind === "range" && b.kind === "range") return a.start === b.start && a.stop === b.stop && a.step === b.step;
  return false;
}

/** Ordering for `<` and `sorted`: ints, strings, and sequences of comparable values. */
export function compare(a: Value, b: Value): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object" && a.kind === b.kind && (a.kind === "list" || a.kind === "tuple")) {
    const bi = (b as ListValue | TupleValue).items;
    for (let i = 0; i < Math.min(a.items.length, bi.length); i++) {
      const c = compare(a.items[i]!, bi[i]!);
      if (c !== 0) return c;
    }
    return a.items.length - bi.length;
  }
  throw new ValueError("TYPE_ERROR", `cannot compare ${typeName(a)} with ${typeName(b)}`);
}

/** `repr()` of a value (also used in error messages to echo what was given). */
export function repr(v: Value): string {
  if (v === null) return "None";
  switch (typeof v) {
    case "boolean": return v ? "True" : "False";
    case "number": return String(v);
    case "string": return JSON.stringify(v);
  }
  switch (v.kind) {
    case "list": return `[${v.items.map(repr).join(", ")}]`;
    case "tuple": return v.items.length === 1 ? `(${repr(v.items[0]!)},)` : `(${v.items.map(repr).join(", ")})`;
    case "dict": return `{${[...v.map.values()].map(([k, x]) => `${repr(k)}: ${repr(x)}`).join(", ")}}`;
    case "float": return floatRepr(v.value);
    case "range": return v.step === 1 ? `range(${v.start}, ${v.stop})` : `range(${v.start}, ${v.stop}, ${v.step})`;
    case "function": return `<function ${v.name}>`;
    case "builtin": return `<built-in function ${v.name}>`;
  }
}

/** `str()` of a value: strings are shown bare, everything else as `repr`. */
export function str(v: Value): string {
  return typeof v === "string" ? v : repr(v);
}

/** Check that a new string/collection stays within `MAX_VALUE_SIZE`. */
export function checkSize(n: number): void {
  if (n > MAX_VALUE_SIZE) throw new ValueError("SIZE_LIMIT_EXCEEDED", `value too large (${n} elements; the limit is ${MAX_VALUE_SIZE})`);
}

/** Integer result check: Starlark ints are unbounded, ours stop at 2^53. */
export function checkInt(n: number): number {
  if (!Number.isSafeInteger(n)) throw new ValueError("INT_OVERFLOW", "integer overflow (values beyond ±2^53 are not supported)");
  return n;
}

/** Is `v` a float? */
export function isFloat(v: Value): v is FloatValue {
  return v !== null && typeof v === "object" && v.kind === "float";
}

/** The numeric value of an int or float; `undefined` for anything else. */
export function numeric(v: Value): number | undefined {
  if (typeof v === "number") return v;
  if (isFloat(v)) return v.value;
  return undefined;
}

/** Box a float. */
export function mkFloat(value: number): FloatValue {
  return { kind: "float", value };
}

function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "+inf" : "-inf";
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  return String(x);
}
