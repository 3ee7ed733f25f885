import path from "node:path";

/** Whether `child` is `parent` or lies below it, compared as written (no symlinks resolved). */
export function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
