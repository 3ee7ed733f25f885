// What the planner reads of the Windows file system, behind an interface: a plan made on Linux
// (the dry run, the tests) describes a Windows tree that is not there, and on Windows the same
// code reads the real one. Reading only: planning creates nothing.
import fs from "node:fs/promises";

/** One entry as the planner sees it. */
export type WinEntry =
  | { kind: "missing" }
  /** The host cannot tell (a plan made on a non-Windows host with the default view). */
  | { kind: "unknown" }
  | { kind: "file"; path: string }
  | { kind: "dir"; path: string }
  /** A junction (mount point) or a directory symbolic link, with where it points (canonical). */
  | { kind: "junction" | "symlink"; path: string; target: string };

/**
 * A read-only view of a Windows file system. `path` is canonical (see `parseWinPath`); lookups are
 * case-insensitive, and an entry's `path` is the spelling on disk (`C:\ws\.GIT` for `C:\ws\.git`).
 */
export interface WinFsView {
  /** What is at `path`, without following a final junction or link (`lstat`). */
  entry(path: string): Promise<WinEntry>;
  /** A file's text, or undefined when it cannot be read. */
  readText(path: string): Promise<string | undefined>;
}

/** The view a non-Windows host has of Windows paths: nothing can be known. */
export const UNKNOWN_FS: WinFsView = Object.freeze({
  entry: async (): Promise<WinEntry> => ({ kind: "unknown" }),
  readText: async (): Promise<string | undefined> => undefined,
});

/** The real file system through Node (meant for win32, where `fs` speaks Windows paths). */
export function nodeWinFs(): WinFsView {
  return {
    async entry(p) {
      let st;
      try {
        st = await fs.lstat(p);
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR" ? { kind: "missing" } : { kind: "unknown" };
      }
      if (st.isSymbolicLink()) {
        // Node reports junctions as symbolic links on Windows; readlink gives the target of both.
        const target = await fs.readlink(p).catch(() => "");
        return { kind: "junction", path: p, target: target.replace(/^\\\\\?\\/, "") };
      }
      return st.isDirectory() ? { kind: "dir", path: p } : { kind: "file", path: p };
    },
    readText: (p) => fs.readFile(p, "utf8").catch(() => undefined),
  };
}

/** One node of a described tree: a directory (`{}` of children), a file (its text) or a link. */
export type WinTreeNode = string | { readonly [name: string]: WinTreeNode } | { readonly $junction: string } | { readonly $symlink: string };

/**
 * A view of a described tree, for tests and examples: `{ "C:\\ws": { ".GIT": { }, "pkg": { ".git": "gitdir: ../x" } } }`.
 * Top-level keys are canonical absolute paths; names match case-insensitively.
 */
export function treeWinFs(tree: Readonly<Record<string, WinTreeNode>>): WinFsView {
  const entries = new Map<string, Exclude<WinEntry, { kind: "missing" | "unknown" }>>();
  const texts = new Map<string, string>();
  const visit = (p: string, node: WinTreeNode): void => {
    const key = p.toLowerCase();
    if (typeof node === "string") {
      entries.set(key, { kind: "file", path: p });
      texts.set(key, node);
    } else if ("$junction" in node && typeof node.$junction === "string") {
      entries.set(key, { kind: "junction", path: p, target: node.$junction });
    } else if ("$symlink" in node && typeof node.$symlink === "string") {
      entries.set(key, { kind: "symlink", path: p, target: node.$symlink });
    } else {
      entries.set(key, { kind: "dir", path: p });
      for (const [name, child] of Object.entries(node as Record<string, WinTreeNode>)) visit(`${p.replace(/\\$/, "")}\\${name}`, child);
    }
  };
  for (const [top, node] of Object.entries(tree)) {
    // every ancestor of a described path is a directory
    const parts = top.split("\\");
    for (let i = 1; i < parts.length; i++) {
      const anc = parts.slice(0, i).join("\\");
      if (/^[A-Za-z]:$/.test(anc)) entries.set(`${anc}\\`.toLowerCase(), { kind: "dir", path: `${anc}\\` });
      else if (anc !== "" && !anc.endsWith("\\") && i > (top.startsWith("\\\\") ? 3 : 0)) entries.set(anc.toLowerCase(), { kind: "dir", path: anc });
    }
    visit(top, node);
  }
  return {
    entry: async (p) => entries.get(p.toLowerCase()) ?? { kind: "missing" },
    readText: async (p) => texts.get(p.toLowerCase()),
  };
}
