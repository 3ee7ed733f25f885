import { closeSync, mkdtempSync, openSync, rmdirSync, unlinkSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
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

/**
 * Captures a command's stdout and stderr for `--json` with bounded memory: a head+tail buffer per
 * stream for the JSON, and every byte written as it arrives to a private file (a 0700 directory,
 * 0600 files) that is kept only for a stream that did not fit.
 */
export class JsonOutputCapture {
  readonly #dir: string;
  readonly #streams: Record<"stdout" | "stderr", { buffer: HeadTailBuffer; file: string; fd: number | undefined }>;

  /** `tmpdir`: where the spill directory is made (default the OS temp dir). */
  constructor(options: { capBytes?: number; tmpdir?: string } = {}) {
    const cap = options.capBytes ?? JSON_OUTPUT_CAP_BYTES;
    this.#dir = mkdtempSync(path.join(options.tmpdir ?? os.tmpdir(), "shellgate-exec-"));
    const open = (name: string) => {
      const file = path.join(this.#dir, name);
      return { buffer: new HeadTailBuffer(cap), file, fd: openSync(file, "wx", 0o600) };
    };
    this.#streams = { stdout: open("stdout.txt"), stderr: open("stderr.txt") };
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
    for (const name of ["stdout", "stderr"] as const) {
      const s = this.#streams[name];
      if (s.fd !== undefined) closeSync(s.fd);
      s.fd = undefined;
      const b = s.buffer;
      if (b.truncated) {
        kept += 1;
        const head = decodeLossy(b.headBytesCopy());
        const tail = decodeLossy(b.tailBytesCopy());
        const marker = `\n... ${b.droppedBytes} bytes omitted; the whole ${name} (${b.totalBytes} bytes) is in ${s.file} ...\n`;
        result[name] = { text: `${head}${marker}${tail}`, totalBytes: b.totalBytes, fullOutputFile: s.file };
      } else {
        unlinkSync(s.file);
        result[name] = { text: decodeLossy(b.toBytes()), totalBytes: b.totalBytes };
      }
    }
    if (kept === 0) rmdirSync(this.#dir);
    return result;
  }
}
