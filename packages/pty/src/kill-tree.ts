import { createRequire } from "node:module";
import {
  collectTree,
  groupHasLiveMembers,
  HAS_PROC,
  memberAlive,
  signalGroup,
  signalPid,
  type TreeIdentity,
  type TreeMember,
} from "./proc-tree.js";

const POLL_MS = 25;

type TreeKill = (pid: number, signal: string, callback: () => void) => void;
// Only the non-Linux path uses tree-kill; loaded on first use so Linux processes never load it.
let treeKill: TreeKill | undefined;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function treeKillAsync(pid: number, signal: NodeJS.Signals): Promise<void> {
  // tree-kill walks the tree with `ps`; it reports an error when the root is already gone, which is fine.
  treeKill ??= createRequire(import.meta.url)("tree-kill") as TreeKill;
  const kill = treeKill;
  return new Promise((resolve) => kill(pid, signal, () => resolve()));
}

// Processes are remembered with their start time, so a pid that died and was reused by an unrelated
// process during the grace period is never signalled.
type Known = Map<number, TreeMember>;

function signalKnown(known: Known, signal: NodeJS.Signals): void {
  for (const m of known.values()) if (memberAlive(m)) signalPid(m.pid, signal);
}

async function signalTree(tree: TreeIdentity, signal: NodeJS.Signals, known: Known): Promise<void> {
  if (HAS_PROC) {
    for (const m of collectTree(tree)) known.set(m.pid, m);
  } else {
    await treeKillAsync(tree.pid, signal);
  }
  signalGroup(tree.pid, signal);
  signalKnown(known, signal);
}

/**
 * Terminates a whole tree: the first signals (SIGTERM; a PTY adds SIGHUP) to the group and every
 * known descendant (including those that left the group), SIGCONT so stopped ones can act on them,
 * up to `graceMs` for them to go, then SIGKILL to whatever is left, found afresh. Descendants are
 * listed before the first signal, while parent links still point into the tree.
 */
export async function killTree(
  tree: TreeIdentity,
  graceMs: number,
  leaderExited: () => boolean,
  first: readonly NodeJS.Signals[] = ["SIGTERM"],
): Promise<void> {
  const known: Known = new Map();
  for (const s of first) await signalTree(tree, s, known);
  // A stopped process cannot act on TERM/HUP until it is continued; KILL would still work, but only later.
  signalGroup(tree.pid, "SIGCONT");
  signalKnown(known, "SIGCONT");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    // Cheap checks every poll (the group, the processes already known); the full /proc scan, which
    // reads every environment, only when they say the tree is gone — it may find late forks.
    if (leaderExited() && !groupHasLiveMembers(tree.pid) && ![...known.values()].some(memberAlive)) {
      const late = HAS_PROC ? collectTree(tree).filter((m) => !known.has(m.pid)) : [];
      if (late.length === 0) return;
      for (const m of late) {
        known.set(m.pid, m);
        for (const s of first) signalPid(m.pid, s);
        signalPid(m.pid, "SIGCONT");
      }
    }
    await sleep(POLL_MS);
  }
  await signalTree(tree, "SIGKILL", known);
}
