// Whether a descriptor is a terminal, asked without loading node:tty where the answer is plainly no.
// node:tty is the one built-in module `shellgate exec` would load only for this question (~1 ms of
// every start, measured on a 2-core VM). An agent host runs exec with pipes, or with /dev/null for an
// ignored stdin: neither is a terminal, and one fstat says so.
import fs from "node:fs";

let devNull: { rdev: number } | null | undefined;

/** The device number of /dev/null, or null where there is none to compare with. */
function devNullDevice(): { rdev: number } | null {
  if (devNull === undefined) {
    try {
      devNull = { rdev: fs.statSync("/dev/null").rdev };
    } catch {
      devNull = null;
    }
  }
  return devNull;
}

/**
 * Whether `fd` is open on a terminal, as `tty.isatty(fd)` answers. A descriptor that is not a
 * character device (a pipe, a socket, a file) or that is /dev/null is answered from its `fstat`; any
 * other character device, and every descriptor on Windows (where consoles are not told apart so),
 * by node:tty itself. A closed or invalid descriptor is not a terminal.
 */
export function isTerminal(fd: number): boolean {
  if (process.platform !== "win32") {
    let stat: fs.Stats;
    try {
      stat = fs.fstatSync(fd);
    } catch {
      return false;
    }
    if (!stat.isCharacterDevice()) return false;
    const nullDevice = devNullDevice();
    if (nullDevice !== null && stat.rdev === nullDevice.rdev) return false;
  }
  return process.getBuiltinModule("node:tty").isatty(fd);
}
