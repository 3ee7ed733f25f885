import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { signalGroup, TAG_ENV } from "./proc-tree.js";

/**
 * The host-death watchdog.
 *
 * A SIGKILLed host runs no exit hook, so the guarantee "children die with the host" cannot live in
 * this process. One tiny `/bin/sh` per host, in its own session, reads "a PGID"/"d PGID" lines on a
 * pipe whose only writer is this process. When the host dies for any reason the kernel closes that
 * pipe; the shell sees EOF and kills every registered group plus every process whose environment
 * carries this host's tag (descendants that escaped the group with setsid), TERM then KILL.
 * The script ignores HUP/INT/TERM so a Ctrl-C or terminal hangup aimed at the host cannot disarm it.
 */
const SCRIPT = `trap '' HUP INT TERM QUIT PIPE
tag=$1
groups=' '
while read -r op id; do
  case "$op" in
    a) groups="$groups$id " ;;
    d) case "$groups" in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
sweep() {
  for g in $groups; do kill -s "$1" -- "-$g" 2>/dev/null; done
  for f in $(grep -lsz "^${TAG_ENV}=$tag\\." /proc/[0-9]*/environ 2>/dev/null); do
    p=\${f#/proc/}; p=\${p%/environ}; [ "$p" != "$$" ] && kill -s "$1" "$p" 2>/dev/null
  done
}
sweep TERM
sleep 0.3
sweep KILL
`;

/**
 * Twelve random hex digits from `Math.random`: the token only has to differ between host processes
 * (a process that copies it into its own environment only gets itself reaped), and `node:crypto`
 * would cost several ms of every start-up for its module load.
 */
function randomTag(): string {
  return Math.floor(Math.random() * 2 ** 48).toString(16).padStart(12, "0");
}

/** Token unique to this host process; every tag we hand out starts with it. */
const HOST_TOKEN = `${process.pid.toString(36)}x${randomTag()}`;

let seq = 0;

/** A fresh tag for one tree: `<host token>.<sequence>`. */
export function nextTreeTag(): string {
  seq += 1;
  return `${HOST_TOKEN}.${seq}`;
}

let reaper: ChildProcess | undefined;
let reaperFailed = false;
let restarts = 0;
let exitHooked = false;
const liveGroups = new Set<number>();
// A watchdog that keeps dying is not worth restarting forever; the exit hook still covers normal exits.
const MAX_RESTARTS = 5;

function ensureReaper(): ChildProcess | undefined {
  if (reaper || reaperFailed) return reaper;
  if (!existsSync("/bin/sh")) {
    reaperFailed = true;
    return undefined;
  }
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", onHostExit);
  }
  try {
    const child = spawn("/bin/sh", ["-c", SCRIPT, "shellgate-reaper", HOST_TOKEN], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
      env: { PATH: "/usr/bin:/bin:/usr/sbin:/sbin" },
    });
    child.on("error", () => {
      reaperFailed = true;
      reaper = undefined;
    });
    child.stdin?.on("error", () => {
      /* the watchdog died; its exit handler starts a new one */
    });
    child.once("exit", () => {
      // Someone killed the watchdog: start another and tell it about every live group again.
      if (reaper !== child) return;
      reaper = undefined;
      knownToReaper.clear();
      restarts += 1;
      if (restarts > MAX_RESTARTS) reaperFailed = true;
      else if (liveGroups.size > 0) {
        ensureReaper();
        scheduleFlush();
      }
    });
    // Neither the watchdog nor its pipe may keep the host's event loop alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    reaper = child;
  } catch {
    reaperFailed = true;
  }
  return reaper;
}

// Registrations are batched: waking the watchdog on every spawn costs a context switch per process
// (measured at several ms per spawn on a loaded 2-core machine). Short-lived processes come and go
// between flushes and never reach it; until a group is flushed, the tag sweep alone covers it.
const FLUSH_MS = 100;
const knownToReaper = new Set<number>();
let flushTimer: NodeJS.Timeout | undefined;

function flush(): void {
  flushTimer = undefined;
  let lines = "";
  for (const g of liveGroups) if (!knownToReaper.has(g)) {
    knownToReaper.add(g);
    lines += `a ${g}\n`;
  }
  for (const g of knownToReaper) if (!liveGroups.has(g)) {
    knownToReaper.delete(g);
    lines += `d ${g}\n`;
  }
  if (lines === "") return;
  const r = ensureReaper();
  if (r?.stdin && !r.stdin.destroyed) r.stdin.write(lines);
}

function scheduleFlush(): void {
  if (flushTimer) return;
  flushTimer = setTimeout(flush, FLUSH_MS);
  flushTimer.unref();
}

/** Puts a process group under the watchdog's care for as long as it may have live members. */
export function registerGroup(pgid: number): void {
  // The watchdog must exist before the host can die; starting it is cheap and happens once.
  ensureReaper();
  liveGroups.add(pgid);
  scheduleFlush();
}

/** Releases a process group once nothing of it is left. */
export function unregisterGroup(pgid: number): void {
  if (liveGroups.delete(pgid)) scheduleFlush();
}

/** The host-death watchdog's pid (diagnostics, tests); undefined before the first spawn or when unavailable. */
export function watchdogPid(): number | undefined {
  return reaper?.pid;
}

function onHostExit(): void {
  // Synchronous last words on a normal exit; the watchdog follows up with SIGKILL after its grace.
  for (const g of liveGroups) signalGroup(g, "SIGTERM");
}
