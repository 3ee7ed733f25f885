import fs from "node:fs/promises";
import path from "node:path";

/** Whether `child` is `parent` itself or lies below it (both absolute and canonical). */
export function isPathWithin(child: string, parent: string): boolean {
  if (child === parent) return true;
  const rel = path.relative(parent, child);
  // `..foo` is a child named "..foo"; only `..` itself or `../…` leaves the parent.
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** Error codes that mean "this path, or one of its components, is not there". */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * Canonicalise a path that may not exist yet: the longest existing prefix is resolved with
 * `realpath` (so symlinks and `/var` → `/private/var` style aliases disappear) and the missing
 * tail is appended as written (likewise below a component that cannot be resolved). Carve-outs for paths that do not exist yet must still point at
 * the place the kernel will see when something tries to create them.
 */
export async function canonicalizeLoose(p: string): Promise<string> {
  const absolute = path.resolve(p);
  try {
    return await fs.realpath(absolute);
  } catch {
    // Missing, unreadable or looping: resolve what can be resolved and keep the rest as written.
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    return path.join(await canonicalizeLoose(parent), path.basename(absolute));
  }
}

/** `lstat` that answers `undefined` for a missing path instead of throwing. */
export async function lstatOrUndefined(p: string): Promise<import("node:fs").Stats | undefined> {
  try {
    return await fs.lstat(p);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** `realpath` + `stat` that answers `undefined` when the path (or its target) does not exist. */
export async function realDirectoryOrUndefined(p: string): Promise<string | undefined> {
  try {
    const real = await fs.realpath(p);
    const stat = await fs.stat(real);
    return stat.isDirectory() ? real : undefined;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Sorted, de-duplicated, with every path that lies inside another one of the list removed. */
export function outermostPaths(paths: Iterable<string>): string[] {
  const sorted = [...new Set(paths)].sort();
  const kept: string[] = [];
  for (const p of sorted) {
    if (!kept.some((k) => isPathWithin(p, k))) kept.push(p);
  }
  return kept;
}
