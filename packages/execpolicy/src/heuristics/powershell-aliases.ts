import { commandKey } from "./powershell-words.js";

/**
 * PowerShell's built-in aliases (lower case), alias → cmdlet. Windows PowerShell 5.1 and PowerShell 7
 * define these; on Linux and macOS, pwsh 7 leaves out the ones that shadow native programs (`ls`, `cat`,
 * `rm`, `cp`, `mv`, `sort`, `kill`, `ps`, `curl`, `wget`…), but a rule-matching question ("could this
 * word name that cmdlet?") over-approximates and counts them everywhere.
 */
const ALIASES: Readonly<Record<string, string>> = {
  ac: "add-content", cat: "get-content", cd: "set-location", chdir: "set-location", clc: "clear-content",
  clear: "clear-host", clhy: "clear-history", cli: "clear-item", clp: "clear-itemproperty", cls: "clear-host",
  clv: "clear-variable", compare: "compare-object", copy: "copy-item", cp: "copy-item", cpi: "copy-item",
  cpp: "copy-itemproperty", curl: "invoke-webrequest", del: "remove-item", diff: "compare-object",
  dir: "get-childitem", echo: "write-output", epal: "export-alias", epcsv: "export-csv", erase: "remove-item",
  etsn: "enter-pssession", fc: "format-custom", fl: "format-list", foreach: "foreach-object",
  ft: "format-table", fw: "format-wide", gal: "get-alias", gc: "get-content", gci: "get-childitem",
  gcm: "get-command", gdr: "get-psdrive", ghy: "get-history", gi: "get-item", gl: "get-location",
  gm: "get-member", gp: "get-itemproperty", gps: "get-process", group: "group-object", gsv: "get-service",
  gu: "get-unique", gv: "get-variable", h: "get-history", history: "get-history", icm: "invoke-command",
  iex: "invoke-expression", ihy: "invoke-history", ii: "invoke-item", ipal: "import-alias",
  ipcsv: "import-csv", ipmo: "import-module", irm: "invoke-restmethod", iwr: "invoke-webrequest",
  kill: "stop-process", ls: "get-childitem", man: "help", measure: "measure-object", mi: "move-item",
  mount: "new-psdrive", move: "move-item", mp: "move-itemproperty", mv: "move-item", nal: "new-alias",
  ndr: "new-psdrive", ni: "new-item", nsn: "new-pssession", nv: "new-variable", oh: "out-host",
  popd: "pop-location", ps: "get-process", pushd: "push-location", pwd: "get-location", r: "invoke-history",
  rd: "remove-item", rdr: "remove-psdrive", ren: "rename-item", ri: "remove-item", rm: "remove-item",
  rmdir: "remove-item", rni: "rename-item", rnp: "rename-itemproperty", rp: "remove-itemproperty",
  rv: "remove-variable", rvpa: "resolve-path", sajb: "start-job", sal: "set-alias", saps: "start-process",
  sasv: "start-service", sc: "set-content", select: "select-object", set: "set-variable", si: "set-item",
  sl: "set-location", sleep: "start-sleep", sls: "select-string", sort: "sort-object", sp: "set-itemproperty",
  spps: "stop-process", spsv: "stop-service", start: "start-process", sv: "set-variable", tee: "tee-object",
  type: "get-content", where: "where-object", wget: "invoke-webrequest", write: "write-output",
  "%": "foreach-object", "?": "where-object",
};

/** The built-in aliases of `cmdlet` (lower case), Windows-only ones included. */
export function aliasesOf(cmdlet: string): string[] {
  return Object.keys(ALIASES).filter((alias) => ALIASES[alias] === cmdlet);
}

/**
 * The one name every spelling of a PowerShell command word shares: lower case, without a directory or
 * module qualifier (`Microsoft.PowerShell.Management\Remove-Item`), without a Windows program extension
 * (`git.exe`), and an alias replaced by its cmdlet (`ri`, `rm`, `del` → `remove-item`). PowerShell
 * resolves command names without regard to case, so `Remove-Item`, `remove-item` and `ri` are one command.
 */
export function powerShellCommandKey(word: string): string {
  const base = commandKey(word);
  return Object.hasOwn(ALIASES, base) ? ALIASES[base]! : base;
}
