import { closeSync, constants, openSync, rmdirSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { decodeLossy, HeadTailBuffer } from "@shellgate/pty";
import { CREATE_PRIVATE_FILE, makePrivateRunDir, stillPrivateRunDir, type PrivateRunDir } from "./private-run-dir.js";

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
const JSON_OUTPUT_CAP_BYTES = 1024 * 1024;

/** One stream as `--json` reports it. */
export interface CapturedStream {
  /** The output, or its head and tail around a line saying how much was left out and where it all is. */
  text: string;
  totalBytes: number;
  /** The file holding every byte of the stream (mode 0600); only when `text` was cut. */
  fullOutputFile?: string;
}

const CREATE = constants.O_WRONLY | CREATE_PRIVATE_FILE;

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
  readonly #dir: PrivateRunDir | undefined;
  readonly #failure: string | undefined;
  readonly #streams: Record<"stdout" | "stderr", { buffer: HeadTailBuffer; file: string | undefined; fd: number | undefined }>;

  /** `parent`: where the capture's own directory is made (default the orchestrator's `defaultSpillDir()`). */
  constructor(options: { capBytes?: number; parent?: string } = {}) {
    const cap = options.capBytes ?? JSON_OUTPUT_CAP_BYTES;
    let dir: PrivateRunDir | undefined;
    let failure: string | undefined;
    try {
      dir = makePrivateRunDir("exec-", options.parent);
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
    return this.#dir !== undefined && stillPrivateRunDir(this.#dir);
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
