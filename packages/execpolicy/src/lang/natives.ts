/** Argument binding for native (builtin) functions, with Starlark-style errors. */
import { ValueError, typeName } from "./values.js";
import type { NativeCall, Value } from "./values.js";

/**
 * Bind `call` to the parameter `names` (positional order) of builtin `fn`; the first `required`
 * are mandatory. Returns one slot per name (`undefined` when not passed).
 */
export function bindArgs(fn: string, call: NativeCall, names: readonly string[], required: number): Array<Value | undefined> {
  if (call.args.length > names.length) {
    throw new ValueError("ARGUMENT_ERROR", `${fn}() accepts at most ${names.length} positional argument(s), got ${call.args.length}`);
  }
  const out: Array<Value | undefined> = names.map((_, i) => call.args[i]);
  for (const [k, v] of call.kwargs) {
    const i = names.indexOf(k);
    if (i < 0) throw new ValueError("ARGUMENT_ERROR", `${fn}() got an unexpected keyword argument \`${k}\``);
    if (out[i] !== undefined) throw new ValueError("ARGUMENT_ERROR", `${fn}() got multiple values for argument \`${k}\``);
    out[i] = v;
  }
  for (let i = 0; i < required; i++) {
    if (out[i] === undefined) throw new ValueError("ARGUMENT_ERROR", `${fn}() missing required argument \`${names[i]}\``);
  }
  return out;
}

/** Require a value of a given Starlark type for parameter `param` of `fn`. */
export function expectType<T extends Value>(fn: string, param: string, v: Value, want: string, ok: (v: Value) => v is T): T {
  if (!ok(v)) throw new ValueError("TYPE_ERROR", `${fn}(): parameter \`${param}\` must be ${want}, got ${typeName(v)}`);
  return v;
}

export const isInt = (v: Value): v is number => typeof v === "number";
export const isStr = (v: Value): v is string => typeof v === "string";
