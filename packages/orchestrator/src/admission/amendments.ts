import path from "node:path";
import { arbitraryCodePrefix } from "@shellgate/execpolicy";

/**
 * Why "always allow" must never be written for `prefix`, or `undefined` when it may be: a prefix
 * that lets any code through (an interpreter, shell or command wrapper followed only by options,
 * see execpolicy's `arbitraryCodePrefix`), or a program named by a relative path (it is whatever
 * file sits there when the command runs, usually one the workspace holds).
 */
export function amendmentPrefixRefusal(prefix: readonly string[]): string | undefined {
  const program = prefix[0];
  if (program === undefined || program === "") return "it is empty";
  if (!path.isAbsolute(program) && (program.includes("/") || program.includes("\\") || program.startsWith("~"))) {
    return `it names its program by the path \`${program}\`, which is whatever file is there when the command runs`;
  }
  const open = arbitraryCodePrefix(prefix);
  return open === undefined ? undefined : `it would allow any command: ${open}`;
}

/** Whether "always allow" is refused for `prefix` (see `amendmentPrefixRefusal`). */
export function isRefusedAmendmentPrefix(prefix: readonly string[]): boolean {
  return amendmentPrefixRefusal(prefix) !== undefined;
}

/**
 * Whether an allow rule with this literal prefix would match `segment`, including the host-executable
 * fallback that lets a bare program name cover an absolute path to it (`cargo` covers `/usr/bin/cargo`)
 * — but never a path a sandboxed command can write (`programWritable`): `npm test` does not cover
 * `/workspace/npm test`. Relative paths (`./npm`) are never covered by a bare name.
 */
export function prefixCovers(
  prefix: readonly string[],
  segment: readonly string[],
  programWritable: (absolutePath: string) => boolean = () => false,
): boolean {
  if (prefix.length === 0 || segment.length < prefix.length) return false;
  const [head, ...rest] = prefix;
  const program = segment[0] ?? "";
  const headMatches =
    program === head ||
    (head !== undefined && !head.includes("/") && path.isAbsolute(program) && path.basename(program) === head && !programWritable(program));
  return headMatches && rest.every((t, i) => segment[i + 1] === t);
}
