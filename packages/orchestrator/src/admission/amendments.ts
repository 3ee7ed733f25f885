import path from "node:path";

/**
 * Prefixes never proposed as "always allow" amendments: bare interpreters and shells, whose
 * approval would allow anything at all (execpolicy spec §8.6). Compared token by token, exactly.
 */
export const REFUSED_AMENDMENT_PREFIXES: readonly (readonly string[])[] = Object.freeze(
  [
    "python3", "python3 -", "python3 -c", "python", "python -", "python -c", "py", "py -3", "pythonw", "pyw",
    "pypy", "pypy3", "git", "bash", "bash -lc", "sh", "sh -c", "sh -lc", "zsh", "zsh -lc", "/bin/zsh",
    "/bin/zsh -lc", "/bin/bash", "/bin/bash -lc", "pwsh", "pwsh -Command", "pwsh -c", "powershell",
    "powershell -Command", "powershell -c", "powershell.exe", "powershell.exe -Command", "powershell.exe -c",
    "env", "sudo", "node", "node -e", "perl", "perl -e", "ruby", "ruby -e", "php", "php -r", "lua", "lua -e",
    "osascript",
  ].map((p) => Object.freeze(p.split(" "))),
);

/** Whether `prefix` is exactly one of the refused amendment prefixes. */
export function isRefusedAmendmentPrefix(prefix: readonly string[]): boolean {
  return REFUSED_AMENDMENT_PREFIXES.some((r) => r.length === prefix.length && r.every((t, i) => t === prefix[i]));
}

/**
 * Whether an allow rule with this literal prefix would match `segment`, including the host-executable
 * fallback that lets a bare program name cover an absolute path to it (`cargo` covers `/usr/bin/cargo`).
 */
export function prefixCovers(prefix: readonly string[], segment: readonly string[]): boolean {
  if (prefix.length === 0 || segment.length < prefix.length) return false;
  const [head, ...rest] = prefix;
  const program = segment[0] ?? "";
  const headMatches =
    program === head || (head !== undefined && !head.includes("/") && path.isAbsolute(program) && path.basename(program) === head);
  return headMatches && rest.every((t, i) => segment[i + 1] === t);
}
