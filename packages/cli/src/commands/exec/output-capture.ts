import { closeSync, constants, lstatSync, mkdirSync, mkdtempSync, openSync, rmdirSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { defaultSpillDir } from "@shellgate/orchestrator";
import { decodeLossy, HeadTailBuffer } from "@shellgate/pty";

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Write all of `data` to `fd` before returning, waiting out a full pipe (EAGAIN) in 1 ms steps.
 * Blocking on purpose: while shellgate waits, it stops reading the command's output, so a slow reader
 * holds the command back instead of shellgate queueing its output in memory (`process.stdout.write`
 * on a pipe queues without bound). Throws the write's error (EPIPE when the reader went away).
 */
export function writeAllSync(fd: number, data: Uint8Array): void {
  let written = 0;
  while (written < data.byteLength) {
    try {
      written += writeSync(fd, data, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** Bytes of each stream `shellgate exec --json` puts in its JSON (half from the start, half from the end). */
export const JSON_OUTPUT_CAP_BYTES = 1024 * 1024;

/** One stream as `--json` reports it. */
export interface CapturedStream {
  /** The output, or its head and tail around a line saying how much was left out and where it all is. */
  text: string;
  totalBytes: number;
  /** The file holding every byte of the stream (mode 0600); only when `text` was cut. */
  fullOutputFile?: string;
}

/** A directory's device and inode, looked at without following a link; throws unless it is this user's own private directory. */
function privateDirIdentity(dir: string): { dev: number; ino: number } {
  const info = lstatSync(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory()) throw new Error(`${dir} is not a directory (a symlink is not accepted)`);
  if (uid !== undefined && info.uid !== uid) throw new Error(`${dir} is owned by uid ${info.uid}, not by this user (${uid})`);
  if (process.platform !== "win32" && (info.mode & 0o022) !== 0) throw new Error(`${dir} is writable by group or others`);
  return { dev: info.dev, ino: info.ino };
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Captures a command's stdout and stderr for `--json` with bounded memory: a head+tail buffer per
 * stream for the JSON, and every byte written as it arrives to a private file (a 0700 directory,
 * 0600 files) that is kept only for a stream that did not fit. The directory is made in the
 * orchestrator's spill location (shellgate's cache directory, held read-only in every sandbox), never
 * in a temp directory the command can write; files kept there are removed after 24 hours by a later
 * session. Removal at the end happens only while the directory is still the one that was made.
 */
export class JsonOutputCapture {
  /** The capture's directory and its identity; undefined when none could be made (`#failure` says why). */
  readonly #dir: { path: string; dev: number; ino: number } | undefined;
  readonly #failure: string | undefined;
  readonly #streams: Record<"stdout" | "stderr", { buffer: HeadTailBuffer; file: string | undefined; fd: number | undefined }>;

  /** `parent`: where the capture's own directory is made (default the orchestrator's `defaultSpillDir()`). */
  constructor(options: { capBytes?: number; parent?: string } = {}) {
    const cap = options.capBytes ?? JSON_OUTPUT_CAP_BYTES;
    const parent = options.parent ?? defaultSpillDir();
    let dir: { path: string; dev: number; ino: number } | undefined;
    let failure: string | undefined;
    try {
      mkdirSync(parent, { recursive: true, mode: 0o700 });
      privateDirIdentity(parent);
      const made = mkdtempSync(path.join(parent, "exec-"));
      dir = { path: made, ...privateDirIdentity(made) };
    } catch (error) {
      // The JSON still carries the head and tail; it says the rest could not be kept, and why.
      failure = (error as Error).message;
    }
    this.#dir = dir;
    this.#failure = failure;
    const open = (name: string) => {
      const file = dir ? path.join(dir.path, name) : undefined;
      return { buffer: new HeadTailBuffer(cap), file, fd: file ? openSync(file, CREATE, 0o600) : undefined };
    };
    this.#streams = { stdout: open("stdout.txt"), stderr: open("stderr.txt") };
  }

  /** Whether the directory is still the one that was made (not renamed away, not a link in its place). */
  #unchanged(): boolean {
    if (!this.#dir) return false;
    try {
      const now = privateDirIdentity(this.#dir.path);
      return now.dev === this.#dir.dev && now.ino === this.#dir.ino;
    } catch {
      return false;
    }
  }

  /** Take the next chunk of `stream`. */
  push(stream: "stdout" | "stderr", chunk: Uint8Array): void {
    const s = this.#streams[stream];
    s.buffer.push(chunk);
    if (s.fd !== undefined) writeAllSync(s.fd, chunk);
  }

  /** Close the files, remove those not needed, and return both streams as `--json` shows them. */
  finish(): Record<"stdout" | "stderr", CapturedStream> {
    const result = {} as Record<"stdout" | "stderr", CapturedStream>;
    let kept = 0;
    // Nothing is removed by name from a directory that is no longer ours: that name could lead anywhere.
    const unchanged = this.#unchanged();
    for (const name of ["stdout", "stderr"] as const) {
      const s = this.#streams[name];
      if (s.fd !== undefined) closeSync(s.fd);
      s.fd = undefined;
      const b = s.buffer;
      if (b.truncated) {
        kept += 1;
        const head = decodeLossy(b.headBytesCopy());
        const tail = decodeLossy(b.tailBytesCopy());
        const where = s.file !== undefined ? `is in ${s.file}` : `could not be saved (${this.#failure ?? "no directory"})`;
        const marker = `\n... ${b.droppedBytes} bytes omitted; the whole ${name} (${b.totalBytes} bytes) ${where} ...\n`;
        result[name] = { text: `${head}${marker}${tail}`, totalBytes: b.totalBytes, ...(s.file !== undefined ? { fullOutputFile: s.file } : {}) };
      } else {
        if (unchanged && s.file !== undefined) unlinkSync(s.file);
        result[name] = { text: decodeLossy(b.toBytes()), totalBytes: b.totalBytes };
      }
    }
    if (kept === 0 && unchanged && this.#dir) rmdirSync(this.#dir.path);
    return result;
  }
}
