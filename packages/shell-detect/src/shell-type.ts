import type { ShellType } from "./types.js";

const NAMES: Readonly<Record<string, ShellType>> = {
  zsh: "zsh",
  bash: "bash",
  sh: "sh",
  pwsh: "powershell",
  powershell: "powershell",
  cmd: "cmd",
};

/** Shells people do use as login shells but that cannot run our `-c` scripts faithfully. */
const KNOWN_UNSUPPORTED = new Set(["fish", "nu", "nushell", "elvish", "xonsh", "tcsh", "csh", "ksh", "mksh", "dash", "ash", "oil", "osh", "ion"]);

/** The last path component, understanding both `/` and `\` separators (Windows paths on any host). */
function baseName(path: string): string {
  const i = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  return path.slice(i + 1);
}

function stem(path: string): string {
  const base = baseName(path).toLowerCase();
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

/**
 * The shell type a name or path denotes, from its file name: `zsh`, `/bin/zsh`, `pwsh.exe`,
 * `C:\Windows\System32\cmd.exe`... Returns `undefined` for anything else (fish, `python`, "").
 */
export function shellTypeFromPath(path: string): ShellType | undefined {
  if (path.length === 0) return undefined;
  return NAMES[path.toLowerCase()] ?? NAMES[stem(path)];
}

/** The file name of a shell we recognise but do not support (fish, nushell...), else `undefined`. */
export function unsupportedShellName(path: string): string | undefined {
  const s = stem(path);
  return KNOWN_UNSUPPORTED.has(s) ? s : undefined;
}

const TRUSTED_POSIX: ReadonlyMap<string, ShellType> = new Map([
  ...["zsh", "/bin/zsh", "/usr/bin/zsh", "/usr/local/bin/zsh", "/opt/homebrew/bin/zsh"].map((p) => [p, "zsh"] as const),
  ...["bash", "/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"].map((p) => [p, "bash"] as const),
  ...["sh", "/bin/sh", "/usr/bin/sh"].map((p) => [p, "sh"] as const),
]);

const TRUSTED_POWERSHELL = new Set([
  "pwsh", "powershell",
  "/usr/local/bin/pwsh", "/usr/bin/pwsh", "/bin/pwsh", "/opt/homebrew/bin/pwsh", "/snap/bin/pwsh", "/opt/microsoft/powershell/7/pwsh",
]);
/** Compared lowercased with `\` read as `/`, as Windows compares paths. */
const TRUSTED_POWERSHELL_WINDOWS = new Set([
  "pwsh.exe",
  "powershell.exe",
  "c:/windows/system32/windowspowershell/v1.0/powershell.exe",
  "c:/windows/syswow64/windowspowershell/v1.0/powershell.exe",
  "c:/program files/powershell/7/pwsh.exe",
  "c:/program files/powershell/7-preview/pwsh.exe",
]);
const TRUSTED_CMD = new Set(["cmd", "cmd.exe", "c:/windows/system32/cmd.exe"]);

/**
 * The shell type of `argv0` for *trust* purposes: only exact system locations and bare names count,
 * so a file called `bash` in `/tmp` or the workspace is not treated as a shell wrapper whose script
 * we may look inside. Windows paths are compared case-insensitively with `\` read as `/`.
 */
export function trustedShellType(argv0: string): ShellType | undefined {
  const posix = TRUSTED_POSIX.get(argv0);
  if (posix) return posix;
  if (TRUSTED_POWERSHELL.has(argv0)) return "powershell";
  const win = argv0.toLowerCase().replaceAll("\\", "/");
  if (TRUSTED_POWERSHELL_WINDOWS.has(win)) return "powershell";
  if (TRUSTED_CMD.has(argv0) || TRUSTED_CMD.has(win)) return "cmd";
  return undefined;
}
