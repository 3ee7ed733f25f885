import { accessSync, constants, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Default cap on the processes (and threads: the kernel counts tasks) of one sandboxed run. */
export const DEFAULT_PROCESS_LIMIT = 4096;

/** Name prefix of the cgroups this package creates, `shellgate-<host pid>-<random>`. */
const PREFIX = "shellgate-";

/** A cgroup directory under which a `pids`-limited child can be created. */
export interface PidsCgroupParent {
  dir: string;
  version: 1 | 2;
}

/** One line of `/proc/self/mountinfo` that mounts a cgroup file system. */
interface CgroupMount {
  root: string;
  mountPoint: string;
  fsType: "cgroup" | "cgroup2";
  superOptions: string[];
}

/** The cgroup mounts in a `/proc/self/mountinfo` text (octal escapes in paths decoded). */
export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const fields = left.split(" ");
    const [fsType, , superOpts] = right.split(" ");
    if ((fsType !== "cgroup" && fsType !== "cgroup2") || fields.length < 5) continue;
    mounts.push({ root: unescape(fields[3] ?? "/"), mountPoint: unescape(fields[4] ?? ""), fsType, superOptions: (superOpts ?? "").split(",") });
  }
  return mounts;
}

/** `/proc/self/cgroup` as a map from controller list (`pids`, `""` for v2) to the cgroup path. */
export function parseProcCgroup(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    for (const controller of (m[1] ?? "").split(",")) map.set(controller, m[2] ?? "/");
  }
  return map;
}

function within(mount: CgroupMount, cgroupPath: string): string | undefined {
  const rel = path.posix.relative(mount.root, cgroupPath);
  if (rel.startsWith("..")) return undefined;
  return path.join(mount.mountPoint, rel);
}

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return fallback;
  }
}

/**
 * Where this process can make a cgroup with a `pids.max`: its own cgroup in the v1 `pids`
 * hierarchy, or in cgroup v2 the nearest of its own cgroup and its ancestors that delegates the
 * `pids` controller to children (`cgroup.subtree_control` lists `pids`), provided the directory is
 * writable by this user. Otherwise the reason why not.
 */
export function findPidsCgroupParent(
  read: (file: string) => string = (f) => readOr(f, ""),
  writable: (dir: string) => boolean = isWritableDir,
): { parent: PidsCgroupParent } | { reason: string } {
  const mounts = parseCgroupMounts(read("/proc/self/mountinfo"));
  const own = parseProcCgroup(read("/proc/self/cgroup"));
  const v1 = mounts.find((m) => m.fsType === "cgroup" && m.superOptions.includes("pids"));
  let candidate: PidsCgroupParent;
  if (v1) {
    const dir = within(v1, own.get("pids") ?? "/");
    if (!dir) return { reason: `this process's pids cgroup lies outside the mounted hierarchy at ${v1.mountPoint}` };
    candidate = { dir, version: 1 };
  } else {
    const v2 = mounts.find((m) => m.fsType === "cgroup2");
    if (!v2) return { reason: "no pids cgroup controller is mounted" };
    const own2 = within(v2, own.get("") ?? "/");
    if (!own2) return { reason: `this process's cgroup lies outside the mounted cgroup2 hierarchy at ${v2.mountPoint}` };
    // A cgroup that has processes (ours does) cannot enable controllers for children, so the run's
    // cgroup goes under the nearest ancestor that does delegate pids (on systemd: the slice above
    // the session scope, or the user's user@UID.service), as long as this user may write there.
    let unwritable: string | undefined;
    for (let dir = own2; ; dir = path.dirname(dir)) {
      const delegated = read(path.join(dir, "cgroup.subtree_control")).split(/\s+/).includes("pids");
      if (delegated && writable(dir)) return { parent: { dir, version: 2 } };
      if (delegated) unwritable ??= dir;
      if (dir === v2.mountPoint || dir === path.dirname(dir)) break;
    }
    return {
      reason: unwritable
        ? `cannot create a cgroup in ${unwritable} as this user`
        : `no cgroup from ${own2} up to ${v2.mountPoint} enables the pids controller for its children (cgroup.subtree_control)`,
    };
  }
  if (!writable(candidate.dir)) return { reason: `cannot create a cgroup in ${candidate.dir} as this user` };
  return { parent: candidate };
}

function isWritableDir(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const RUN_CGROUP_NAME = new RegExp(`^${PREFIX}(\\d+)-[0-9a-f]+$`);

/** Remove empty cgroups left by shellgate processes that died before their cleanup. */
function pruneStale(parent: string): void {
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of entries) {
    const m = RUN_CGROUP_NAME.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    try {
      rmdirSync(path.join(parent, name));
    } catch {
      // still has processes, or someone else removed it: leave it
    }
  }
}

function killMembers(dir: string): void {
  let procs = "";
  try {
    procs = readFileSync(path.join(dir, "cgroup.procs"), "utf8");
  } catch {
    // gone meanwhile
  }
  for (const pid of procs.split("\n").filter((l) => /^\d+$/.test(l)).map(Number)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // exited meanwhile
    }
  }
}

let runCounter = 0;

/**
 * Make `shellgate-<pid>-<hex>` under `parent`. The suffix only has to differ between this process's
 * runs and from leftovers of an earlier process with the same pid, so a clock and a counter do, and
 * `mkdir` refusing an existing name is the uniqueness check; `node:crypto` would cost several ms of
 * every start-up (its module load) to defend against no one: the parent is writable only by this
 * user (`findPidsCgroupParent` checks) and the cgroup tree is read-only inside the sandbox.
 */
function makeUniqueDir(parent: string): string {
  for (let attempt = 0; ; attempt++) {
    const suffix = `${process.hrtime.bigint().toString(16)}${(runCounter++).toString(16)}`;
    const dir = path.join(parent, `${PREFIX}${process.pid}-${suffix}`);
    try {
      mkdirSync(dir, { mode: 0o755 });
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 8) throw error;
    }
  }
}

/** A cgroup made for one run; `remove()` kills what is left in it and deletes it. */
export interface RunCgroup {
  dir: string;
  remove(): Promise<void>;
}

/**
 * Make a fresh cgroup under `parent` with `pids.max = limit`. Whatever joins it (the helper
 * before it starts bubblewrap) and all its descendants count against the limit, root included.
 * @throws the file-system error when the cgroup cannot be created or limited (nothing is left).
 */
export async function createRunCgroup(parent: PidsCgroupParent, limit: number): Promise<RunCgroup> {
  pruneStale(parent.dir);
  // Synchronous like the rest of planning (see @shellgate/sandbox's paths.ts): two small writes to
  // the cgroup file system, cheaper than their round trips through the thread pool.
  const dir = makeUniqueDir(parent.dir);
  try {
    writeFileSync(path.join(dir, "pids.max"), `${limit}\n`);
  } catch (error) {
    try {
      rmdirSync(dir);
    } catch {
      // nothing more to undo
    }
    throw error;
  }
  let removed = false;
  return {
    dir,
    async remove() {
      if (removed) return;
      // The run is over when this is called, but bubblewrap's outer process can exit while the
      // sandbox's PID namespace is still being torn down: whatever is still in the cgroup is a
      // leftover of this run, and is killed so the cgroup can go.
      for (let attempt = 0; attempt < 100; attempt++) {
        try {
          rmdirSync(dir);
          removed = true;
          return;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOENT") {
            removed = true;
            return;
          }
          if (code !== "EBUSY") return;
          killMembers(dir);
          // A namespace's teardown usually ends within a millisecond or two: look again soon at first.
          await new Promise((r) => setTimeout(r, Math.min(20, 2 ** attempt)));
        }
      }
      // Still busy: processes are still running. A later run prunes it once this process is gone.
    },
  };
}

/** How a run's process limit is enforced on this machine, or why it is not. */
export type ProcessLimitEnforcement =
  | { how: "cgroup"; parent: PidsCgroupParent }
  | { how: "rlimit" }
  | { how: "none"; reason: string };

/**
 * Decide how to enforce a process limit: a pids cgroup when one can be made here (the only way
 * that binds root), else `RLIMIT_NPROC` set by the helper — which counts per user namespace, so
 * it is used only under bubblewrap (the sandbox's own namespace) and only for a non-root user (the
 * kernel never enforces it for root).
 */
export function planProcessLimit(
  layer: "bwrap" | "landlock",
  uid: number,
  find: () => ReturnType<typeof findPidsCgroupParent> = () => findPidsCgroupParent(),
): ProcessLimitEnforcement {
  const found = find();
  if ("parent" in found) return { how: "cgroup", parent: found.parent };
  if (layer === "bwrap" && uid !== 0) return { how: "rlimit" };
  const why = layer === "bwrap"
    ? "RLIMIT_NPROC does not bind root"
    : "without a user namespace RLIMIT_NPROC would count all of this user's processes on the host";
  return { how: "none", reason: `${found.reason}; ${why}` };
}

/** One line for `isAvailable()` notes saying whether and how the limit is enforced. */
export function describeProcessLimit(limit: number, plan: ProcessLimitEnforcement): string {
  switch (plan.how) {
    case "cgroup":
      return `process limit ${limit}: enforced by a pids cgroup (cgroup v${plan.parent.version}, under ${plan.parent.dir})`;
    case "rlimit":
      return `process limit ${limit}: enforced by RLIMIT_NPROC in the sandbox's user namespace (counts the sandbox's own processes)`;
    case "none":
      return `process limit ${limit}: NOT enforced here (${plan.reason})`;
  }
}
