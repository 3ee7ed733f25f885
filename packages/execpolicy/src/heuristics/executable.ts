/** Options shared by the heuristics. */
export interface HeuristicsOptions {
  /** The platform the command would run on (default: this process's). Decides Linux-only entries and Windows names. */
  platform?: NodeJS.Platform;
  /**
   * The language the command's words come from (default `posix`). `powershell`: argv is one command of
   * a PowerShell script (argv[0] a cmdlet, an alias or an external program), judged by PowerShell's
   * rules: case-insensitive names, parameters abbreviated to any unambiguous prefix or written `-Name:value`.
   */
  dialect?: "posix" | "powershell";
}

/** argv handed to a heuristic was not an array of strings. */
export class InvalidArgvError extends TypeError {
  readonly code = "HEURISTICS_INVALID_ARGV";
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = "InvalidArgvError";
    this.field = field;
  }
}

/** Throws InvalidArgvError unless argv is an array of strings (callers are often JS or parsed JSON). */
export function checkArgv(argv: unknown): asserts argv is readonly string[] {
  if (!Array.isArray(argv)) throw new InvalidArgvError("argv", "must be an array of strings");
  const bad = argv.findIndex((a) => typeof a !== "string");
  if (bad >= 0) throw new InvalidArgvError(`argv[${bad}]`, "must be a string");
}

/**
 * Throws InvalidArgvError unless `opts.dialect` is absent, `posix` or `powershell`: a misspelled
 * dialect would otherwise judge PowerShell words as POSIX ones and miss what is dangerous in them.
 */
export function checkDialect(opts: HeuristicsOptions): void {
  const dialect: unknown = opts.dialect;
  if (dialect !== undefined && dialect !== "posix" && dialect !== "powershell") {
    throw new InvalidArgvError("opts.dialect", `must be "posix" or "powershell", not ${JSON.stringify(dialect) ?? String(dialect)}`);
  }
}

const WINDOWS_EXTENSIONS = /\.(exe|cmd|bat|com)$/;

/**
 * The name a program is judged by: the file name of argv[0], so `/usr/bin/cat` is `cat`. On Windows
 * both separators count, case is ignored and `.exe/.cmd/.bat/.com` is dropped (`C:\Git\git.EXE` is `git`).
 */
export function executableKey(argv0: string, platform: NodeJS.Platform = process.platform): string {
  if (platform !== "win32") return argv0.slice(argv0.lastIndexOf("/") + 1);
  const base = argv0.slice(Math.max(argv0.lastIndexOf("/"), argv0.lastIndexOf("\\")) + 1).toLowerCase();
  return base.replace(WINDOWS_EXTENSIONS, "");
}
