// Writable roots and their read-only carve-outs, computed on Windows paths (the shared
// `computeWritableRoots` reads the host's file system with the host's `path`, so on Linux it
// cannot describe `C:\ws`). Same rules as the shared computation: configured roots + the policy
// cwd + the temp directory from the environment; in every root `.git`, `.codex`, `.shellgate`,
// `.agents` existing or not, a `.git` file's `gitdir:` target and its `commondir`, and every
// protected path the caller names; links on the way to a protected path inside a writable
// directory are refused.
import {
  InvalidSandboxPathError,
  PROTECTED_METADATA_NAMES,
  UnpinnableProtectedPathError,
  type GitConfigOrigin,
  type SandboxPolicy,
} from "@shellgate/sandbox";
import { windowsGitCarveOuts } from "./git-config.js";
import type { WinEntry, WinFsView } from "./win-fs.js";
import { isWithinWin, parseWinPath, pathsBetween, resolveFrom, samePath, winJoin, winKey, type WinPathForm } from "./win-path.js";

/** Why a path inside a writable root stays read-only. */
export type CarveOutReason = "metadata" | "gitdir" | "commondir" | "git-config" | "protected";

/** One read-only path inside a writable root. */
export interface WinCarveOut {
  /** Canonical path (the spelling on disk when it exists: `C:\ws\.GIT`). */
  readonly path: string;
  readonly reason: CarveOutReason;
  /** `true`/`false` when the file system view knows, `"unknown"` when it cannot tell (planning off Windows). */
  readonly exists: boolean | "unknown";
  /** For a missing path: its first missing component, where a run puts a placeholder directory. */
  readonly placeholder?: string;
}

/** One writable root with what stays read-only inside it. */
export interface WinWritableRoot {
  /** Canonical path the ACEs go on (a junction's target, when the root was named through one). */
  readonly path: string;
  /** Where it came from. */
  readonly source: "cwd" | "writableRoots" | "temp";
  /** How it was written. */
  readonly form: WinPathForm;
  /** Which capability SID is granted here: the per-cwd one for the policy cwd, the workspace one otherwise. */
  readonly capability: "cwd" | "workspace";
  /** When the root was named through a junction or directory link: the name used. */
  readonly via?: string;
  readonly exists: boolean | "unknown";
  readonly readOnly: readonly WinCarveOut[];
  /** Directories between the root and a carve-out or a nested root, held against rename (deny DELETE). */
  readonly pinned: readonly string[];
}

/** A configured root that is not writable after all, and why. */
export interface DroppedRoot {
  readonly path: string;
  readonly reason: string;
}

/** What `computeWindowsWritableRoots` needs besides the policy. */
export interface WinRootsOptions {
  /** The policy cwd (the workspace). */
  cwd: string;
  /** The command's environment (for `TEMP`/`TMP`/`TMPDIR`; names are case-insensitive on Windows). */
  env: Readonly<Record<string, string>>;
  /** Extra read-only paths (policy files, rules directories, the backend's own files). */
  protectedPaths?: readonly string[];
  fs: WinFsView;
  /** Accept rooted paths without a drive (`/work/ws`): a plan made on a non-Windows host. */
  allowRootedNoDrive?: boolean;
}

export interface WinRoots {
  readonly roots: readonly WinWritableRoot[];
  readonly dropped: readonly DroppedRoot[];
}

/** The value of an environment variable, looked up case-insensitively as Windows does. */
export function envValue(env: Readonly<Record<string, string>>, name: string): string | undefined {
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

function existsOf(e: WinEntry): boolean | "unknown" {
  return e.kind === "unknown" ? "unknown" : e.kind !== "missing";
}

/** The text after `gitdir:` in a `.git` file; undefined when there is none. */
export function parseGitdirLine(text: string): string | undefined {
  const line = text.replace(/^\uFEFF/, "").split(/\r?\n/).find((l) => /^gitdir:/i.test(l.trim()));
  const target = line?.trim().slice("gitdir:".length).trim();
  return target || undefined;
}

/**
 * Follow `path` from inside `root` component by component: refuse a junction or link on the way
 * (a command could re-point it: deleting a junction needs only DELETE, which a writable root
 * grants), and report where the first missing component is.
 */
async function traceInRoot(
  root: string,
  target: string,
  fs: WinFsView,
  origin?: GitConfigOrigin,
): Promise<{ exists: boolean | "unknown"; placeholder?: string; onDisk: string }> {
  const chain = [...pathsBetween(root, target), target];
  for (const p of chain) {
    const e = await fs.entry(p);
    if (e.kind === "unknown") return { exists: "unknown", onDisk: target };
    if (e.kind === "missing") return { exists: false, placeholder: p, onDisk: target };
    if (e.kind === "junction" || e.kind === "symlink") throw new UnpinnableProtectedPathError(target, e.path, root, origin);
    if (samePath(p, target)) return { exists: true, onDisk: e.path };
  }
  return { exists: "unknown", onDisk: target };
}

/**
 * The writable roots of `policy` with their carve-outs, on Windows paths. `read-only`,
 * `danger-full-access` and `external-sandbox` have none. Roots inside a protected path are
 * dropped (a `.git\hooks` root would make git hooks writable); a root inside another root is
 * kept (it may have its own capability) and pins the directories above it.
 * @throws InvalidSandboxPathError for a relative/unparseable root, cwd or protected path, or a root that is a file or missing.
 * @throws UnpinnableProtectedPathError for a protected path reached through a junction or link in a writable directory.
 */
export async function computeWindowsWritableRoots(policy: SandboxPolicy, options: WinRootsOptions): Promise<WinRoots> {
  const parse = (p: string, field: string) => parseWinPath(p, field, { allowRootedNoDrive: options.allowRootedNoDrive === true });
  const cwd = parse(options.cwd, "cwd");
  const protectedPaths = (options.protectedPaths ?? []).map((p, i) => parse(p, `protectedPaths.${i}`).path);
  if (policy.mode !== "workspace-write") return { roots: [], dropped: [] };

  const wanted: Array<{ path: string; source: WinWritableRoot["source"]; form: WinPathForm; field: string }> = [];
  policy.writableRoots.forEach((r, i) => {
    const p = parse(r, `writableRoots.${i}`);
    wanted.push({ path: p.path, source: "writableRoots", form: p.form, field: `writableRoots.${i}` });
  });
  wanted.push({ path: cwd.path, source: "cwd", form: cwd.form, field: "cwd" });
  if (!policy.excludeTmpdirEnvVar) {
    // Windows programs write temporary files to %TEMP% (or %TMP%); $TMPDIR is honoured as elsewhere.
    // An unusable value is left out: it is ambient environment, and leaving it out only narrows.
    for (const name of ["TMPDIR", "TEMP", "TMP"]) {
      const v = envValue(options.env, name);
      if (!v) continue;
      try {
        const p = parse(v, name);
        wanted.push({ path: p.path, source: "temp", form: p.form, field: name });
      } catch {
        continue;
      }
    }
  }

  // Resolve each root: it must be a directory; a junction root is replaced by its target.
  const resolved: Array<{ path: string; source: WinWritableRoot["source"]; form: WinPathForm; via?: string; exists: boolean | "unknown" }> = [];
  for (const w of wanted) {
    const e = await options.fs.entry(w.path);
    if (w.source === "temp" && (e.kind === "missing" || e.kind === "file")) continue;
    if (e.kind === "missing") throw new InvalidSandboxPathError(w.field, w.path, "does not exist");
    if (e.kind === "file") throw new InvalidSandboxPathError(w.field, w.path, "is not a directory");
    if (e.kind === "junction" || e.kind === "symlink") {
      const target = parse(e.target, w.field).path;
      resolved.push({ path: target, source: w.source, form: w.form, via: e.path, exists: existsOf(await options.fs.entry(target)) });
    } else {
      resolved.push({ path: e.kind === "dir" ? e.path : w.path, source: w.source, form: w.form, exists: existsOf(e) });
    }
  }

  // One root per place (case-insensitive); the cwd wins so that it keeps the per-cwd capability.
  const byKey = new Map<string, (typeof resolved)[number]>();
  for (const r of resolved) {
    const prev = byKey.get(winKey(r.path));
    if (!prev || r.source === "cwd") byKey.set(winKey(r.path), r);
  }
  const unique = [...byKey.values()];

  // Every protected path: metadata names in each root, gitdir targets, what git would run or read
  // for each root's repository, caller's paths.
  const carve: Array<{ path: string; reason: CarveOutReason; origin?: GitConfigOrigin }> = [];
  const repos: Array<{ top: string; gitdir: string; common: string }> = [];
  for (const r of unique) {
    for (const name of PROTECTED_METADATA_NAMES) carve.push({ path: winJoin(r.path, name), reason: "metadata" });
    const gitEntry = await options.fs.entry(winJoin(r.path, ".git"));
    if (gitEntry.kind === "dir") repos.push({ top: r.path, gitdir: gitEntry.path, common: gitEntry.path });
    if (gitEntry.kind === "file") {
      const text = await options.fs.readText(gitEntry.path);
      const target = text === undefined ? undefined : parseGitdirLine(text);
      const gitdir = target === undefined ? undefined : resolveFrom(r.path, target);
      if (gitdir) {
        carve.push({ path: gitdir, reason: "gitdir" });
        const common = await options.fs.readText(winJoin(gitdir, "commondir"));
        const commonDir = common?.trim() ? resolveFrom(gitdir, common.trim()) : undefined;
        if (commonDir) carve.push({ path: commonDir, reason: "commondir" });
        repos.push({ top: r.path, gitdir, common: commonDir ?? gitdir });
      }
    }
  }
  const gitTargets = await windowsGitCarveOuts(repos, {
    fs: options.fs,
    env: options.env,
    roots: unique.map((r) => r.path),
    envValue,
    check: async (root, target, origin) => {
      await traceInRoot(root, target, options.fs, origin);
    },
  });
  for (const t of gitTargets) carve.push({ path: t.path, reason: "git-config", ...(t.origin ? { origin: t.origin } : {}) });
  for (const p of protectedPaths) carve.push({ path: p, reason: "protected" });

  const dropped: DroppedRoot[] = [];
  const kept = unique.filter((r) => {
    const inside = carve.find((c) => isWithinWin(r.path, c.path));
    if (inside) dropped.push({ path: r.path, reason: `lies inside the protected path ${inside.path} (${inside.reason}), which stays read-only` });
    return !inside;
  });

  const roots: WinWritableRoot[] = [];
  for (const r of kept) {
    const readOnly: WinCarveOut[] = [];
    const seen = new Set<string>();
    for (const c of carve) {
      if (!isWithinWin(c.path, r.path) || samePath(c.path, r.path) || seen.has(winKey(c.path))) continue;
      // A carve-out that lies in a nested root is that root's business too; both get it.
      seen.add(winKey(c.path));
      const t = await traceInRoot(r.path, c.path, options.fs, c.origin);
      readOnly.push({ path: t.onDisk, reason: c.reason, exists: t.exists, ...(t.placeholder ? { placeholder: t.placeholder } : {}) });
    }
    const pinnedSet = new Map<string, string>();
    const pinTargets = [...readOnly.map((c) => c.placeholder ?? c.path), ...kept.filter((o) => o !== r && isWithinWin(o.path, r.path)).map((o) => o.path)];
    for (const t of pinTargets) for (const d of pathsBetween(r.path, t)) pinnedSet.set(winKey(d), d);
    roots.push({
      path: r.path, source: r.source, form: r.form, capability: r.source === "cwd" ? "cwd" : "workspace",
      ...(r.via ? { via: r.via } : {}), exists: r.exists, readOnly, pinned: [...pinnedSet.values()],
    });
  }
  return { roots, dropped };
}
