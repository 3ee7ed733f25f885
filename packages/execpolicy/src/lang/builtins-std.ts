/** The common Starlark builtins (`len`, `range`, `str`, `sorted`, ...) and value methods. */
import {
  ValueError, checkInt, checkSize, isFloat, mkFloat, compare, equals, hashKey, mkDict, mkList, mkTuple, rangeLength, repr, str, truthy, typeName,
} from "./values.js";
import type { BuiltinValue, DictValue, ListValue, NativeCall, NativeImpl, Value } from "./values.js";
import { bindPositional, expectType, isInt, isStr } from "./natives.js";

function builtin(name: string, impl: NativeImpl): BuiltinValue {
  return { kind: "builtin", name, impl };
}

/** Iterate any iterable value, charging one step per element. */
export function iterate(v: Value, call: Pick<NativeCall, "charge">, what = "value"): Value[] {
  if (typeof v === "string") throw new ValueError("TYPE_ERROR", `${what}: string is not iterable (use .elems() or list())`);
  if (v !== null && typeof v === "object") {
    switch (v.kind) {
      case "list": case "tuple": call.charge(v.items.length); return v.items.slice();
      case "dict": call.charge(v.map.size); return [...v.map.values()].map(([k]) => k);
      case "range": {
        const n = rangeLength(v);
        call.charge(n);
        checkSize(n);
        const out = new Array<Value>(n);
        for (let i = 0; i < n; i++) out[i] = v.start + i * v.step;
        return out;
      }
    }
  }
  throw new ValueError("TYPE_ERROR", `${what}: ${typeName(v)} is not iterable`);
}

function toInt(v: Value, base: Value | undefined): number {
  if (typeof v === "number") return v;
  if (isFloat(v)) {
    if (!Number.isFinite(v.value)) throw new ValueError("VALUE_ERROR", `cannot convert ${repr(v)} to int`);
    return checkInt(Math.trunc(v.value));
  }
  if (typeof v === "boolean") return Number(v);
  if (typeof v === "string") {
    let b = base === undefined ? 10 : expectType("int", "base", base, "an int", isInt);
    const s = v.trim().toLowerCase();
    const neg = s.startsWith("-");
    // Base 0: the literal's own prefix decides, as for an int literal.
    if (b === 0) {
      const p = /^[+-]?0([xob])/.exec(s)?.[1];
      b = p === "x" ? 16 : p === "o" ? 8 : p === "b" ? 2 : 10;
    }
    const digits = s.replace(/^[+-]/, "").replace(b === 16 ? /^0x/ : b === 8 ? /^0o/ : b === 2 ? /^0b/ : /^$/, "");
    const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, b);
    if (!digits || [...digits].some((c) => !alphabet.includes(c))) throw new ValueError("VALUE_ERROR", `invalid literal for int() with base ${b}: ${repr(v)}`);
    return checkInt((neg ? -1 : 1) * parseInt(digits, b));
  }
  throw new ValueError("TYPE_ERROR", `int() argument must be a string, int or bool, not ${typeName(v)}`);
}

function minmax(name: string, sign: number): BuiltinValue {
  return builtin(name, (call) => {
    const key = call.kwargs.find(([k]) => k === "key")?.[1];
    if (call.kwargs.some(([k]) => k !== "key")) throw new ValueError("ARGUMENT_ERROR", `${name}() accepts only the keyword argument \`key\``);
    const items = call.args.length === 1 ? iterate(call.args[0]!, call, name) : call.args;
    if (items.length === 0) throw new ValueError("VALUE_ERROR", `${name}() of an empty sequence`);
    let best: Value = items[0] as Value;
    // `key=None` is an error (None is not callable), as in Starlark.
    const hasKey = call.kwargs.some(([k]) => k === "key");
    let bestKey: Value = hasKey ? call.invoke(key!, [best]) : best;
    for (const it of items.slice(1)) {
      const k = hasKey ? call.invoke(key!, [it]) : it;
      if (compare(k, bestKey) * sign > 0) { best = it; bestKey = k; }
    }
    return best;
  });
}

/** Predeclared names available in every policy file (besides the policy builtins). */
export function standardBuiltins(): Map<string, Value> {
  const b = new Map<string, Value>();
  const add = (name: string, impl: NativeImpl) => b.set(name, builtin(name, impl));
  add("len", (call) => {
    const [v] = bindPositional("len", call, ["x"], 1);
    if (typeof v === "string") return v.length;
    if (v !== null && typeof v === "object") {
      if (v.kind === "list" || v.kind === "tuple") return v.items.length;
      if (v.kind === "dict") return v.map.size;
      if (v.kind === "range") return rangeLength(v);
    }
    throw new ValueError("TYPE_ERROR", `len(): ${typeName(v!)} has no length`);
  });
  add("range", (call) => {
    const a = bindPositional("range", call, ["start", "stop", "step"], 1).map((v, i) => v === undefined ? undefined : expectType("range", ["start", "stop", "step"][i]!, v, "an int", isInt));
    const [start, stop, step] = a.length && a[1] === undefined ? [0, a[0]!, 1] : [a[0]!, a[1]!, a[2] ?? 1];
    if (step === 0) throw new ValueError("VALUE_ERROR", "range() step must not be zero");
    return { kind: "range", start, stop, step };
  });
  add("str", (call) => str(bindPositional("str", call, ["x"], 1)[0]!));
  add("repr", (call) => repr(bindPositional("repr", call, ["x"], 1)[0]!));
  add("bool", (call) => { const [v] = bindPositional("bool", call, ["x"], 0); return v === undefined ? false : truthy(v); });
  add("int", (call) => { const [v, base] = bindPositional("int", call, ["x", "base"], 0, ["base"]); return v === undefined ? 0 : toInt(v, base); });
  add("float", (call) => {
    const [v] = bindPositional("float", call, ["x"], 0);
    if (v === undefined) return mkFloat(0);
    if (typeof v === "number" || typeof v === "boolean") return mkFloat(Number(v));
    if (isFloat(v)) return v;
    if (typeof v === "string" && /^\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)\s*$/i.test(v)) {
      const t = v.trim().toLowerCase().replace("infinity", "inf");
      return mkFloat(t.endsWith("inf") ? (t.startsWith("-") ? -Infinity : Infinity) : t.endsWith("nan") ? NaN : Number(t));
    }
    throw new ValueError("VALUE_ERROR", `float(): invalid argument ${repr(v)}`);
  });
  add("type", (call) => typeName(bindPositional("type", call, ["x"], 1)[0]!));
  add("list", (call) => { const [v] = bindPositional("list", call, ["x"], 0); return mkList(v === undefined ? [] : iterate(v, call, "list()")); });
  add("tuple", (call) => { const [v] = bindPositional("tuple", call, ["x"], 0); return mkTuple(v === undefined ? [] : iterate(v, call, "tuple()")); });
  add("dict", (call) => {
    if (call.args.length > 1) throw new ValueError("ARGUMENT_ERROR", "dict() accepts at most 1 positional argument");
    const d = mkDict();
    if (call.args[0] !== undefined) dictUpdate(d, call.args[0], call);
    for (const [k, v] of call.kwargs) d.map.set(hashKey(k), [k, v]);
    return d;
  });
  add("sorted", (call) => {
    const [v, key, reverse] = bindPositional("sorted", call, ["iterable", "key", "reverse"], 1, ["key", "reverse"]);
    const items = iterate(v!, call, "sorted()");
    const keyed = items.map((it) => [key !== undefined ? call.invoke(key, [it]) : it, it] as const);
    call.charge(items.length * Math.ceil(Math.log2(items.length + 1)));
    keyed.sort((x, y) => compare(x[0], y[0]));
    if (reverse !== undefined && truthy(reverse)) keyed.reverse();
    return mkList(keyed.map(([, it]) => it));
  });
  add("reversed", (call) => mkList(iterate(bindPositional("reversed", call, ["sequence"], 1)[0]!, call, "reversed()").reverse()));
  add("enumerate", (call) => {
    const [v, start] = bindPositional("enumerate", call, ["iterable", "start"], 1, ["start"]);
    const s = start === undefined ? 0 : expectType("enumerate", "start", start, "an int", isInt);
    return mkList(iterate(v!, call, "enumerate()").map((it, i) => mkTuple([s + i, it])));
  });
  add("zip", (call) => {
    if (call.kwargs.length) throw new ValueError("ARGUMENT_ERROR", "zip() does not accept keyword arguments");
    const lists = call.args.map((a) => iterate(a, call, "zip()"));
    const n = lists.length ? Math.min(...lists.map((l) => l.length)) : 0;
    return mkList(Array.from({ length: n }, (_, i) => mkTuple(lists.map((l) => l[i]!))));
  });
  add("any", (call) => iterate(bindPositional("any", call, ["x"], 1)[0]!, call, "any()").some(truthy));
  add("all", (call) => iterate(bindPositional("all", call, ["x"], 1)[0]!, call, "all()").every(truthy));
  add("abs", (call) => {
    const [v] = bindPositional("abs", call, ["x"], 1);
    if (isFloat(v!)) return mkFloat(Math.abs(v.value));
    return Math.abs(expectType("abs", "x", v!, "an int or float", isInt));
  });
  add("chr", (call) => {
    const i = expectType("chr", "i", bindPositional("chr", call, ["i"], 1)[0]!, "an int", isInt);
    if (i < 0 || i > 0x10ffff) throw new ValueError("VALUE_ERROR", `chr(): ${i} is not a valid Unicode code point`);
    return String.fromCodePoint(i);
  });
  add("ord", (call) => {
    const s = expectType("ord", "s", bindPositional("ord", call, ["s"], 1)[0]!, "a string", isStr);
    const cs = [...s];
    if (cs.length !== 1) throw new ValueError("VALUE_ERROR", `ord(): expected a string of one character, got ${cs.length} characters`);
    return cs[0]!.codePointAt(0)!;
  });
  add("hash", (call) => {
    const s = expectType("hash", "x", bindPositional("hash", call, ["x"], 1)[0]!, "a string", isStr);
    // Java's String.hashCode over UTF-16 units, as Starlark specifies.
    let h = 0;
    for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
    return h;
  });
  b.set("min", minmax("min", -1));
  b.set("max", minmax("max", 1));
  add("hasattr", (call) => { const [v, n] = bindPositional("hasattr", call, ["x", "name"], 2); return methodNames(v!).includes(expectType("hasattr", "name", n!, "a string", isStr)); });
  add("getattr", (call) => {
    const [v, n, d] = bindPositional("getattr", call, ["x", "name", "default"], 2);
    const name = expectType("getattr", "name", n!, "a string", isStr);
    const m = getMethod(v!, name);
    if (m) return m;
    if (d !== undefined) return d;
    throw new ValueError("VALUE_ERROR", `${typeName(v!)} has no attribute \`${name}\``);
  });
  add("dir", (call) => mkList(methodNames(bindPositional("dir", call, ["x"], 1)[0]!).slice().sort()));
  add("fail", (call) => {
    const msg = call.args.map(str).join(" ");
    throw new ValueError("FAIL", `fail: ${msg}`);
  });
  return b;
}

function dictUpdate(d: DictValue, src: Value, call: NativeCall): void {
  if (d.frozen) throw new ValueError("FROZEN_VALUE", "cannot modify a frozen dict");
  if (d.iterating) throw new ValueError("FROZEN_VALUE", "cannot modify a dict while iterating over it");
  if (src !== null && typeof src === "object" && src.kind === "dict") {
    for (const [k, e] of src.map) d.map.set(k, [e[0], e[1]]);
    return;
  }
  for (const pair of iterate(src, call, "dict()")) {
    const items = pair !== null && typeof pair === "object" && (pair.kind === "list" || pair.kind === "tuple") ? pair.items : undefined;
    if (!items || items.length !== 2) throw new ValueError("VALUE_ERROR", `dict(): element ${repr(pair)} is not a key/value pair`);
    d.map.set(hashKey(items[0]!), [items[0]!, items[1]!]);
  }
  checkSize(d.map.size);
}

function mutable(l: ListValue): ListValue {
  if (l.frozen) throw new ValueError("FROZEN_VALUE", "cannot modify a frozen list");
  if (l.iterating) throw new ValueError("FROZEN_VALUE", "cannot modify a list while iterating over it");
  return l;
}

function index(n: number, i: number, what: string): number {
  const j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) throw new ValueError("INDEX_ERROR", `${what} index ${i} out of range (length ${n})`);
  return j;
}

type MethodTable = Record<string, (self: never, call: NativeCall) => Value>;

const STRING_METHODS: MethodTable = {
  join: (s: string, call) => {
    const items = iterate(bindPositional("join", call, ["iterable"], 1)[0]!, call, "join()");
    if (!items.every(isStr)) throw new ValueError("TYPE_ERROR", "join(): every element must be a string");
    const out = (items as string[]).join(s);
    checkSize(out.length);
    return out;
  },
  split: (s: string, call) => {
    const [sep, max] = bindPositional("split", call, ["sep", "maxsplit"], 0);
    const limit = max === undefined || max === null ? -1 : expectType("split", "maxsplit", max, "an int", isInt);
    if (sep === undefined || sep === null) {
      const parts = s.trim().split(/\s+/).filter((x) => x !== "");
      if (limit < 0 || parts.length <= limit) return mkList(parts);
      // Re-split honouring maxsplit on whitespace runs.
      const out: string[] = [];
      let rest = s.replace(/^\s+/, "");
      while (out.length < limit) {
        const m = /\s+/.exec(rest);
        if (!m) break;
        out.push(rest.slice(0, m.index));
        rest = rest.slice(m.index + m[0].length);
      }
      if (rest) out.push(rest);
      return mkList(out);
    }
    const sp = expectType("split", "sep", sep, "a string", isStr);
    if (!sp) throw new ValueError("VALUE_ERROR", "split(): empty separator");
    const parts = s.split(sp);
    if (limit >= 0 && parts.length > limit + 1) return mkList([...parts.slice(0, limit), parts.slice(limit).join(sp)]);
    return mkList(parts);
  },
  strip: (s: string, call) => stripWith(s, call, "strip", true, true),
  lstrip: (s: string, call) => stripWith(s, call, "lstrip", true, false),
  rstrip: (s: string, call) => stripWith(s, call, "rstrip", false, true),
  startswith: (s: string, call) => affix(s, call, "startswith", (x, p) => x.startsWith(p)),
  endswith: (s: string, call) => affix(s, call, "endswith", (x, p) => x.endsWith(p)),
  rsplit: (s: string, call) => {
    const [sep, max] = bindPositional("rsplit", call, ["sep", "maxsplit"], 0);
    const limit = max === undefined || max === null ? -1 : expectType("rsplit", "maxsplit", max, "an int", isInt);
    if (sep === undefined || sep === null) {
      const words = s.trim().split(/\s+/).filter((x) => x !== "");
      if (limit < 0 || words.length <= limit + 1) return mkList(words);
      // Re-split from the right honouring maxsplit on whitespace runs.
      const out: string[] = [];
      let rest = s.replace(/\s+$/, "");
      while (out.length < limit) {
        const m = /\s+(\S*)$/.exec(rest);
        if (!m) break;
        out.unshift(m[1]!);
        rest = rest.slice(0, m.index);
      }
      if (rest) out.unshift(rest);
      return mkList(out);
    }
    const sp = expectType("rsplit", "sep", sep, "a string", isStr);
    if (!sp) throw new ValueError("VALUE_ERROR", "rsplit(): empty separator");
    const parts = s.split(sp);
    if (limit >= 0 && parts.length > limit + 1) return mkList([parts.slice(0, parts.length - limit).join(sp), ...parts.slice(parts.length - limit)]);
    return mkList(parts);
  },
  rfind: (s: string, call) => search(s, call, "rfind", true, false),
  index: (s: string, call) => search(s, call, "index", false, true),
  rindex: (s: string, call) => search(s, call, "rindex", true, true),
  partition: (s: string, call) => partition(s, call, "partition", false),
  rpartition: (s: string, call) => partition(s, call, "rpartition", true),
  removeprefix: (s: string, call) => { const p = expectType("removeprefix", "prefix", bindPositional("removeprefix", call, ["prefix"], 1)[0]!, "a string", isStr); return p && s.startsWith(p) ? s.slice(p.length) : s; },
  removesuffix: (s: string, call) => { const p = expectType("removesuffix", "suffix", bindPositional("removesuffix", call, ["suffix"], 1)[0]!, "a string", isStr); return p && s.endsWith(p) ? s.slice(0, s.length - p.length) : s; },
  title: (s: string, call) => {
    bindPositional("title", call, [], 0);
    let prevCased = false;
    let out = "";
    for (const c of s) {
      const cased = c.toLowerCase() !== c.toUpperCase();
      out += cased ? (prevCased ? c.toLowerCase() : c.toUpperCase()) : c;
      prevCased = cased;
    }
    return out;
  },
  capitalize: (s: string, call) => { bindPositional("capitalize", call, [], 0); const cs = [...s]; return cs.length ? cs[0]!.toUpperCase() + cs.slice(1).join("").toLowerCase() : ""; },
  islower: (s: string, call) => { bindPositional("islower", call, [], 0); return /\p{L}/u.test(s) && s === s.toLowerCase() && s !== s.toUpperCase(); },
  isupper: (s: string, call) => { bindPositional("isupper", call, [], 0); return /\p{L}/u.test(s) && s === s.toUpperCase() && s !== s.toLowerCase(); },
  isalnum: (s: string, call) => { bindPositional("isalnum", call, [], 0); return /^[\p{L}\p{N}]+$/u.test(s); },
  istitle: (s: string, call) => {
    bindPositional("istitle", call, [], 0);
    // Every run of letters starts with an uppercase letter followed only by lowercase ones; at least one letter.
    const runs = s.match(/\p{L}+/gu) ?? [];
    return runs.length > 0 && runs.every((w) => w[0] === w[0]!.toUpperCase() && w[0] !== w[0]!.toLowerCase() && w.slice(1) === w.slice(1).toLowerCase());
  },
  codepoints: (s: string, call) => { bindPositional("codepoints", call, [], 0); return mkList([...s].map((c) => c.codePointAt(0)!)); },
  replace: (s: string, call) => {
    const [a, b2, c] = bindPositional("replace", call, ["old", "new", "count"], 2);
    const old = expectType("replace", "old", a!, "a string", isStr);
    const nw = expectType("replace", "new", b2!, "a string", isStr);
    let n = c === undefined ? -1 : expectType("replace", "count", c, "an int", isInt);
    if (n < 0) { const out = s.split(old).join(nw); checkSize(out.length); return out; }
    let out = s;
    let from = 0;
    while (n-- > 0) {
      const i = out.indexOf(old, from);
      if (i < 0) break;
      out = out.slice(0, i) + nw + out.slice(i + old.length);
      from = i + nw.length;
    }
    return out;
  },
  lower: (s: string, call) => { bindPositional("lower", call, [], 0); return s.toLowerCase(); },
  upper: (s: string, call) => { bindPositional("upper", call, [], 0); return s.toUpperCase(); },
  find: (s: string, call) => search(s, call, "find", false, false),
  count: (s: string, call) => {
    const [sub, start, end] = bindPositional("count", call, ["sub", "start", "end"], 1);
    const needle = expectType("count", "sub", sub!, "a string", isStr);
    const [a, b] = bounds(s.length, start, end, "count");
    const hay = s.slice(a, b);
    return needle ? hay.split(needle).length - 1 : hay.length + 1;
  },
  splitlines: (s: string, call) => {
    const [keep] = bindPositional("splitlines", call, ["keepends"], 0);
    const lines = s.match(/[^\r\n]*(\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
    return mkList(keep !== undefined && truthy(keep) ? lines : lines.map((l) => l.replace(/(\r\n|\r|\n)$/, "")));
  },
  elems: (s: string, call) => { bindPositional("elems", call, [], 0); return mkList([...s]); },
  format: (s: string, call) => {
    let auto = 0;
    const out = s.replace(/\{\{|\}\}|\{([A-Za-z_0-9]*)\}/g, (m, name: string | undefined) => {
      if (m === "{{") return "{";
      if (m === "}}") return "}";
      if (!name) return str(call.args[auto++] ?? missing(m));
      if (/^\d+$/.test(name)) return str(call.args[Number(name)] ?? missing(m));
      return str(call.kwargs.find(([k]) => k === name)?.[1] ?? missing(m));
    });
    checkSize(out.length);
    return out;
  },
  isdigit: (s: string, call) => { bindPositional("isdigit", call, [], 0); return s.length > 0 && /^[0-9]+$/.test(s); },
  isalpha: (s: string, call) => { bindPositional("isalpha", call, [], 0); return s.length > 0 && /^[A-Za-z]+$/.test(s); },
  isspace: (s: string, call) => { bindPositional("isspace", call, [], 0); return s.length > 0 && /^\s+$/.test(s); },
};

function missing(m: string): never {
  throw new ValueError("VALUE_ERROR", `format(): no value for ${m}`);
}

function stripWith(s: string, call: NativeCall, fn: string, left: boolean, right: boolean): string {
  const [c] = bindPositional(fn, call, ["chars"], 0);
  const chars = c === undefined || c === null ? null : expectType(fn, "chars", c, "a string", isStr);
  const isStrip = (ch: string) => (chars === null ? /\s/.test(ch) : chars.includes(ch));
  let a = 0;
  let z = s.length;
  if (left) while (a < z && isStrip(s[a]!)) a++;
  if (right) while (z > a && isStrip(s[z - 1]!)) z--;
  return s.slice(a, z);
}

/** `start`/`end` arguments of the string search methods, clamped like slice indices. */
function bounds(n: number, start: Value | undefined, end: Value | undefined, fn: string): [number, number] {
  const clamp = (v: Value | undefined, dflt: number, name: string): number => {
    if (v === undefined || v === null) return dflt;
    const i = expectType(fn, name, v, "an int", isInt);
    return Math.min(Math.max(i < 0 ? i + n : i, 0), n);
  };
  return [clamp(start, 0, "start"), clamp(end, n, "end")];
}

/** find / rfind / index / rindex. */
function search(s: string, call: NativeCall, fn: string, fromRight: boolean, mustFind: boolean): number {
  const [sub, start, end] = bindPositional(fn, call, ["sub", "start", "end"], 1);
  const needle = expectType(fn, "sub", sub!, "a string", isStr);
  const [a, b] = bounds(s.length, start, end, fn);
  // A start beyond the end finds nothing, not even the empty string.
  const rawStart = typeof start === "number" ? (start < 0 ? start + s.length : start) : 0;
  const hay = s.slice(a, Math.max(a, b));
  const i = rawStart > s.length ? -1 : fromRight ? hay.lastIndexOf(needle) : hay.indexOf(needle);
  if (i < 0 || b < a) {
    if (mustFind) throw new ValueError("VALUE_ERROR", `${fn}(): substring ${repr(needle)} not found`);
    return -1;
  }
  return a + i;
}

/** partition / rpartition. */
function partition(s: string, call: NativeCall, fn: string, fromRight: boolean): Value {
  const sep = expectType(fn, "sep", bindPositional(fn, call, ["sep"], 1)[0]!, "a string", isStr);
  if (!sep) throw new ValueError("VALUE_ERROR", `${fn}(): empty separator`);
  const i = fromRight ? s.lastIndexOf(sep) : s.indexOf(sep);
  if (i < 0) return fromRight ? mkTuple(["", "", s]) : mkTuple([s, "", ""]);
  return mkTuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
}

function affix(s: string, call: NativeCall, fn: string, test: (s: string, p: string) => boolean): boolean {
  const [p, start, end] = bindPositional(fn, call, ["prefix", "start", "end"], 1);
  const [a, b] = bounds(s.length, start, end, fn);
  s = s.slice(a, Math.max(a, b));
  if (typeof p === "string") return test(s, p);
  if (p !== null && typeof p === "object" && p.kind === "tuple" && p.items.every(isStr)) return (p.items as string[]).some((x) => test(s, x));
  throw new ValueError("TYPE_ERROR", `${fn}(): expected a string or tuple of strings, got ${typeName(p!)}`);
}

const LIST_METHODS: MethodTable = {
  append: (l: ListValue, call) => { const [v] = bindPositional("append", call, ["x"], 1); mutable(l).items.push(v!); checkSize(l.items.length); return null; },
  extend: (l: ListValue, call) => { const items = iterate(bindPositional("extend", call, ["x"], 1)[0]!, call, "extend()"); mutable(l).items.push(...items); checkSize(l.items.length); return null; },
  insert: (l: ListValue, call) => {
    const [i, v] = bindPositional("insert", call, ["index", "x"], 2);
    const n = l.items.length;
    let j = expectType("insert", "index", i!, "an int", isInt);
    j = j < 0 ? Math.max(0, j + n) : Math.min(j, n);
    mutable(l).items.splice(j, 0, v!);
    return null;
  },
  pop: (l: ListValue, call) => {
    const [i] = bindPositional("pop", call, ["index"], 0);
    const j = index(l.items.length, i === undefined ? -1 : expectType("pop", "index", i, "an int", isInt), "pop");
    return mutable(l).items.splice(j, 1)[0]!;
  },
  remove: (l: ListValue, call) => {
    const [v] = bindPositional("remove", call, ["x"], 1);
    const j = l.items.findIndex((x) => equals(x, v!));
    if (j < 0) throw new ValueError("VALUE_ERROR", `remove(): ${repr(v!)} not found in list`);
    mutable(l).items.splice(j, 1);
    return null;
  },
  index: (l: ListValue, call) => {
    const [v, start, end] = bindPositional("index", call, ["x", "start", "end"], 1);
    const [a, b] = bounds(l.items.length, start, end, "index");
    const k = l.items.slice(a, Math.max(a, b)).findIndex((x) => equals(x, v!));
    const j = k < 0 ? -1 : a + k;
    if (j < 0) throw new ValueError("VALUE_ERROR", `index(): ${repr(v!)} not found in list`);
    return j;
  },
  clear: (l: ListValue, call) => { bindPositional("clear", call, [], 0); mutable(l).items.length = 0; return null; },
};

const DICT_METHODS: MethodTable = {
  get: (d: DictValue, call) => { const [k, def] = bindPositional("get", call, ["key", "default"], 1); return d.map.get(hashKey(k!))?.[1] ?? (def === undefined ? null : def); },
  // Methods without parameters still bind their (absent) arguments: `d.keys(0)` is an error, as in Starlark.
  keys: (d: DictValue, call) => { bindPositional("keys", call, [], 0); return mkList([...d.map.values()].map(([k]) => k)); },
  values: (d: DictValue, call) => { bindPositional("values", call, [], 0); return mkList([...d.map.values()].map(([, v]) => v)); },
  items: (d: DictValue, call) => { bindPositional("items", call, [], 0); return mkList([...d.map.values()].map(([k, v]) => mkTuple([k, v]))); },
  update: (d: DictValue, call) => {
    if (call.args.length > 1) throw new ValueError("ARGUMENT_ERROR", `update() accepts at most 1 positional argument, got ${call.args.length}`);
    if (call.args[0] !== undefined) dictUpdate(d, call.args[0], call);
    if (call.kwargs.length && (d.frozen || d.iterating)) throw new ValueError("FROZEN_VALUE", "cannot modify this dict now");
    for (const [k, v] of call.kwargs) d.map.set(hashKey(k), [k, v]);
    return null;
  },
  pop: (d: DictValue, call) => {
    const [k, def] = bindPositional("pop", call, ["key", "default"], 1);
    const key = hashKey(k!);
    const e = d.map.get(key);
    if (!e) { if (def !== undefined) return def; throw new ValueError("KEY_ERROR", `pop(): key ${repr(k!)} not found`); }
    if (d.frozen || d.iterating) throw new ValueError("FROZEN_VALUE", "cannot modify this dict now");
    d.map.delete(key);
    return e[1];
  },
  setdefault: (d: DictValue, call) => {
    const [k, def] = bindPositional("setdefault", call, ["key", "default"], 1);
    const key = hashKey(k!);
    const e = d.map.get(key);
    if (e) return e[1];
    if (d.frozen || d.iterating) throw new ValueError("FROZEN_VALUE", "cannot modify this dict now");
    d.map.set(key, [k!, def ?? null]);
    return def ?? null;
  },
  popitem: (d: DictValue, call) => {
    bindPositional("popitem", call, [], 0);
    const first = d.map.entries().next();
    if (first.done) throw new ValueError("KEY_ERROR", "popitem(): dictionary is empty");
    if (d.frozen || d.iterating) throw new ValueError("FROZEN_VALUE", "cannot modify this dict now");
    d.map.delete(first.value[0]);
    return mkTuple([first.value[1][0], first.value[1][1]]);
  },
  clear: (d: DictValue, call) => { bindPositional("clear", call, [], 0); if (d.frozen || d.iterating) throw new ValueError("FROZEN_VALUE", "cannot modify this dict now"); d.map.clear(); return null; },
};

function tableFor(v: Value): MethodTable | undefined {
  if (typeof v === "string") return STRING_METHODS;
  if (v !== null && typeof v === "object") {
    if (v.kind === "list") return LIST_METHODS;
    if (v.kind === "dict") return DICT_METHODS;
  }
  return undefined;
}

/** Names of the methods of `v`'s type. */
export function methodNames(v: Value): string[] {
  return Object.keys(tableFor(v) ?? {});
}

/** Look up method `name` on `v`, bound to `v`; `undefined` when the type has no such method. */
export function getMethod(v: Value, name: string): BuiltinValue | undefined {
  const table = tableFor(v);
  if (!table || !Object.hasOwn(table, name)) return undefined;
  const m = table[name]!;
  return builtin(`${typeName(v)}.${name}`, (call) => m(v as never, call));
}
