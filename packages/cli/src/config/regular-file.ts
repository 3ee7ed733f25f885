import { readRegularFileSync as readRegular, SandboxNotRegularFileError } from "@shellgate/sandbox";
import { NotRegularFileError } from "../errors.js";

/**
 * The text of a configuration file if it is a regular file: the sandbox package's reader (opened
 * non-blocking, judged by `fstat` of the descriptor, so a FIFO planted as a config file is refused
 * rather than waited on); links are followed, since a config file may be one, and the file they reach
 * is judged. Errors of the open itself (ENOENT, EACCES) are thrown as they come.
 * @throws NotRegularFileError (a configuration error, exit 125) for anything but a regular file.
 */
export function readRegularFileSync(file: string): string {
  try {
    return readRegular(file);
  } catch (error) {
    if (error instanceof SandboxNotRegularFileError) throw new NotRegularFileError(file, error.found);
    throw error;
  }
}
