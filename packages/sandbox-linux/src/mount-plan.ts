import fs from "node:fs/promises";
import path from "node:path";
import type { WritableRoot } from "@shellgate/sandbox";

/** The filesystem view of one sandboxed run, decided from the writable roots and denied reads. */
export interface MountPlan {
  /** Bound read-write, outermost first so nested roots are mounted over their parents. */
  writableRoots: string[];
  /** Existing carve-outs re-bound read-only inside the writable roots. */
  readOnly: string[];
  /**
   * Placeholder directories: the first missing component of a carve-out that does not exist yet
   * (`<cwd>/.codex`, `<ws>/.config` for a missing `<ws>/.config/shellgate/rules`), and existing
   * carve-outs that are empty directories (perhaps another run's placeholder). Each is an empty
   * directory on the host, bound read-only onto itself and locked (`--lock-file`) for the run, so
   * nothing can be created at or under it; the backend creates the missing ones before the run and
   * removes them afterwards (see `placeholders.ts`).
   */
  stubs: string[];
  /** Denied-read directories, hidden under an empty read-only tmpfs. */
  maskedDirs: string[];
  /** Denied-read files (and other non-directories), replaced by `/dev/null`. */
  maskedFiles: string[];
  /** Symlinked carve-outs: their targets are protected, the link itself cannot be pinned. */
  unpinnedSymlinks: string[];
  /** A fresh tmpfs on `/tmp`, because `/tmp` is not inside any writable root. */
  privateTmp: boolean;
  /**
   * Directories under a private `/tmp` that must stay visible (read-only): the workspace and the
   * command's cwd when they live there. Writable roots are bound on top of them.
   */
  keepVisible: string[];
}

function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

async function lstatOrUndefined(p: string): Promise<import("node:fs").Stats | undefined> {
  try {
    return await fs.lstat(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/** Whether `dir` is a directory with nothing in it (false when it cannot be read). */
async function isEmptyDir(dir: string): Promise<boolean> {
  let handle: import("node:fs").Dir | undefined;
  try {
    handle = await fs.opendir(dir);
    return (await handle.read()) === null;
  } catch {
    return false;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The shallowest component of `target` below `root` that does not exist. */
async function firstMissing(root: string, target: string): Promise<string | undefined> {
  const parts = path.relative(root, target).split(path.sep).filter(Boolean);
  let current = root;
  for (const part of parts) {
    current = path.join(current, part);
    if (!(await lstatOrUndefined(current))) return current;
  }
  return undefined;
}

/**
 * Turn writable roots (with their read-only carve-outs) and denied-read paths into a mount plan.
 * Reads the filesystem (existence, file kinds) but changes nothing.
 */
export async function planMounts(
  roots: readonly WritableRoot[],
  deniedReadPaths: readonly string[],
  visibleDirs: readonly string[] = [],
): Promise<MountPlan> {
  const privateTmp = !roots.some((r) => isWithin("/tmp", r.root));
  const plan: MountPlan = {
    writableRoots: roots.map((r) => r.root).sort((a, b) => a.length - b.length),
    readOnly: [], stubs: [], maskedDirs: [], maskedFiles: [], unpinnedSymlinks: [], privateTmp, keepVisible: [],
  };
  if (privateTmp) {
    for (const dir of visibleDirs) {
      const real = await fs.realpath(dir).catch(() => undefined);
      if (!real || real === "/tmp" || !isWithin(real, "/tmp")) continue;
      if (roots.some((r) => isWithin(real, r.root)) || plan.keepVisible.includes(real)) continue;
      plan.keepVisible.push(real);
    }
  }
  for (const { root, readOnlySubpaths } of roots) {
    for (const sub of readOnlySubpaths) {
      const stat = await lstatOrUndefined(sub);
      if (stat?.isSymbolicLink()) plan.unpinnedSymlinks.push(sub);
      else if (stat?.isDirectory() && (await isEmptyDir(sub))) addStub(plan, sub);
      else if (stat) plan.readOnly.push(sub);
      else {
        const missing = await firstMissing(root, sub);
        if (missing) addStub(plan, missing);
      }
    }
  }
  for (const denied of deniedReadPaths) {
    let real: string;
    try {
      real = await fs.realpath(denied);
    } catch {
      continue; // nothing there to read; if the command creates it, it is the command's own data
    }
    const stat = await fs.stat(real);
    (stat.isDirectory() ? plan.maskedDirs : plan.maskedFiles).push(real);
  }
  // Inside a read-only carve-out or a hidden directory nothing can be created anyway; a
  // placeholder there would only put a directory into, say, the user's `.git`.
  const covered = [...plan.readOnly, ...plan.maskedDirs];
  plan.stubs = plan.stubs.filter((stub) => !covered.some((dir) => isWithin(stub, dir)));
  return plan;
}

function addStub(plan: MountPlan, dir: string): void {
  if (!plan.stubs.includes(dir)) plan.stubs.push(dir);
}

/** Options for `bwrapArgs` that do not come from the mount plan. */
export interface BwrapArgsOptions {
  network: boolean;
  /** False when the probe found that bwrap cannot mount a fresh `/proc` here. */
  procMount: boolean;
  /** The command's working directory inside the sandbox. */
  cwd: string;
}

/**
 * bubblewrap arguments (up to, not including, the `--`) for a mount plan: no capabilities, read-only root, fresh
 * `/dev` and `/proc`, private `/tmp` unless writable, the writable roots, carve-outs, masks; all
 * namespaces unshared (network too unless granted); dies with its parent; new session so the
 * command cannot inject input into the caller's terminal.
 */
export function bwrapArgs(plan: MountPlan, options: BwrapArgsOptions): string[] {
  // --cap-drop ALL: run as root, bwrap would otherwise leave the command every capability in its
  // user namespace, enough to remount the read-only view read-write (seccomp also refuses mount).
  const args = ["--new-session", "--die-with-parent", "--unshare-all", "--cap-drop", "ALL"];
  if (options.network) args.push("--share-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev");
  if (options.procMount) args.push("--proc", "/proc");
  if (plan.privateTmp) args.push("--tmpfs", "/tmp");
  for (const dir of plan.keepVisible) args.push("--ro-bind", dir, dir);
  for (const root of plan.writableRoots) args.push("--bind", root, root);
  for (const p of plan.readOnly) args.push("--ro-bind", p, p);
  // `--dir` first: should another process have removed the placeholder since the backend created
  // it, bwrap makes it again (an empty directory) rather than failing. The lock tells other
  // processes' cleanups that this sandbox still has the placeholder mounted.
  for (const p of plan.stubs) args.push("--dir", p, "--ro-bind", p, p, "--lock-file", p);
  for (const p of plan.maskedDirs) args.push("--tmpfs", p, "--remount-ro", p);
  for (const p of plan.maskedFiles) args.push("--ro-bind", "/dev/null", p);
  args.push("--chdir", options.cwd);
  return args;
}
