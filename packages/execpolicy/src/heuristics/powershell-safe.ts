import { CMDLETS, COMMON_PARAMETERS, type Cmdlet, type CmdletParameter } from "./powershell-cmdlets.js";
import { aliasesOf } from "./powershell-aliases.js";
import { parameterWord } from "./powershell-words.js";

interface CmdletEntry {
  cmdlet: Cmdlet;
  /** Every parameter name and alias, the common parameters included. */
  parameters: ReadonlyMap<string, CmdletParameter>;
}

function entry(cmdlet: Cmdlet): CmdletEntry {
  const parameters = new Map<string, CmdletParameter>();
  for (const p of [...cmdlet.parameters, ...COMMON_PARAMETERS]) for (const n of p.names) parameters.set(n, p);
  return { cmdlet, parameters };
}

const ENTRIES = CMDLETS.map(entry);
const portableAliases = (cmdlet: Cmdlet) => aliasesOf(cmdlet.name).filter((a) => !cmdlet.windowsAliases?.includes(a));
/** Names (lower case) on every platform: the cmdlet and its portable aliases. */
const BY_NAME = new Map<string, CmdletEntry>(ENTRIES.flatMap((e) => [e.cmdlet.name, ...portableAliases(e.cmdlet)].map((n) => [n, e] as const)));
const BY_WINDOWS_ALIAS = new Map<string, CmdletEntry>(ENTRIES.flatMap((e) => (e.cmdlet.windowsAliases ?? []).map((n) => [n, e] as const)));

/** The cmdlet a command word names on `platform`, or undefined (an external program, or a cmdlet not listed). */
export function safeCmdlet(argv0: string, platform: NodeJS.Platform): CmdletEntry | undefined {
  const name = argv0.toLowerCase();
  return BY_NAME.get(name) ?? (platform === "win32" ? BY_WINDOWS_ALIAS.get(name) : undefined);
}

/** Whether `name` is one of the aliases that are native programs outside Windows (`ls`, `cat`, `sort`, `write`). */
export function isWindowsOnlyAlias(argv0: string): boolean {
  return BY_WINDOWS_ALIAS.has(argv0.toLowerCase());
}

/**
 * The parameter PowerShell binds `name` to: an exact name or alias first, else the one parameter that
 * every name starting with `name` belongs to. Undefined when none or several would.
 */
function resolve(parameters: ReadonlyMap<string, CmdletParameter>, name: string): CmdletParameter | undefined {
  const exact = parameters.get(name);
  if (exact) return exact;
  let found: CmdletParameter | undefined;
  for (const [n, p] of parameters) {
    if (!n.startsWith(name)) continue;
    if (found && found !== p) return undefined;
    found = p;
  }
  return found;
}

/**
 * A path that leaves this machine or this file system: a UNC path (`\\host\share`, `//host/share`),
 * a provider-qualified one (`FileSystem::\\host\share`), or a drive of more than one letter other than
 * the local providers' (`WSMan:` reaches remote hosts). A UNC read alone can hand a host the user's
 * Windows credentials.
 */
const LOCAL_DRIVES = new Set(["env", "variable", "alias", "function", "hklm", "hkcu", "cert", "temp"]);

function leavesMachine(word: string): boolean {
  if (word.startsWith("\\\\") || word.startsWith("//") || word.includes("::")) return true;
  const drive = /^([A-Za-z][A-Za-z0-9_]+):/.exec(word);
  return drive !== null && !LOCAL_DRIVES.has(drive[1]!.toLowerCase());
}

/**
 * Whether a listed read-only cmdlet's arguments are all known and harmless: every parameter resolves
 * (PowerShell's abbreviation rule) to one listed as accepted, a parameter that takes a value has one,
 * and no path leaves the machine.
 */
export function cmdletArgsSafe(cmdlet: CmdletEntry, args: readonly string[]): boolean {
  const { paths } = cmdlet.cmdlet;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const p = parameterWord(word);
    if (!p) {
      if (paths && leavesMachine(word)) return false;
      continue;
    }
    // `--` ends the parameters; what follows is positional.
    if (p.name === "") return args.slice(i + 1).every((a) => !paths || !leavesMachine(a));
    const parameter = resolve(cmdlet.parameters, p.name);
    if (!parameter || parameter.refused) return false;
    if (!parameter.value) {
      // `-Recurse: x` binds the next word to the switch.
      if (p.colon && p.value === "") i++;
      continue;
    }
    let value = p.value;
    if (!p.colon || value === "") {
      const next = args[i + 1];
      // A value that reads as a parameter binds differently across editions: refused, not guessed.
      if (next === undefined || parameterWord(next)) return false;
      value = next;
      i++;
    }
    if ((paths || parameter.path) && leavesMachine(value)) return false;
  }
  return true;
}
