// Windows path handling that does not depend on the host: a plan made on Linux must read
// `C:\ws`, `\\server\share\ws` and `\\?\C:\ws` exactly as Windows would. Everything goes through
// `path.win32`, and comparisons are case-insensitive (NTFS directories are case-insensitive
// unless a directory was switched to case sensitivity explicitly, which is rare and not handled).
import path from "node:path";
import { InvalidSandboxPathError } from "@shellgate/sandbox";

const W = path.win32;

/** Characters Windows refuses in a file name (besides the separators and the drive colon). */
const INVALID_CHARS = /[<>"|?*\x00-\x1f]/;

/** How a path was written, kept for the plan so that a reader sees what was understood. */
export type WinPathForm = "drive" | "unc" | "long-drive" | "long-unc" | "rooted-no-drive";

/** A Windows path in one canonical spelling, with how it was written. */
export interface WinPath {
  /** Canonical form: no `\\?\` prefix, backslashes, upper-case drive letter, no trailing backslash (except a drive root). */
  readonly path: string;
  /** How the caller wrote it. */
  readonly form: WinPathForm;
}

/**
 * Parse an absolute Windows path into its canonical form. Accepted: `C:\dir`, `c:/dir`,
 * `\\server\share\dir`, `\\?\C:\dir`, `\\?\UNC\server\share\dir`. Refused: relative paths, `C:dir`
 * (relative to the drive's cwd), device paths (`\\.\`), names with characters Windows forbids (`"`,
 * `<`, `>`, `|`, `?`, `*`). A rooted path without a drive (`\dir`, or a POSIX `/dir`) is accepted
 * only when `allowRootedNoDrive` is set (planning on a non-Windows host), since on Windows it
 * depends on the current drive.
 * @throws InvalidSandboxPathError naming `field`.
 */
export function parseWinPath(input: string, field: string, options: { allowRootedNoDrive?: boolean } = {}): WinPath {
  if (typeof input !== "string" || input === "") throw new InvalidSandboxPathError(field, String(input), "is not a path");
  let rest = input.replaceAll("/", "\\");
  let form: WinPathForm;
  if (/^\\\\\?\\UNC\\/i.test(rest)) {
    rest = `\\\\${rest.slice(8)}`;
    form = "long-unc";
  } else if (/^\\\\\?\\[A-Za-z]:\\/.test(rest)) {
    rest = rest.slice(4);
    form = "long-drive";
  } else if (/^\\\\[.?]\\/.test(rest)) {
    throw new InvalidSandboxPathError(field, input, "is a device path (\\\\.\\ or \\\\?\\ without a drive or UNC share); name a directory on a drive or share");
  } else if (/^\\\\[^\\]+\\[^\\]+/.test(rest)) {
    form = "unc";
  } else if (/^[A-Za-z]:\\/.test(rest)) {
    form = "drive";
  } else if (/^[A-Za-z]:/.test(rest)) {
    throw new InvalidSandboxPathError(field, input, "is relative to the current directory of its drive; write it as an absolute path (C:\\...)");
  } else if (rest.startsWith("\\") && !rest.startsWith("\\\\")) {
    if (!options.allowRootedNoDrive) {
      throw new InvalidSandboxPathError(field, input, "has no drive letter (it would depend on the current drive); write it as C:\\... or \\\\server\\share\\...");
    }
    form = "rooted-no-drive";
  } else {
    throw new InvalidSandboxPathError(field, input, "is not an absolute Windows path");
  }
  const body = form === "drive" || form === "long-drive" ? rest.slice(2) : rest;
  if (INVALID_CHARS.test(body)) throw new InvalidSandboxPathError(field, input, "contains a character Windows does not allow in file names");
  // Long-path syntax turns off normalisation on Windows: `\\?\C:\a\..\b` names a literal `..`.
  // Such names cannot be created by ordinary programs; refuse rather than guess.
  if ((form === "long-drive" || form === "long-unc") && /\\\.{1,2}(\\|$)/.test(rest)) {
    throw new InvalidSandboxPathError(field, input, "uses \\\\?\\ with a . or .. component, which Windows does not resolve there");
  }
  let normal = W.normalize(rest);
  if (/^[a-z]:/.test(normal)) normal = normal[0]!.toUpperCase() + normal.slice(1);
  // Win32 name resolution strips trailing dots and spaces from each name (`C:\ws.` is `C:\ws`).
  if (form !== "long-drive" && form !== "long-unc") normal = normal.split("\\").map((name) => (/^\.+$/.test(name) ? name : name.replace(/[. ]+$/, ""))).join("\\");
  if (normal.length > 3 && normal.endsWith("\\") && !isUncRoot(normal)) normal = normal.slice(0, -1);
  return { path: normal, form };
}

function isUncRoot(p: string): boolean {
  return /^\\\\[^\\]+\\[^\\]+\\?$/.test(p);
}

/** The comparison key of a canonical Windows path: case-insensitive. */
export function winKey(p: string): string {
  return p.toLowerCase();
}

/** Whether two canonical Windows paths name the same place (case-insensitive). */
export function samePath(a: string, b: string): boolean {
  return winKey(a) === winKey(b);
}

/** Whether canonical `child` is `parent` or lies below it (case-insensitive, whole components only). */
export function isWithinWin(child: string, parent: string): boolean {
  const c = winKey(child);
  const p = winKey(parent).replace(/\\$/, "");
  return c === p || c.startsWith(`${p}\\`);
}

/** `base\name…`, canonical (names are joined as written; `..` is normalised as Windows would). */
export function winJoin(base: string, ...names: string[]): string {
  return W.join(base, ...names);
}

/** The directory holding a canonical path (a root is its own parent). */
export function winDirname(p: string): string {
  return W.dirname(p);
}

/** The directories strictly between `ancestor` and `descendant`, outermost first (both canonical). */
export function pathsBetween(ancestor: string, descendant: string): string[] {
  if (!isWithinWin(descendant, ancestor) || samePath(ancestor, descendant)) return [];
  const rel = descendant.slice(ancestor.replace(/\\$/, "").length + 1).split("\\");
  const out: string[] = [];
  let cur = ancestor;
  for (const name of rel.slice(0, -1)) {
    cur = W.join(cur, name);
    out.push(cur);
  }
  return out;
}

/**
 * The spelling handed to Win32 calls: `\\?\C:\…` / `\\?\UNC\server\share\…`, so paths longer than
 * MAX_PATH work and no further normalisation happens. A rooted path without a drive (planning on
 * a non-Windows host only) is returned as it is.
 */
export function toApiPath(p: string): string {
  if (/^[A-Z]:\\/.test(p)) return `\\\\?\\${p}`;
  if (p.startsWith("\\\\")) return `\\\\?\\UNC\\${p.slice(2)}`;
  return p;
}

/** Resolve a `gitdir:` (or `commondir`) value, relative to `base`; git on Windows writes forward slashes. */
export function resolveFrom(base: string, target: string): string | undefined {
  const t = target.replaceAll("/", "\\");
  try {
    if (/^[A-Za-z]:\\/.test(t) || t.startsWith("\\\\")) return parseWinPath(t, "gitdir").path;
    if (/^[A-Za-z]:/.test(t)) return undefined;
    if (t.startsWith("\\")) return /^[A-Z]:/.test(base) ? parseWinPath(`${base.slice(0, 2)}${t}`, "gitdir").path : undefined;
    return W.normalize(W.join(base, t));
  } catch {
    return undefined;
  }
}
