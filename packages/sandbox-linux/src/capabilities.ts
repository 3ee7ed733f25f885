// The shape of the capability report, shared by the probe and its disk cache.

/** Whether one layer works here and, either way, what was observed. */
export interface LayerStatus {
  available: boolean;
  /** What was found (version, path) or why the layer cannot be used. */
  detail: string;
}

/** The isolation a run can get on this machine, strongest first. */
export type LinuxIsolation = "bwrap+seccomp" | "landlock+seccomp" | "none";

/** What the Linux sandbox can do on this machine; produced once by `probeLinuxSandbox`. */
export interface LinuxCapabilityReport {
  platform: NodeJS.Platform;
  /** `uname -r`. */
  kernel: string;
  /** The native helper (seccomp and Landlock), built at install time. */
  helper: LayerStatus & { path?: string };
  /** Layer 1: bubblewrap, and whether it could mount a fresh `/proc`. */
  bwrap: LayerStatus & {
    path?: string;
    version?: string;
    procMount: boolean;
    /** True when a configured `bwrapPath` exists but failed the ownership/permission check (`detail` says which). */
    refused?: boolean;
  };
  /** Unprivileged user namespaces (what bubblewrap needs when not run as root). */
  userNamespaces: LayerStatus;
  /** Layer 2: a seccomp filter installed and verified in a child of the helper. */
  seccomp: LayerStatus;
  /** Layer 3: Landlock, with the kernel's ABI version (0 when absent). */
  landlock: LayerStatus & { abi: number };
  /** Best isolation available: `bwrap+seccomp` (full), `landlock+seccomp` (weaker), or `none`. */
  isolation: LinuxIsolation;
  /** `full` for bwrap+seccomp, `weaker` for the Landlock fallback, `none` when nothing works. */
  level: "full" | "weaker" | "none";
  /** One line per missing layer saying why, for error messages and `shellgate sandbox --probe`. */
  reasons: string[];
}

/** Options of `probeLinuxSandbox`. */
export interface ProbeOptions {
  /**
   * bubblewrap to use instead of the one found in `/usr/bin`, `/bin` or `/usr/local/bin`. Must be
   * absolute; it and every directory above it must be owned by root or the current user and not
   * writable by group or others, or the bwrap layer is reported unavailable (`refused`).
   */
  bwrapPath?: string;
  /** Ignore the cached report and probe again. */
  refresh?: boolean;
  /**
   * Also cache the report in this file across processes (see `defaultProbeCacheFile`), keyed on
   * kernel, boot, user and the exact bwrap and helper binaries. For short-lived processes such as
   * the CLI; the file's directory is kept read-only inside sandboxes built by this process.
   */
  cacheFile?: string;
}
