/** The five shells shellgate knows how to drive. */
export type ShellType = "bash" | "zsh" | "sh" | "powershell" | "cmd";

/** A shell binary that was found, with how it was found. */
export interface Shell {
  type: ShellType;
  /** The binary to spawn (absolute when it was found on disk). */
  path: string;
  /**
   * How it was found: `passwd` (the user database), `env:SHELL`, `env:ComSpec`, `requested`
   * (the path a caller named), `PATH` (lookup by name), `install-path` (a usual install location),
   * `git-bash`, or `last-resort` (the platform's shell of last resort).
   */
  source: string;
  /**
   * Set when a preferred shell was refused and this one was used instead: says what was refused and
   * why (an unsupported shell such as fish, a missing binary...). Absent when the first choice worked.
   */
  fallback?: string;
}

/**
 * The inputs detection reads from the machine. Every field is optional and defaults to the real
 * machine; tests inject them to cover other platforms.
 */
export interface DetectOptions {
  platform?: NodeJS.Platform;
  env?: Readonly<Record<string, string | undefined>>;
  /** The login shell from the user database; `null` when there is none. Default: `os.userInfo().shell`. */
  userShell?: string | null;
  /** Whether `path` names an existing, executable regular file. */
  isExecutable?: (path: string) => boolean;
  /** Look `name` up on PATH (and PATHEXT on Windows); `null` when absent. */
  which?: (name: string) => string | null;
}
