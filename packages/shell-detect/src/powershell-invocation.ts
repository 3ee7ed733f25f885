import { LEGACY_UTF8_PREFIX, POWERSHELL_UTF8_PREFIX } from "./exec-args.js";
import { trustedShellType } from "./shell-type.js";

/**
 * Which PowerShell runs the script: `pwsh` is PowerShell 7 (any platform), `powershell` is Windows
 * PowerShell 5.1. They differ in what a script may contain (`&&`/`||` exist only in 7) and in how
 * `powershell SCRIPT` without `-Command` is read.
 */
export type PowerShellEdition = "pwsh" | "powershell";

/**
 * A trusted PowerShell argv, read as PowerShell reads its own command line. `script` is what it would
 * run when that can be told (even if the invocation is refused, so that the dangerous-command scan can
 * still look inside); `refusal` says why the invocation as a whole cannot be judged by its script.
 */
export interface PowerShellInvocation {
  edition: PowerShellEdition;
  script?: string;
  refusal?: string;
}

/** Switches that change nothing a command can do; accepted in these spellings only (see the README). */
const HARMLESS = new Set(["nologo", "nol", "noprofile", "nop", "noninteractive", "noni", "mta", "sta"]);
const COMMAND = new Set(["command", "c"]);
const ENCODED = new Set(["encodedcommand", "ec", "e"]);
const FILE = new Set(["file", "f"]);
/**
 * Refused switches whose value is the next word: skipped to find the script for the dangerous-command
 * scan only. Any other switch is refused without looking further (its arity is unknown).
 */
const TAKES_VALUE: Readonly<Record<string, string>> = {
  executionpolicy: "-ExecutionPolicy",
  ex: "-ExecutionPolicy",
  ep: "-ExecutionPolicy",
  windowstyle: "-WindowStyle",
  w: "-WindowStyle",
  workingdirectory: "-WorkingDirectory",
  wd: "-WorkingDirectory",
  configurationname: "-ConfigurationName",
  outputformat: "-OutputFormat",
  o: "-OutputFormat",
  inputformat: "-InputFormat",
  if: "-InputFormat",
};

/** `pwsh.exe`, `C:\...\powershell.exe`: only a Windows PowerShell command line reads `/Switch` as a switch. */
function isWindowsForm(argv0: string): boolean {
  return /\.exe$/i.test(argv0) || argv0.includes("\\");
}

function editionOf(argv0: string): PowerShellEdition {
  const base = argv0.slice(Math.max(argv0.lastIndexOf("/"), argv0.lastIndexOf("\\")) + 1).toLowerCase();
  return base.startsWith("pwsh") ? "pwsh" : "powershell";
}

/** shellgate's own first line (see `deriveExecArgs`) is not part of what the caller asked to run. */
function withoutOwnPrefix(script: string): string {
  if (script.startsWith(POWERSHELL_UTF8_PREFIX)) return script.slice(POWERSHELL_UTF8_PREFIX.length);
  if (script.startsWith(LEGACY_UTF8_PREFIX)) return script.slice(LEGACY_UTF8_PREFIX.length);
  return script;
}

/** The script of an `-EncodedCommand`: base64 of UTF-16LE text; `undefined` when it is not valid base64. */
function decodeEncoded(value: string | undefined): string | undefined {
  if (value === undefined || !/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 !== 0) return undefined;
  return Buffer.from(value, "base64").toString("utf16le");
}

function scriptOf(words: readonly string[], refusal: string | undefined): { script?: string; refusal?: string } {
  const script = words.join(" ");
  if (words.length === 0 || script.trim() === "") return { refusal: refusal ?? "-Command without a script" };
  if (script === "-") return { refusal: refusal ?? "-Command - reads the script from standard input" };
  return refusal === undefined ? { script: withoutOwnPrefix(script) } : { script: withoutOwnPrefix(script), refusal };
}

/**
 * Read `argv` as PowerShell would when it names a trusted `pwsh`/`powershell` binary (see
 * `trustedShellType`), else `undefined`. Both editions join every word after `-Command` with spaces
 * into the script, so `pwsh -Command git status` runs `git status`. Without `-Command`, Windows
 * PowerShell reads the remaining words the same way, but PowerShell 7 runs its first positional word
 * as a script file (`-File`), which is refused.
 */
export function powerShellInvocation(argv: readonly string[]): PowerShellInvocation | undefined {
  const argv0 = argv[0];
  if (argv0 === undefined || trustedShellType(argv0) !== "powershell") return undefined;
  const edition = editionOf(argv0);
  const slash = isWindowsForm(argv0);
  let refusal: string | undefined;
  const refuse = (why: string) => {
    refusal ??= why;
  };
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    const isSwitch = word[0] === "-" || (slash && word[0] === "/");
    if (!isSwitch) {
      if (edition === "pwsh") return { edition, refusal: refusal ?? `pwsh runs its first positional argument ${JSON.stringify(word)} as a script file (-File)` };
      return { edition, ...scriptOf(argv.slice(i), refusal) };
    }
    const colon = word.indexOf(":");
    const name = (colon < 0 ? word.slice(1) : word.slice(1, colon)).toLowerCase();
    const attached = colon < 0 ? undefined : word.slice(colon + 1);
    if (COMMAND.has(name)) {
      return { edition, ...scriptOf(attached === undefined ? argv.slice(i + 1) : [attached, ...argv.slice(i + 1)], refusal) };
    }
    if (HARMLESS.has(name) && attached === undefined) continue;
    if (!/^[a-z]+$/.test(name)) return { edition, refusal: refusal ?? `unknown PowerShell switch ${JSON.stringify(word)}` };
    if (ENCODED.has(name)) {
      const script = decodeEncoded(attached ?? argv[i + 1]);
      const why = refusal ?? "-EncodedCommand (a base64 script) is judged as one command";
      return script === undefined ? { edition, refusal: why } : { edition, script: withoutOwnPrefix(script), refusal: why };
    }
    if (FILE.has(name)) return { edition, refusal: refusal ?? `${word} runs a script file` };
    const valued = TAKES_VALUE[name];
    if (valued !== undefined) {
      refuse(`switch ${valued} is not accepted in a plain PowerShell invocation`);
      if (attached === undefined) i++;
      continue;
    }
    return { edition, refusal: refusal ?? `unknown PowerShell switch ${JSON.stringify(word)}` };
  }
  return { edition, refusal: refusal ?? "PowerShell without a script (interactive)" };
}

/** True for a trusted `cmd`/`cmd.exe` argv with anything after the program. */
export function isCmdInvocation(argv: readonly string[]): boolean {
  return argv.length > 1 && trustedShellType(argv[0]!) === "cmd";
}

/** The reason every cmd.exe script gets: it is never split. */
export const CMD_REASON = "cmd.exe scripts are not parsed: judged as one command";
