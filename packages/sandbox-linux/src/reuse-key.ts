import path from "node:path";
import { observedFs, type ObservedStats } from "@shellgate/sandbox";

/**
 * bubblewrap options whose next argument is a host path the sandbox mounts from. Every other value
 * in a launch argv is an absolute path, a number or NAME=VALUE, so none can be mistaken for one.
 */
const MOUNT_SOURCE_OPTIONS: ReadonlySet<string> = new Set([
  "--bind", "--bind-try", "--ro-bind", "--ro-bind-try", "--dev-bind", "--dev-bind-try",
]);

/** What the per-run cgroup's name becomes in a key (a fresh directory per transform, the same limit); its parent stays. */
const PER_RUN_CGROUP = "<per-run cgroup: name left out>";

/** What a reuse key is computed from (see `ExecEnv.deferred`). */
export interface ReuseKeyInput {
  /** The deferred launch argv. */
  argv: readonly string[];
  /** The run's own cgroup (`--cgroup DIR`), whose name differs for every transform. */
  cgroupDir?: string;
  cwd: string;
  env: Readonly<Record<string, string>>;
  /**
   * Placeholder directories the launch itself makes (or finds) and mounts read-only and empty:
   * their identity changes with every run that makes them, never what a command can do there.
   */
  placeholders: readonly string[];
  /** Host binaries the launch runs (the helper, bubblewrap). */
  executables: readonly string[];
}

type Identity = string;

/** One lookup: device, inode and birth time, or the error code (a `-try` source may be missing). */
function lookup(look: () => ObservedStats | undefined): { text: string; link: boolean } {
  try {
    const st = look();
    if (st === undefined) return { text: "error ENOENT", link: false };
    return { text: `${st.dev}:${st.ino}:${st.birthtimeNs}`, link: st.isSymbolicLink() };
  } catch (error) {
    return { text: `error ${(error as NodeJS.ErrnoException).code ?? "unknown"}`, link: false };
  }
}

/**
 * One path as the kernel finds it now: device, inode and birth time of the entry itself (lstat) and
 * of what it leads to (stat). The birth time tells a directory re-created under a recycled inode
 * number (ext4 hands the number of a removed directory to the next one made) from the old one.
 * Synchronous, like the mount plan's lookups: a few dozen of them cost about a quarter of a
 * millisecond this way, and several times that as a batch through the thread pool
 * (bench/reuse-key.mjs).
 */
function identity(file: string): Identity {
  const entry = lookup(() => observedFs.lstat(file));
  // Only a symlink leads anywhere else; for anything else (or nothing) the second lookup would find the same.
  const target = entry.link ? lookup(() => observedFs.stat(file)).text : entry.text;
  return `${entry.text} -> ${target}`;
}

/** The host paths a launch mounts from, in the order given, without placeholders. */
function mountSources(argv: readonly string[], placeholders: ReadonlySet<string>): string[] {
  const sources: string[] = [];
  for (let i = 0; i < argv.length - 1; i++) {
    const source = argv[i + 1] as string;
    if (MOUNT_SOURCE_OPTIONS.has(argv[i] as string) && !placeholders.has(source)) sources.push(source);
  }
  return sources;
}

/**
 * The reuse key of a deferred launch: its argv (the run's cgroup name left out), cwd and env, and
 * the identity of every host path it mounts from, runs, or starts in. Equal keys mean the same
 * sandbox for any command; a path replaced in between changes the key.
 */
export function reuseKey(input: ReuseKeyInput): string {
  const perRun = input.cgroupDir === undefined ? undefined : path.join(path.dirname(input.cgroupDir), PER_RUN_CGROUP);
  const argv = input.argv.map((arg, i) => (perRun !== undefined && arg === input.cgroupDir && input.argv[i - 1] === "--cgroup" ? perRun : arg));
  const placeholders = new Set(input.placeholders);
  const paths = [...new Set([...mountSources(input.argv, placeholders), ...input.executables, input.cwd])];
  const identities = paths.map((file) => [file, identity(file)] as const);
  const env = Object.entries(input.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({
    launch: argv,
    cwd: input.cwd,
    env,
    paths: identities.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    placeholders: "made by the launch; their identity is left out",
  });
}
