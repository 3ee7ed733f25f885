import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { CommandNotFoundError, InvalidCommandSpecError, InvalidSandboxPathError, type CommandSpec } from "@shellgate/sandbox";

/** What macOS's execvp searches when PATH is unset. */
const DEFAULT_PATH = "/usr/bin:/bin";

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await fs.access(file, constants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * Check, before anything is spawned, that the command can start: an existing, accessible working
 * directory and a program found where `sandbox-exec`'s execvp will look (the command's own `PATH`).
 * Otherwise a missing program would surface as a sandbox failure instead of "command not found".
 * @throws InvalidSandboxPathError (field `cwd`), InvalidCommandSpecError (field `argv`) or CommandNotFoundError.
 */
export async function checkCommand(spec: CommandSpec): Promise<void> {
  const program = spec.argv[0];
  if (program === undefined || program === "") throw new InvalidCommandSpecError("argv", "must name a program");
  if (!path.isAbsolute(spec.cwd)) throw new InvalidSandboxPathError("cwd", spec.cwd, "must be an absolute path");
  try {
    if (!(await fs.stat(spec.cwd)).isDirectory()) throw new InvalidSandboxPathError("cwd", spec.cwd, "is not a directory");
    await fs.access(spec.cwd, constants.R_OK | constants.X_OK);
  } catch (error) {
    if (error instanceof InvalidSandboxPathError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidSandboxPathError("cwd", spec.cwd, code === "ENOENT" ? "does not exist" : `is not accessible (${code ?? "error"})`);
  }
  if (program.includes("/")) {
    const file = path.resolve(spec.cwd, program);
    if (await isExecutableFile(file)) return;
    const exists = await fs.stat(file).then(() => true, () => false);
    throw new CommandNotFoundError(program, exists ? { detail: "not an executable file" } : {});
  }
  const searchPath = spec.env["PATH"] ?? DEFAULT_PATH;
  for (const dir of searchPath.split(":")) {
    if (await isExecutableFile(path.resolve(spec.cwd, dir || ".", program))) return;
  }
  throw new CommandNotFoundError(program, { searchPath });
}
