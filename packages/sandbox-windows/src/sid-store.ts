// Capability SIDs persisted per workspace, so that ACEs kept on a workspace's roots keep meaning
// the same capability from one run (and one process) to the next. A small JSON file under the
// user's local app data; tests inject a memory store.
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { winKey } from "./win-path.js";

/** The SIDs of one run: the workspace's and its cwd's. */
export interface CapabilitySids {
  readonly workspace: string;
  readonly cwd: string;
  readonly readonly: string;
}

/** Where capability SIDs come from. */
export interface SidStore {
  /** Where it keeps them (for the plan), or a description. */
  readonly location: string;
  /** The SIDs for `workspace` and `cwd` (canonical Windows paths), made and saved on first use. */
  sidsFor(workspace: string, cwd: string): Promise<CapabilitySids>;
}

/**
 * A fresh capability SID: `S-1-5-21-a-b-c-d` with four random 32-bit sub-authorities, the shape of a
 * machine/domain SID, which no real account on the machine has.
 */
export function newCapabilitySid(): string {
  const b = randomBytes(16);
  return `S-1-5-21-${b.readUInt32LE(0)}-${b.readUInt32LE(4)}-${b.readUInt32LE(8)}-${b.readUInt32LE(12)}`;
}

interface StoreFile {
  version: 1;
  readonly: string;
  workspaces: Record<string, { workspace: string; cwds: Record<string, string> }>;
}

const SID_RE = /^S-1-5-21-\d{1,10}-\d{1,10}-\d{1,10}-\d{1,10}$/;

function validFile(data: unknown): data is StoreFile {
  const d = data as StoreFile;
  if (!d || d.version !== 1 || typeof d.readonly !== "string" || !SID_RE.test(d.readonly) || typeof d.workspaces !== "object" || d.workspaces === null) return false;
  return Object.values(d.workspaces).every((w) => typeof w?.workspace === "string" && SID_RE.test(w.workspace) && typeof w.cwds === "object" && w.cwds !== null && Object.values(w.cwds).every((s) => typeof s === "string" && SID_RE.test(s)));
}

function lookup(data: StoreFile, workspace: string, cwd: string): { sids: CapabilitySids; changed: boolean } {
  let changed = false;
  const wk = winKey(workspace);
  let entry = data.workspaces[wk];
  if (!entry) {
    entry = { workspace: newCapabilitySid(), cwds: {} };
    data.workspaces[wk] = entry;
    changed = true;
  }
  const ck = winKey(cwd);
  let cwdSid = entry.cwds[ck];
  if (!cwdSid) {
    cwdSid = newCapabilitySid();
    entry.cwds[ck] = cwdSid;
    changed = true;
  }
  return { sids: { workspace: entry.workspace, cwd: cwdSid, readonly: data.readonly }, changed };
}

/** The store's default file: `%LOCALAPPDATA%\shellgate\sandbox\capability-sids.json`. */
export function defaultSidStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env["LOCALAPPDATA"] ?? path.win32.join(env["USERPROFILE"] ?? "C:\\Users\\Default", "AppData", "Local");
  return path.win32.join(base, "shellgate", "sandbox", "capability-sids.json");
}

/**
 * A store in a JSON file. A file that does not parse as a store is not overwritten silently: the
 * error says which file (the ACEs already on disk name its SIDs).
 */
export function fileSidStore(file: string): SidStore {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    location: file,
    sidsFor(workspace, cwd) {
      // One read-modify-write at a time within this process; the rename keeps the file whole.
      const next = queue.then(async () => {
        let data: StoreFile;
        const text = await fs.readFile(file, "utf8").catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
        if (text === undefined) {
          data = { version: 1, readonly: newCapabilitySid(), workspaces: {} };
        } else {
          const parsed: unknown = JSON.parse(text);
          if (!validFile(parsed)) throw new Error(`${file} is not a shellgate capability SID store (version 1)`);
          data = parsed;
        }
        const { sids, changed } = lookup(data, workspace, cwd);
        if (changed) {
          await fs.mkdir(path.dirname(file), { recursive: true });
          const tmp = `${file}.${process.pid}.tmp`;
          await fs.writeFile(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
          await fs.rename(tmp, file);
        }
        return sids;
      });
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

/** A store in memory (tests, or a caller that keeps no ACEs between processes). */
export function memorySidStore(): SidStore {
  const data: StoreFile = { version: 1, readonly: newCapabilitySid(), workspaces: {} };
  return { location: "memory", sidsFor: async (workspace, cwd) => lookup(data, workspace, cwd).sids };
}
