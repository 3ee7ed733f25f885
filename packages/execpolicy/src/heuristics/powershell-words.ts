/**
 * How PowerShell reads the words of one command: which words are parameters and what they are called.
 * Shared by the known-safe and the dangerous PowerShell checks.
 */

/** PowerShell takes an en dash, em dash or horizontal bar for `-` in a parameter, as pasted text often has. */
const DASHES = new Set(["-", "\u2013", "\u2014", "\u2015"]);

/** A parameter word: `-Name`, `-Name:value` or `-Name:` (the value is then the next word). */
export interface ParameterWord {
  /** Lower case, without the dash and without any `:value`. */
  name: string;
  /** Whether a `:` follows the name (the value is attached, or is the next word when nothing follows the colon). */
  colon: boolean;
  /** The attached value (after `:`), empty when none. */
  value: string;
}

/**
 * The parameter a word names, or undefined when it is an argument. `--` (end of parameters) is a
 * parameter with the empty name; callers decide what it means to them.
 */
export function parameterWord(word: string): ParameterWord | undefined {
  if (word.length < 2 || !DASHES.has(word[0]!)) return undefined;
  const rest = word.slice(1);
  const colon = rest.indexOf(":");
  const name = (colon < 0 ? rest : rest.slice(0, colon)).toLowerCase();
  if (name === "-") return { name: "", colon: false, value: "" };
  return { name, colon: colon >= 0, value: colon < 0 ? "" : rest.slice(colon + 1) };
}

const WINDOWS_EXTENSIONS = /\.(exe|com|cmd|bat)$/;

/**
 * The name a PowerShell command word is judged by when over-approximating: lower case, without a
 * module qualifier or directory (`Microsoft.PowerShell.Management\Remove-Item`, `C:\Windows\System32\format.com`)
 * and without a Windows program extension.
 */
export function commandKey(argv0: string): string {
  const base = argv0.slice(Math.max(argv0.lastIndexOf("/"), argv0.lastIndexOf("\\")) + 1).toLowerCase();
  return base.replace(WINDOWS_EXTENSIONS, "");
}
