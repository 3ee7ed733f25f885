import { readdirSync, readFileSync } from "node:fs";
import { constants as osConstants } from "node:os";

/** Environment variable that marks every process we start, inherited by its descendants. */
export const TAG_ENV = "SHELLGATE_PROCESS_TAG";

/** True where /proc can be walked (Linux); elsewhere tree-kill's `ps` walk is the fallback. */
export const HAS_PROC = process.platform === "linux";

interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  zombie: boolean;
  /** Start time in clock ticks since boot: with the pid, it names one process even after pid reuse. */
  start: string;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may itself contain spaces or ')'; fields follow the last ')'.
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const [state, ppid, pgid, sid] = rest;
  // Field 22 of stat (starttime) is the 20th after the command name.
  const start = rest[19] ?? "";
  return { pid, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), zombie: state === "Z" || state === "X", start };
}

function hasTag(pid: number, needle: Buffer): boolean {
  let env: Buffer;
  try {
    env = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false;
  }
  let at = env.indexOf(needle);
  while (at !== -1) {
    if (at === 0 || env[at - 1] === 0) return true;
    at = env.indexOf(needle, at + 1);
  }
  return false;
}

/** What identifies one tree: its leader (pid = pgid = sid) and the tag its environment carries. */
export interface TreeIdentity {
  pid: number;
  tag: string;
}

/** One process found in a tree: pid plus start time, so a later signal never hits a reused pid. */
export interface TreeMember {
  pid: number;
  start: string;
}

/**
 * Every live process that belongs to the tree on Linux: descendants by parent link, members of the
 * leader's process group or session, and anything carrying the tree's tag in its environment —
 * the last catches grandchildren that double-forked and called setsid (re-parented to init).
 */
export function collectTree(tree: TreeIdentity): TreeMember[] {
  if (!HAS_PROC) return [];
  const self = process.pid;
  const needle = Buffer.from(`${TAG_ENV}=${tree.tag}\0`);
  const stats = new Map<number, ProcStat>();
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const st = readStat(Number(name));
    if (st && st.pid !== self && !st.zombie) stats.set(st.pid, st);
  }
  const found = new Set<number>();
  const children = new Map<number, number[]>();
  for (const st of stats.values()) {
    if (st.pgid === tree.pid || st.sid === tree.pid || st.pid === tree.pid) found.add(st.pid);
    const list = children.get(st.ppid);
    if (list) list.push(st.pid);
    else children.set(st.ppid, [st.pid]);
  }
  for (const st of stats.values()) if (!found.has(st.pid) && hasTag(st.pid, needle)) found.add(st.pid);
  const queue = [...found];
  while (queue.length > 0) {
    const p = queue.pop() as number;
    for (const c of children.get(p) ?? []) {
      if (!found.has(c)) {
        found.add(c);
        queue.push(c);
      }
    }
  }
  return [...found].map((pid) => ({ pid, start: (stats.get(pid) as ProcStat).start }));
}

/** True while the process `m` names is alive: same pid, same start time, not a zombie. */
export function memberAlive(m: TreeMember): boolean {
  const st = readStat(m.pid);
  return st !== undefined && !st.zombie && st.start === m.start;
}

/**
 * True while `pid` is alive and not a zombie, as the kernel says now: a child's exit reaches Node's
 * `exit` event only on a later turn of the event loop.
 */
export function pidAlive(pid: number): boolean {
  if (HAS_PROC) {
    const st = readStat(pid);
    return st !== undefined && !st.zombie;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Sends `signal` to a process, ignoring "no such process" (it already died). */
export function signalPid(pid: number, signal: NodeJS.Signals): void {
  if (!(pid > 0)) return; // 0 or negative would hit our own group
  try {
    process.kill(pid, signal);
  } catch {
    /* gone, or not ours */
  }
}

/** Sends `signal` to the whole process group `pgid`. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  if (!(pgid > 1)) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    /* empty group */
  }
}

/** True while any process is in group `pgid` (zombies count until reaped). */
export function groupAlive(pgid: number): boolean {
  if (!(pgid > 1)) return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** True while any process of the group other than zombies is alive (Linux) or the group answers (elsewhere). */
export function groupHasLiveMembers(pgid: number): boolean {
  if (!groupAlive(pgid)) return false;
  if (!HAS_PROC) return true;
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const st = readStat(Number(name));
    if (st && st.pgid === pgid && !st.zombie) return true;
  }
  return false;
}

const signalNumbers = osConstants.signals as Record<string, number>;
const signalNames = new Map<number, string>(Object.entries(signalNumbers).map(([k, v]) => [v, k]));

/** Signal name → number (`SIGKILL` → 9); undefined when unknown. */
export function signalNumber(name: string): number | undefined {
  return signalNumbers[name];
}

/** Signal number → name (9 → `SIGKILL`); undefined when unknown. */
export function signalName(num: number): string | undefined {
  return signalNames.get(num);
}
