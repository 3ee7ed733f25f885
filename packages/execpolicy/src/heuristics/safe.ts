import { checkArgv, checkDialect, executableKey, type HeuristicsOptions } from "./executable.js";
import { cmdletArgsSafe, isWindowsOnlyAlias, safeCmdlet } from "./powershell-safe.js";

/** Read-only tools that are safe with any arguments. */
const ALWAYS_SAFE = new Set([
  "cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls", "nl", "paste", "pwd",
  "rev", "seq", "stat", "tail", "tr", "true", "uname", "wc", "which", "whoami",
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

/**
 * `uniq` writes its second operand (`uniq IN OUT`): safe only with at most one file operand. Options
 * that take a separate value are skipped with it, so `uniq -f 1 in` has one operand.
 */
const UNIQ_WITH_VALUE = new Set(["-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"]);

function uniqSafe(args: readonly string[]): boolean {
  let operands = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") {
      operands += args.length - i - 1;
      break;
    }
    if (UNIQ_WITH_VALUE.has(a)) i++;
    else if (a === "-" || !a.startsWith("-")) operands++;
  }
  return operands <= 1;
}

/** Directories whose programs a sandboxed command cannot have replaced (they are never writable roots). */
const SYSTEM_BIN_DIRS = new Set(["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin"]);

/**
 * Whether argv[0] names a program by its bare name or by its path in a system directory. `./cat` or
 * `node_modules/.bin/cat` is whatever file the workspace put there, so its name proves nothing. On
 * Windows only bare names count: its system directories are not fixed paths.
 */
function trustedProgramPath(argv0: string, platform: NodeJS.Platform): boolean {
  const slash = platform === "win32" ? Math.max(argv0.lastIndexOf("/"), argv0.lastIndexOf("\\")) : argv0.lastIndexOf("/");
  if (slash < 0) return true;
  if (platform === "win32") return false;
  return SYSTEM_BIN_DIRS.has(argv0.slice(0, slash));
}

const SED_PRINT = /^(\d+,)?\d+p$/;

function sedSafe(argv: readonly string[]): boolean {
  if (argv.length < 3 || argv.length > 4 || argv[1] !== "-n" || !SED_PRINT.test(argv[2]!)) return false;
  // GNU sed still reads options after the script: `-ew/tmp/x` or `-i` would add a write.
  const file = argv[3];
  return file === undefined || file === "-" || !file.startsWith("-");
}

/** External programs a PowerShell command may be known-safe as, judged as in a POSIX shell. */
const POWERSHELL_EXTERNALS = new Set(["git", "rg"]);

/**
 * One PowerShell command: a listed read-only cmdlet or alias with known harmless arguments, or `git`/`rg`
 * (and, outside Windows, `ls`/`cat`/`sort`/`write`, which are native programs there) as the POSIX rules
 * judge them. PowerShell outside Windows expands an unquoted wildcard in a native program's arguments
 * to file names the workspace chose, so such a word refuses the command there.
 */
function powerShellSafe(argv: readonly string[], platform: NodeJS.Platform): boolean {
  const argv0 = argv[0]!;
  const cmdlet = safeCmdlet(argv0, platform);
  if (cmdlet) return cmdletArgsSafe(cmdlet, argv.slice(1));
  const native = POWERSHELL_EXTERNALS.has(executableKey(argv0, platform)) || (platform !== "win32" && isWindowsOnlyAlias(argv0));
  if (!native) return false;
  if (platform !== "win32" && argv.slice(1).some((a) => /[*?[]/.test(a))) return false;
  return isKnownSafeArgv(argv, { platform });
}

/**
 * Whether one plain command (already split out of any shell wrapper) only reads: the fixed safelist,
 * or `base64`/`find`/`rg`/`sed -n Np`/`uniq [IN]` without the arguments that make them run programs
 * or write files. `git` is never known-safe: a repository's own config can make even `git status` run
 * programs. Programs are matched by file name when argv[0] is a bare name or a path in a system
 * directory (`/usr/bin/cat` is `cat`; `./cat` and `bin/cat` are never safe, nor on Windows any path
 * at all). Shell wrappers (`bash -lc ...`) are not looked into here; split them first, and treat a
 * command whose words came from a glob as not safe (the glob's expansion is not in argv).
 *
 * With `dialect: "powershell"`, argv is one PowerShell command: known-safe are the read-only cmdlets
 * (Get-ChildItem, Get-Content, Select-String, Select-Object, Sort-Object, Measure-Object, Get-Item,
 * Get-Location, Test-Path, Resolve-Path, Write-Output, Format-Table, Format-List, Out-String) and
 * their aliases, in any case, when every parameter resolves to one known to only read (an unknown or
 * ambiguous one refuses) and no path names another machine; and `rg` as above. Everything else is not.
 * @throws InvalidArgvError when argv is not an array of strings or `opts.dialect` is neither `posix` nor `powershell`.
 */
export function isKnownSafeArgv(argv: readonly string[], opts: HeuristicsOptions = {}): boolean {
  checkArgv(argv);
  checkDialect(opts);
  const argv0 = argv[0];
  if (argv0 === undefined) return false;
  const platform = opts.platform ?? process.platform;
  if (opts.dialect === "powershell") return powerShellSafe(argv, platform);
  if (!trustedProgramPath(argv0, platform)) return false;
  const key = executableKey(argv0, platform);
  if (key === "uniq") return uniqSafe(argv.slice(1));
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
