import { checkCommand as checkPosixCommand, type CommandSpec } from "@shellgate/sandbox";

/** What macOS's execvp searches when PATH is unset. */
const DEFAULT_PATH = "/usr/bin:/bin";

/**
 * The shared pre-spawn check (`checkCommand` of @shellgate/sandbox) with macOS's default search
 * path: the program is looked up where `sandbox-exec`'s execvp will look.
 */
export function checkCommand(spec: CommandSpec): Promise<void> {
  return checkPosixCommand(spec, { defaultPath: DEFAULT_PATH });
}
