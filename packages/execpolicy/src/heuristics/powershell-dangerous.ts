import { powerShellCommandKey } from "./powershell-aliases.js";
import { commandKey, parameterWord } from "./powershell-words.js";

/** The cmd.exe spellings, which take `/S` (the whole tree) and `/Q` (no confirmation). */
const CMD_REMOVE = new Set(["del", "erase", "rd", "rmdir"]);

/**
 * Commands that destroy a disk, a partition or a whole store of data, or end every program on the
 * machine, with any arguments. Clear-RecycleBin is in whatever form: without `-Force` it only asks when
 * a console can answer, and what it removes cannot be restored. Stop-Computer and Restart-Computer
 * end every process (unsaved work included) and cannot be undone by whoever asked for them, which
 * is what this list is for; `format` is cmd's disk formatter.
 */
const DESTROYS_WHOLESALE = new Set([
  "format-volume", "clear-disk", "initialize-disk", "remove-partition", "clear-recyclebin", "stop-computer",
  "restart-computer", "format",
]);

/** Any prefix of `-Recurse` (`-r` included) is it, or would be were it not ambiguous: over-approximated. */
const isRecurse = (name: string) => name.length >= 1 && "recurse".startsWith(name);
/** `-fo` … `-Force`, and `-f` (ambiguous with `-Filter`; counted anyway). */
const isForce = (name: string) => name.length >= 1 && "force".startsWith(name);
/** `-Path`, `-LiteralPath` and their aliases (`-PSPath`, `-LP`), by any prefix that may be one of them. */
const isPathParameter = (name: string) =>
  (name.length >= 2 && "path".startsWith(name)) || (name.length >= 2 && "pspath".startsWith(name)) || name === "lp" ||
  (name.length >= 1 && "literalpath".startsWith(name));
/** Remove-Item's switches: every other parameter takes a value (`-Include x`), which is then no path. */
const isSwitch = (name: string) => isRecurse(name) || isForce(name) || "whatif".startsWith(name) || "confirm".startsWith(name);

/**
 * Whether Remove-Item's words remove a tree by force: `-Force` with `-Recurse`, or `-Force` with no
 * path among its words, where the items can only come from the pipeline (`Get-ChildItem -Recurse |
 * Remove-Item -Force`, which a split judges word by word): both remove a whole tree without asking.
 */
function removesTreeForced(args: readonly string[]): boolean {
  let recurse = false;
  let force = false;
  let path = false;
  let valueNext = false;
  for (const a of args) {
    const p = parameterWord(a);
    if (!p) {
      // A word after a parameter that takes a value is that value, not a path: counting it as one would
      // hide the pipeline's items.
      if (!valueNext) path = true;
      valueNext = false;
      continue;
    }
    valueNext = false;
    // `--` ends the parameters, but a word after it counting too only over-approximates.
    if (isRecurse(p.name)) recurse = true;
    if (isForce(p.name)) force = true;
    if (isPathParameter(p.name)) path = true;
    else if (p.name !== "" && !isSwitch(p.name) && !(p.colon && p.value !== "")) valueNext = true;
  }
  return force && (recurse || !path);
}

/** cmd.exe switches may be glued (`/s/q`) and written in any case. */
function cmdRemovesTreeQuietly(args: readonly string[]): boolean {
  const switches = new Set(
    args.filter((a) => a.startsWith("/")).flatMap((a) => a.split("/").filter((s) => s !== "").map((s) => s.toLowerCase())),
  );
  return switches.has("s") && switches.has("q");
}

/** Words by which cmd chains commands, when they stand alone. */
const CMD_SEPARATORS = new Set(["&", "&&", "||", "|"]);

/**
 * The commands a `cmd /c …` (or `/k`) inside a PowerShell script runs, as far as its words tell:
 * everything after the switch, and everything after each separator word. cmd's own quoting is not
 * read, so this only over-approximates.
 */
function cmdCommands(args: readonly string[]): string[][] {
  const start = args.findIndex((a) => /^\/[ck]$/i.test(a));
  if (start < 0) return [];
  const rest = args.slice(start + 1);
  const out: string[][] = [[...rest]];
  rest.forEach((w, i) => {
    if (CMD_SEPARATORS.has(w)) out.push(rest.slice(i + 1));
  });
  return out;
}

/**
 * Whether one PowerShell command might destroy data without asking. Over-approximates: names are
 * matched without module qualifier, directory or extension, any parameter that may be the one (an
 * ambiguous prefix included) counts, and a `cmd /c` command is looked into word by word.
 */
export function isDangerousPowerShell(argv: readonly string[]): boolean {
  const argv0 = argv[0];
  if (argv0 === undefined) return false;
  const key = commandKey(argv0);
  if (DESTROYS_WHOLESALE.has(key)) return true;
  // Each nested command is shorter than argv, so this ends.
  if (key === "cmd" && cmdCommands(argv.slice(1)).some((c) => isDangerousPowerShell(c))) return true;
  const args = argv.slice(1);
  // Remove-Item and every alias of it (`ri`, `rm`, `del`, `erase`, `rd`, `rmdir`).
  if (powerShellCommandKey(argv0) === "remove-item" && removesTreeForced(args)) return true;
  return CMD_REMOVE.has(key) && cmdRemovesTreeQuietly(args);
}
