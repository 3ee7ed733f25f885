/** One `-DNAME=VALUE` parameter of a `sandbox-exec` run, referenced in the profile as `(param "NAME")`. */
export interface ProfileParam {
  readonly name: string;
  readonly value: string;
}

/** What the profile says of each kind of path; the prefix of its parameters' names. */
export type ParamKind = "WRITABLE_ROOT" | "READ_ONLY" | "PINNED" | "DENIED_READ";

/**
 * Hands out parameter names for paths, in the order they are added: `WRITABLE_ROOT_0`,
 * `WRITABLE_ROOT_1`, `READ_ONLY_0`… Paths only ever reach the profile this way, so no path text
 * (spaces, quotes, parentheses, non-ASCII) is ever parsed as SBPL.
 */
export class ParamTable {
  readonly #params: ProfileParam[] = [];
  readonly #counts = new Map<ParamKind, number>();

  /** Register `value` under the next name of `kind` and return that name. */
  add(kind: ParamKind, value: string): string {
    if (value.includes("\0")) throw new TypeError(`a profile parameter cannot hold a NUL byte: ${JSON.stringify(value)}`);
    const index = this.#counts.get(kind) ?? 0;
    this.#counts.set(kind, index + 1);
    const name = `${kind}_${index}`;
    this.#params.push({ name, value });
    return name;
  }

  /** Every parameter, in the order added. */
  list(): readonly ProfileParam[] {
    return [...this.#params];
  }
}

/** The `-D` arguments of `sandbox-exec`: `-DNAME=VALUE`, one argv element each (the value may hold `=`). */
export function paramArgs(params: readonly ProfileParam[]): string[] {
  return params.map((p) => `-D${p.name}=${p.value}`);
}

/** The SBPL expression that reads a parameter. Names come from {@link ParamTable}: `[A-Z_0-9]+`, nothing to escape. */
export function paramRef(name: string): string {
  if (!/^[A-Z][A-Z0-9_]*$/.test(name)) throw new TypeError(`not a parameter name: ${JSON.stringify(name)}`);
  return `(param "${name}")`;
}
