/** Reading a file that must be a regular one, without ever blocking on a FIFO planted in its place. */
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
 * The contents of `file` if it is a regular file. It is opened non-blocking (opening a FIFO for
 * reading would wait for a writer, reading one for data) and judged by `fstat` of that descriptor,
 * so what is checked is what is read. With `followLinks: false` a symbolic link as the last
 * component is refused too. Errors of the open itself (ENOENT, EACCES) are thrown as they come.
 * @throws NotRegularFileError for anything but a regular file (a unix socket: its open fails with ENXIO).
 */
export function readRegularFileSync(file: string, options: { followLinks?: boolean } = {}): Buffer {
  const follow = options.followLinks !== false;
  const flags = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (follow ? 0 : (fs.constants.O_NOFOLLOW ?? 0));
  let fd: number;
  try {
    fd = fs.openSync(file, flags);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENXIO" || (code === "ELOOP" && !follow)) {
      const st = follow ? fs.statSync(file, { throwIfNoEntry: false }) : fs.lstatSync(file, { throwIfNoEntry: false });
      if (st && !st.isFile()) throw new NotRegularFileError(file, kindOf(st));
    }
    throw error;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new NotRegularFileError(file, kindOf(st));
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
