/** Path handling for `host_executable` and the basename fallback: `~/` expansion and lexical normalisation. */
import { homedir } from "node:os";
import { posix } from "node:path";

/** Lexically normalise an absolute POSIX path (`.`/`..` removed, duplicate slashes collapsed). */
function normalizeAbsolute(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
}

/**
 * Turn a host path as written in a policy into a normalised absolute path, or return `null`
 * when it is neither absolute nor `~`/`~/...` (e.g. relative, or `~user/...`).
 */
export function expandHostPath(raw: string, home: string = homedir()): string | null {
  if (raw === "~") return normalizeAbsolute(home);
  if (raw.startsWith("~/")) return normalizeAbsolute(posix.join(home, raw.slice(2)));
  if (raw.startsWith("/")) return normalizeAbsolute(raw);
  return null;
}

/** Final path component ("" for `/`). */
export function basename(p: string): string {
  return posix.basename(p);
}

/** Is `name` a bare executable name (one path component that equals the whole string)? */
export function isBareName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0");
}

/**
 * For the basename fallback: the absolute, normalised form of a command's first token, or `null`
 * when the token is a bare name. Relative paths containing a slash (`./git`) are resolved against
 * `cwd`, as the published Codex CLI does; `~/` is expanded.
 */
export function resolveProgramPath(token: string, cwd: string): string | null {
  if (token.startsWith("/")) return normalizeAbsolute(token);
  if (token === "~" || token.startsWith("~/")) return expandHostPath(token);
  if (token.includes("/")) return normalizeAbsolute(posix.resolve(cwd, token));
  return null;
}
