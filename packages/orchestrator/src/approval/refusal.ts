import path from "node:path";
import { amendmentPrefixRefusal } from "../admission/amendments.js";

/** Programs that run a script given inline; an allow rule for `<shell> -c SCRIPT` would approve a whole script. */
const SCRIPT_RUNNERS = new Set([
  "bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "pwsh", "powershell", "powershell.exe", "cmd", "cmd.exe",
  "python", "python3", "python2", "pypy", "pypy3", "node", "perl", "ruby", "php", "lua", "osascript",
]);

/** Flags by which a script runner takes its program as an argument (`-c`, `-lc`, `-e`, `-Command`…). */
const INLINE_CODE_FLAG = /^(-[a-zA-Z]*[ce]|-r|-Command|-EncodedCommand|\/c|\/C|-)$/;

/**
 * Why `prefix` must never become an allow rule, or `undefined` when it may. Refused: a bare
 * interpreter or shell (it would allow any command), an inline script (`bash -lc '…'`, `python3 -c …`:
 * a rule for a whole script, which the rules language cannot check), and a command the heuristics
 * rate dangerous (a forced `rm`).
 */
export function amendmentRefusal(prefix: readonly string[], isDangerousArgv: (argv: readonly string[]) => boolean): string | undefined {
  if (prefix.length === 0) return "it is empty";
  const open = amendmentPrefixRefusal(prefix);
  if (open) return open;
  const program = path.basename(prefix[0] ?? "");
  if (SCRIPT_RUNNERS.has(program) && prefix.slice(1).some((t) => INLINE_CODE_FLAG.test(t))) {
    return "it is a whole script, not a plain command";
  }
  if (isDangerousArgv(prefix)) return "the heuristics rate it dangerous";
  return undefined;
}
