import { checkArgv, checkDialect, executableKey, type HeuristicsOptions } from "./executable.js";
import { isDangerousPowerShell } from "./powershell-dangerous.js";

/** sudo options that take a value, short and long. */
const SUDO_SHORT_WITH_VALUE = new Set(["C", "D", "g", "h", "p", "R", "r", "T", "t", "U", "u"]);
const SUDO_LONG_WITH_VALUE = new Set([
  "--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type",
  "--command-timeout", "--other-user", "--user",
]);

/** The command sudo would run: argv after sudo's own options (`sudo -u root -E rm -rf x` → `rm -rf x`). */
function sudoCommand(args: readonly string[]): readonly string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    if (a === "--") return args.slice(i + 1);
    if (a.startsWith("--")) {
      i += SUDO_LONG_WITH_VALUE.has(a) ? 2 : 1;
      continue;
    }
    if (a.length < 2 || a[0] !== "-") return args.slice(i);
    // A short cluster: the first letter that takes a value eats the rest of the cluster or the next arg.
    let consumed = 1;
    for (let j = 1; j < a.length; j++) {
      if (SUDO_SHORT_WITH_VALUE.has(a[j]!)) {
        if (j === a.length - 1) consumed = 2;
        break;
      }
    }
    i += consumed;
  }
  return [];
}

/** rm's long options are getopt_long ones, so any unambiguous prefix of `--force` (`--f`...) is it. */
const isForceLong = (a: string) => a.length >= 3 && "--force".startsWith(a);

function rmIsForced(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === "--") return false;
    if (a.startsWith("--")) {
      if (isForceLong(a)) return true;
    } else if (a.length > 1 && a[0] === "-" && a.includes("f")) {
      return true;
    }
  }
  return false;
}

/**
 * Whether one plain command might destroy data without asking: `rm` with `-f` (alone or in a cluster
 * such as `-rf`) or `--force` before `--`, also behind `sudo` and its options. Programs are matched by
 * file name. Shell wrappers are not looked into here; split them first.
 *
 * With `dialect: "powershell"`, argv is one PowerShell command: also dangerous are recursive forced
 * removal in any spelling (Remove-Item or an alias of it with a prefix of `-Recurse` and of `-Force`,
 * or with `-Force` and no path, taking its items from the pipeline; `del`/`erase`/`rd`/`rmdir` with
 * `/s` and `/q`) and commands that wipe disks or stop the machine
 * (`Format-Volume`, `Clear-Disk`, `Stop-Computer`, …). The POSIX judgement applies too: on a system
 * without the PowerShell alias, `rm` is the real rm.
 * @throws InvalidArgvError when argv is not an array of strings or `opts.dialect` is neither `posix` nor `powershell`.
 */
export function isDangerousArgv(argv: readonly string[], opts: HeuristicsOptions = {}): boolean {
  checkArgv(argv);
  checkDialect(opts);
  const platform = opts.platform ?? process.platform;
  let command: readonly string[] = argv;
  // Each sudo peels one layer; the loop ends because every round shortens argv.
  while (command.length > 0 && executableKey(command[0]!, platform) === "sudo") {
    command = sudoCommand(command.slice(1));
  }
  const argv0 = command[0];
  if (argv0 === undefined) return false;
  if (opts.dialect === "powershell" && isDangerousPowerShell(command)) return true;
  return executableKey(argv0, platform) === "rm" && rmIsForced(command.slice(1));
}
