/** Argument binding for native (builtin) functions, with Starlark-style errors. */
import { ValueError, typeName } from "./values.js";
import type { NativeCall, Value } from "./values.js";
import { didYouMean } from "./suggest.js";

/**
 * Bind `call` to the parameter `names` (positional order) of builtin `fn`; the first `required`
 * are mandatory. Returns one slot per name (`undefined` when not passed).
 */
export function bindArgs(fn: string, call: NativeCall, names: readonly string[], required: number): Array<Value | undefined> {
  if (call.args.length > 0 && names.length === 0) {
    throw new ValueError("ARGUMENT_ERROR", `${fn}() takes no arguments, got ${call.args.length}`);
  }
  if (call.args.length > names.length) {
    throw new ValueError("ARGUMENT_ERROR", `${fn}() accepts at most ${names.length} positional argument(s), got ${call.args.length}`);
  }
  const out: Array<Value | undefined> = names.map((_, i) => call.args[i]);
  for (const [k, v] of call.kwargs) {
    const i = names.indexOf(k);
    if (i < 0) throw new ValueError("ARGUMENT_ERROR", `${fn}() got an unexpected keyword argument \`${k}\`${didYouMean(k, names)}`, k);
    if (out[i] !== undefined) throw new ValueError("ARGUMENT_ERROR", `${fn}() got multiple values for argument \`${k}\``);
    out[i] = v;
  }
  for (let i = 0; i < required; i++) {
    if (out[i] === undefined) throw new ValueError("ARGUMENT_ERROR", `${fn}() missing required argument \`${names[i]}\``);
  }
  return out;
}

/**
 * `bindArgs` for the standard builtins and methods, whose parameters are positional-only (as in
 * Starlark: `len(x=[])` and `"a".split(sep=" ")` are errors) except the few listed in `keywords`.
 */
export function bindPositional(fn: string, call: NativeCall, names: readonly string[], required: number, keywords: readonly string[] = []): Array<Value | undefined> {
  const bad = call.kwargs.find(([k]) => !keywords.includes(k));
  if (bad) {
    const why = names.includes(bad[0]) ? " (its parameters are positional-only)" : didYouMean(bad[0], keywords);
    throw new ValueError("ARGUMENT_ERROR", `${fn}() got an unexpected keyword argument \`${bad[0]}\`${why}`, bad[0]);
  }
  return bindArgs(fn, call, names, required);
}

/** Require a value of a given Starlark type for parameter `param` of `fn`. */
export function expectType<T extends Value>(fn: string, param: string, v: Value, want: string, ok: (v: Value) => v is T): T {
  if (!ok(v)) throw new ValueError("TYPE_ERROR", `${fn}(): parameter \`${param}\` must be ${want}, got ${typeName(v)}`);
  return v;
}

export const isInt = (v: Value): v is number => typeof v === "number";
export const isStr = (v: Value): v is string => typeof v === "string";
