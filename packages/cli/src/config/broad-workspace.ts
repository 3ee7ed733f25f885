import os from "node:os";
import path from "node:path";
import type { BroadRoot, BroadRootReason } from "../errors.js";
import { canonicalPath } from "./trust.js";

function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** The user's home directories to guard: `$HOME` and the account's home, canonical, without duplicates. */
export function homeDirectories(env: Readonly<Record<string, string | undefined>>): string[] {
  const homes: string[] = [];
  const fromEnv = env["HOME"] || env["USERPROFILE"];
  if (fromEnv) homes.push(canonicalPath(fromEnv));
  try {
    homes.push(canonicalPath(os.userInfo().homedir));
  } catch {
    // No passwd entry (a container's arbitrary uid): $HOME is all there is.
  }
  return [...new Set(homes)];
}

function reasonFor(real: string, homes: readonly string[]): BroadRootReason | undefined {
  if (path.parse(real).root === real) return "filesystem-root";
  if (homes.includes(real)) return "home";
  if (homes.some((h) => within(real, h))) return "home-ancestor";
  return undefined;
}

/**
 * The workspace and writable roots that would make `/`, a home directory or an ancestor of one
 * writable (compared by real path).
 */
export function findBroadRoots(cwd: string, writableRoots: readonly string[], homes: readonly string[]): BroadRoot[] {
  const out: BroadRoot[] = [];
  const candidates: Array<{ path: string; source: BroadRoot["source"] }> = [
    { path: cwd, source: "cwd" },
    ...writableRoots.map((p) => ({ path: p, source: "writable-root" as const })),
  ];
  for (const c of candidates) {
    const real = canonicalPath(c.path);
    const reason = reasonFor(real, homes);
    if (reason) out.push({ path: c.path, real, source: c.source, reason });
  }
  return out;
}
