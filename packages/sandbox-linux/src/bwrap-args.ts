import type { MountPlan } from "./mount-plan.js";

/** Default size cap of the private `/tmp` (a tmpfs, so host memory): 1 GiB. */
export const DEFAULT_PRIVATE_TMP_SIZE_BYTES = 1024 ** 3;

/**
 * Entries of a fresh `/proc` that root can write and that act on the whole machine, not the
 * sandbox: sysctls (`kernel.core_pattern` names a program the kernel runs as host root on the next
 * crash; `fs/binfmt_misc` lives below `sys`), the SysRq trigger, IRQ affinity, bus and SCSI device
 * control, MTRRs, ACPI wakeup, filesystem and driver knobs, pressure-stall triggers. A sandboxed
 * command runs as the caller's uid, so under a root caller they would be writable; they are bound
 * read-only over themselves (`-try`: not every kernel has every entry).
 */
export const PROC_READ_ONLY_ENTRIES: readonly string[] = Object.freeze([
  "sys",
  "sysrq-trigger",
  "irq",
  "bus",
  "scsi",
  "mtrr",
  "acpi",
  "fs",
  "driver",
  "tty",
  "pressure",
]);

/** Options for `bwrapArgs` that do not come from the mount plan. */
export interface BwrapArgsOptions {
  network: boolean;
  /** False when the probe found that bwrap cannot mount a fresh `/proc` here. */
  procMount: boolean;
  /** The command's working directory inside the sandbox. */
  cwd: string;
  /** Size cap of the private `/tmp` in bytes; default `DEFAULT_PRIVATE_TMP_SIZE_BYTES`. */
  privateTmpSizeBytes?: number;
  /**
   * The command's terminal is a PTY the caller allocated for this run alone: leave out
   * `--new-session`, so that the command keeps it as its controlling terminal (job control,
   * Ctrl-C). Default false: a new session without a controlling terminal.
   */
  dedicatedTerminal?: boolean;
  /**
   * Mount arguments applied after every other mount, so that nothing of the plan can cover them
   * (the proxy's sockets of a proxy-routed run).
   */
  extraMounts?: readonly string[];
}

const byDepth = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

/**
 * bubblewrap arguments (up to, not including, the `--`) for a mount plan: no capabilities,
 * read-only root, fresh `/dev` and `/proc` (its machine-wide knobs read-only), a size-capped private
 * `/tmp` unless writable, the writable roots and pinned directories, carve-outs, placeholders,
 * masks; all namespaces unshared (network too unless granted); dies with its parent; a new session
 * (no controlling terminal) unless the terminal is one the caller allocated for this run.
 */
export function bwrapArgs(plan: MountPlan, options: BwrapArgsOptions): string[] {
  // A new session keeps the command out of a terminal it merely inherited (the user's own): no
  // job-control ioctls on it, no TIOCSTI even if seccomp were absent. A PTY made for this run has
  // no other reader, so there the command may keep it as its controlling terminal; seccomp still
  // refuses TIOCSTI and TIOCLINUX on it.
  const args = options.dedicatedTerminal ? [] : ["--new-session"];
  // --cap-drop ALL: run as root, bwrap would otherwise leave the command every capability in its
  // user namespace, enough to remount the read-only view read-write (seccomp also refuses mount).
  args.push("--die-with-parent", "--unshare-all", "--cap-drop", "ALL");
  if (options.network) args.push("--share-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev");
  if (options.procMount) {
    args.push("--proc", "/proc");
    // The sources come from the host's /proc; what /proc/sys/net shows still follows the reader's
    // own network namespace, so the sandbox sees its own (empty) network settings.
    for (const entry of PROC_READ_ONLY_ENTRIES) args.push("--ro-bind-try", `/proc/${entry}`, `/proc/${entry}`);
  }
  if (plan.privateTmp) args.push("--size", String(options.privateTmpSizeBytes ?? DEFAULT_PRIVATE_TMP_SIZE_BYTES), "--tmpfs", "/tmp");
  for (const dir of plan.keepVisible) args.push("--ro-bind", dir, dir);
  // Each writable root and each pinned directory is a mount point of its own, so it cannot be
  // renamed or removed (EBUSY) from inside. Parents before children: a bind of the host's directory
  // would otherwise cover the mounts made below it.
  for (const dir of [...new Set([...plan.writableRoots, ...plan.pinned])].sort(byDepth)) args.push("--bind", dir, dir);
  for (const p of [...plan.readOnly].sort(byDepth)) args.push("--ro-bind", p, p);
  // The helper that starts bwrap has made the placeholder; `--dir` is for a directory someone
  // removed since (not a cleanup of ours: those wait for the helper's lock), so that bwrap makes an
  // empty one again rather than failing. The lock tells every cleanup that this sandbox has the
  // placeholder mounted (see `placeholders.ts`).
  for (const p of plan.stubs) args.push("--dir", p, "--ro-bind", p, p, "--lock-file", p);
  for (const p of plan.maskedDirs) args.push("--tmpfs", p, "--remount-ro", p);
  for (const p of plan.maskedFiles) args.push("--ro-bind", "/dev/null", p);
  if (options.extraMounts) args.push(...options.extraMounts);
  args.push("--chdir", options.cwd);
  return args;
}
