import { checkCommand as checkPosixCommand, type CommandSpec } from "@shellgate/sandbox";

/**
 * The shared pre-spawn check (`checkCommand` of @shellgate/sandbox) with glibc's default search
 * path, `/bin:/usr/bin`: the program is looked up where the helper's execvp will look.
 */
export function checkCommand(spec: CommandSpec): Promise<void> {
  return checkPosixCommand(spec, { defaultPath: "/bin:/usr/bin" });
}
