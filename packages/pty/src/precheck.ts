import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, resolve } from "node:path";
import { SpawnError, UnsupportedPlatformError } from "./errors.js";
import type { ResolvedSpec } from "./spec.js";

// What execvp searches when the child's environment has no PATH (glibc's default, plus /usr/local/bin).
const FALLBACK_PATH = "/usr/local/bin:/bin:/usr/bin";

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Refuses platforms without process groups: the lifetime guarantees would silently not hold. */
export function assertPosix(): void {
  if (process.platform === "win32") throw new UnsupportedPlatformError(process.platform);
}

/**
 * Checks cwd and the program before forking. libuv reports a missing cwd and a missing program
 * both as a late ENOENT, and node-pty only as the child's exit code 1; checking first gives a clear
 * synchronous `SpawnError` that names which one is wrong.
 */
export function precheckSpawn(spec: ResolvedSpec): void {
  const program = spec.argv[0] as string;
  let cwdOk = false;
  try {
    cwdOk = statSync(spec.cwd).isDirectory();
  } catch {
    cwdOk = false;
  }
  if (!cwdOk) throw new SpawnError(program, `working directory ${JSON.stringify(spec.cwd)} does not exist or is not a directory`, "ENOENT");
  if (program.includes("/")) {
    const full = isAbsolute(program) ? program : resolve(spec.cwd, program);
    if (!isExecutableFile(full)) throw new SpawnError(program, `${full} is not an executable file`, "ENOENT");
    return;
  }
  const searchPath = spec.env.PATH ?? FALLBACK_PATH;
  for (const dir of searchPath.split(delimiter)) {
    if (isExecutableFile(resolve(spec.cwd, dir === "" ? "." : dir, program))) return;
  }
  throw new SpawnError(program, `not found on PATH (${searchPath})`, "ENOENT");
}
