import fs from "node:fs";
import path from "node:path";
import type { CommandSpec } from "./backend.js";
import { CommandNotFoundError, InvalidCommandSpecError, InvalidSandboxPathError } from "./errors.js";

/** Options of `checkCommand`. */
export interface CheckCommandOptions {
  /**
   * What the platform's `execvp` searches when the command's environment has no `PATH`:
   * glibc `/bin:/usr/bin` (the default), macOS `/usr/bin:/bin`.
   */
  defaultPath?: string;
}

// The lookups are synchronous for the reason paths.ts gives: a few stats on the way to every start.
function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Check, before anything is spawned, that a POSIX command can start: an absolute, existing,
 * readable working directory and a program found the way `execvp` will look for it (the
 * command's own `PATH`). For backends: a missing program would otherwise surface as a sandbox
 * failure instead of "command not found".
 * @throws InvalidSandboxPathError (field `cwd`), InvalidCommandSpecError (field `argv`) or CommandNotFoundError.
 */
export async function checkCommand(spec: CommandSpec, options: CheckCommandOptions = {}): Promise<void> {
  const program = spec.argv[0];
  if (program === undefined || program === "") throw new InvalidCommandSpecError("argv", "must name a program");
  if (!path.isAbsolute(spec.cwd)) throw new InvalidSandboxPathError("cwd", spec.cwd, "must be an absolute path");
  try {
    const stat = fs.statSync(spec.cwd);
    if (!stat.isDirectory()) throw new InvalidSandboxPathError("cwd", spec.cwd, "is not a directory");
    fs.accessSync(spec.cwd, fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    if (error instanceof InvalidSandboxPathError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidSandboxPathError("cwd", spec.cwd, code === "ENOENT" ? "does not exist" : `is not accessible (${code ?? "error"})`);
  }
  if (program.includes("/")) {
    const file = path.resolve(spec.cwd, program);
    if (isExecutableFile(file)) return;
    let exists = false;
    try {
      exists = fs.statSync(file, { throwIfNoEntry: false }) !== undefined;
    } catch {
      // not reachable (ENOTDIR, EACCES): reported as missing
    }
    throw new CommandNotFoundError(program, exists ? { detail: "not an executable file" } : {});
  }
  const searchPath = spec.env["PATH"] ?? options.defaultPath ?? "/bin:/usr/bin";
  for (const dir of searchPath.split(":")) {
    if (isExecutableFile(path.resolve(spec.cwd, dir || ".", program))) return;
  }
  throw new CommandNotFoundError(program, { searchPath });
}
