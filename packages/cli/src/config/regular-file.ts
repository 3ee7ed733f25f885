import fs from "node:fs";
import { NotRegularFileError } from "../errors.js";

/** What `stat` says sits at a path, in words. */
function kindOf(st: fs.Stats): string {
  if (st.isFIFO()) return "FIFO";
  if (st.isSocket()) return "socket";
  if (st.isCharacterDevice()) return "character device";
  if (st.isBlockDevice()) return "block device";
  if (st.isDirectory()) return "directory";
  if (st.isSymbolicLink()) return "symbolic link";
  return "file of unknown type";
}

/**
 * The text of `file` if it is a regular file. It is opened non-blocking (opening a FIFO for reading
 * would wait for a writer, reading one for data) and judged by `fstat` of that descriptor, so what
 * is checked is what is read; links are followed (a config file may be one), the file they reach
 * is judged. Errors of the open itself (ENOENT, EACCES) are thrown as they come.
 * @throws NotRegularFileError for anything but a regular file (a unix socket: its open fails with ENXIO).
 */
export function readRegularFileSync(file: string): string {
  const flags = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);
  let fd: number;
  try {
    fd = fs.openSync(file, flags);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENXIO") {
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (st && !st.isFile()) throw new NotRegularFileError(file, kindOf(st));
    }
    throw error;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFileError(file, kindOf(st));
    return fs.readFileSync(fd, "utf8");
  } finally {
    fs.closeSync(fd);
  }
}
