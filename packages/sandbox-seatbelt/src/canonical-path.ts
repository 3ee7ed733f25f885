import path from "node:path";

/**
 * Top-level directories that are symlinks into `/private` on macOS. The kernel resolves them before
 * Seatbelt matches a path, so a rule naming `/tmp/x` would never match anything: every path the
 * profile names must be in its `/private` form.
 */
export const DARWIN_PRIVATE_LINKS: readonly string[] = Object.freeze(["/tmp", "/var", "/etc"]);

/**
 * A path as macOS's kernel reports it to Seatbelt: `/tmp`, `/var` and `/etc` (and what lies below
 * them) moved under `/private`. Pure string work: the caller resolves other symlinks first (with the
 * host's filesystem), so that a plan computed on Linux shows what macOS would see. Idempotent
 * (`/private/tmp` stays as it is) and leaves look-alikes such as `/tmpfoo` alone.
 * @throws TypeError for a relative path: Seatbelt only matches absolute ones.
 */
export function toDarwinCanonicalPath(p: string): string {
  if (!path.posix.isAbsolute(p)) throw new TypeError(`not an absolute path: ${JSON.stringify(p)}`);
  const normal = path.posix.normalize(p);
  const trimmed = normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
  for (const link of DARWIN_PRIVATE_LINKS) {
    if (trimmed === link || trimmed.startsWith(`${link}/`)) return `/private${trimmed}`;
  }
  return trimmed;
}
