import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { CommandNotFoundError, InvalidCommandSpecError, InvalidSandboxPathError, type CommandSpec } from "@shellgate/sandbox";

/** What glibc's execvp searches when PATH is unset. */
const DEFAULT_PATH = "/bin:/usr/bin";

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    await fs.access(file, constants.X_OK);
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * Check, before anything is spawned, that the command can start: an absolute, existing,
 * readable working directory and a program found the way `execvp` will look for it (the
 * command's own `PATH`). A missing program would otherwise surface as a sandbox failure.
 * @throws InvalidSandboxPathError (field `cwd`), InvalidCommandSpecError (field `argv`) or CommandNotFoundError.
 */
export async function checkCommand(spec: CommandSpec): Promise<void> {
  const program = spec.argv[0];
  if (program === undefined || program === "") throw new InvalidCommandSpecError("argv", "must name a program");
  if (!path.isAbsolute(spec.cwd)) throw new InvalidSandboxPathError("cwd", spec.cwd, "must be an absolute path");
  try {
    const stat = await fs.stat(spec.cwd);
    if (!stat.isDirectory()) throw new InvalidSandboxPathError("cwd", spec.cwd, "is not a directory");
    await fs.access(spec.cwd, constants.R_OK | constants.X_OK);
  } catch (error) {
    if (error instanceof InvalidSandboxPathError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidSandboxPathError("cwd", spec.cwd, code === "ENOENT" ? "does not exist" : `is not accessible (${code ?? "error"})`);
  }
  if (program.includes("/")) {
    const file = path.resolve(spec.cwd, program);
    if (!(await isExecutableFile(file))) {
      const exists = await fs.stat(file).then(() => true, () => false);
      throw new CommandNotFoundError(program, exists ? { detail: "not an executable file" } : {});
    }
    return;
  }
  const searchPath = spec.env["PATH"] ?? DEFAULT_PATH;
  for (const dir of searchPath.split(":")) {
    if (await isExecutableFile(path.resolve(spec.cwd, dir || ".", program))) return;
  }
  throw new CommandNotFoundError(program, { searchPath });
}
