// CreateProcessAsUserW takes one command line, not an argv: each program splits it itself. Most
// (the MSVC C runtime, CommandLineToArgvW, Node, Python) use the same rules, which these quote for.
// cmd.exe has its own; a caller running `cmd /c SCRIPT` passes the script as one argument and
// cmd reads it as written.

/** Quote one argument so that CommandLineToArgvW / the MSVC runtime read it back unchanged. */
export function quoteWindowsArg(arg: string): string {
  if (arg !== "" && !/[ \t\n\v"]/.test(arg)) return arg;
  let out = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === "\\") {
      backslashes++;
      continue;
    }
    if (ch === '"') {
      out += "\\".repeat(backslashes * 2 + 1) + '"';
    } else {
      out += "\\".repeat(backslashes) + ch;
    }
    backslashes = 0;
  }
  // Backslashes before the closing quote are doubled so that they do not escape it.
  return `${out}${"\\".repeat(backslashes * 2)}"`;
}

/** The command line for `argv` (program first). */
export function windowsCommandLine(argv: readonly string[]): string {
  return argv.map(quoteWindowsArg).join(" ");
}
