import { checkArgv, executableKey, type HeuristicsOptions } from "./executable.js";

/** Read-only tools that are safe with any arguments. */
const ALWAYS_SAFE = new Set([
  "cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls", "nl", "paste", "pwd",
  "rev", "seq", "stat", "tail", "tr", "true", "uname", "uniq", "wc", "which", "whoami",
]);
/** GNU coreutils entries that exist (with these read-only meanings) on Linux only. */
const LINUX_ONLY_SAFE = new Set(["numfmt", "tac"]);

/** `find` actions that run programs, delete, or write files. */
const FIND_UNSAFE = new Set(["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"]);

/** A single-dash option cluster (`-nz`), not `-` (stdin) and not a long option. */
const shortCluster = (arg: string) => arg.length > 1 && arg[0] === "-" && arg[1] !== "-";

function base64Safe(args: readonly string[]): boolean {
  // An output option writes a file; `-o` may be glued to its value (`-ob64.txt`) or to other flags (`-Do`).
  return !args.some((a) => a === "--output" || a.startsWith("--output=") || (shortCluster(a) && a.includes("o")));
}

function findSafe(args: readonly string[]): boolean {
  return !args.some((a) => FIND_UNSAFE.has(a));
}

function rgSafe(args: readonly string[]): boolean {
  return !args.some(
    (a) =>
      a === "--search-zip" ||
      a === "--pre" || a.startsWith("--pre=") ||
      a === "--hostname-bin" || a.startsWith("--hostname-bin=") ||
      // `-z` (run decompressors) also hides inside clusters such as `-nz`.
      (shortCluster(a) && a.includes("z")),
  );
}

const SED_PRINT = /^(\d+,)?\d+p$/;

function sedSafe(argv: readonly string[]): boolean {
  if (argv.length < 3 || argv.length > 4 || argv[1] !== "-n" || !SED_PRINT.test(argv[2]!)) return false;
  // GNU sed still reads options after the script: `-ew/tmp/x` or `-i` would add a write.
  const file = argv[3];
  return file === undefined || file === "-" || !file.startsWith("-");
}

/**
 * Whether one plain command (already split out of any shell wrapper) only reads: the fixed safelist,
 * or `base64`/`find`/`rg`/`sed -n Np` without the arguments that make them run programs or write
 * files. `git` is never known-safe: a repository's own config can make even `git status` run programs.
 * Programs are matched by file name (`/usr/bin/cat` is `cat`). Shell wrappers (`bash -lc ...`) are not
 * looked into here; split them first.
 * @throws InvalidArgvError when argv is not an array of strings.
 */
export function isKnownSafeArgv(argv: readonly string[], opts: HeuristicsOptions = {}): boolean {
  checkArgv(argv);
  const argv0 = argv[0];
  if (argv0 === undefined) return false;
  const platform = opts.platform ?? process.platform;
  const key = executableKey(argv0, platform);
  if (ALWAYS_SAFE.has(key)) return true;
  if (LINUX_ONLY_SAFE.has(key)) return platform === "linux";
  const args = argv.slice(1);
  switch (key) {
    case "base64":
      return base64Safe(args);
    case "find":
      return findSafe(args);
    case "rg":
      return rgSafe(args);
    case "sed":
      return sedSafe(argv);
    default:
      return false;
  }
}
