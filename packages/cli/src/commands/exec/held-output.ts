import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PromptScreen } from "../../approval/terminal.js";
import { writeAllSync } from "./output-capture.js";

/** Bytes of held output kept in memory; what arrives beyond them waits in a private file. */
export const HELD_MEMORY_BYTES = 4 * 1024 * 1024;

type Stream = "stdout" | "stderr";
const LF = 0x0a;
/** A record in the spill file: stream (1 byte), length (4 bytes, big-endian), then the bytes. */
const RECORD_HEADER_BYTES = 5;
/** Most bytes read back from the spill file at once, whatever length a record claims. */
const REPLAY_PIECE_BYTES = 64 * 1024;

/**
 * The command output `shellgate exec` writes to a person's terminal, arranged around approval
 * prompts: while a prompt is on screen the output is held (in order, across both streams) and written
 * after the answer, so nothing the command prints can draw over the prompt while it is read. Memory
 * is bounded: past `HELD_MEMORY_BYTES` the held output goes to a 0600 file in a 0700 directory,
 * read back in bounded pieces and removed on release. Held bytes are the command's raw output: the
 * terminal filter runs in `write`, when they are written, so a spill file changed meanwhile (the
 * temp directory may be one the sandbox can write) gets no further than the output itself could.
 */
export class HeldTerminalOutput implements PromptScreen {
  readonly #write: (stream: Stream, data: Uint8Array) => Uint8Array;
  readonly #memoryCap: number;
  readonly #tmpdir: string;
  #holding = false;
  #held: Array<{ stream: Stream; data: Uint8Array }> = [];
  #heldBytes = 0;
  #spill: { dir: string; fd: number } | undefined;
  /** Whether the last byte written to the terminal ended a line (nothing written yet counts as yes). */
  #atLineStart = true;

  /**
   * `write` filters bytes, puts them on the terminal and returns what it wrote (it may throw: the
   * caller's write error handling stays its own). `memoryCap` and `tmpdir` are for tests.
   */
  constructor(write: (stream: Stream, data: Uint8Array) => Uint8Array, options: { memoryCap?: number; tmpdir?: string } = {}) {
    this.#write = write;
    this.#memoryCap = options.memoryCap ?? HELD_MEMORY_BYTES;
    this.#tmpdir = options.tmpdir ?? os.tmpdir();
  }

  /** Write `data` of `stream` now, or hold it while a prompt is on screen. */
  push(stream: Stream, data: Uint8Array): void {
    if (data.byteLength === 0) return;
    if (!this.#holding) return this.#emit(stream, data);
    if (this.#spill === undefined && this.#heldBytes + data.byteLength <= this.#memoryCap) {
      // A copy: the caller may reuse its buffer.
      this.#held.push({ stream, data: Uint8Array.from(data) });
      this.#heldBytes += data.byteLength;
      return;
    }
    const spill = (this.#spill ??= this.#openSpill());
    const header = new Uint8Array(RECORD_HEADER_BYTES);
    header[0] = stream === "stdout" ? 1 : 2;
    new DataView(header.buffer).setUint32(1, data.byteLength);
    writeAllSync(spill.fd, header);
    writeAllSync(spill.fd, data);
  }

  /** {@inheritDoc PromptScreen.hold} */
  hold(): string {
    this.#holding = true;
    return this.#atLineStart ? "" : "\n";
  }

  /** {@inheritDoc PromptScreen.release} */
  release(): void {
    if (!this.#holding) return;
    this.#holding = false;
    const held = this.#held;
    this.#held = [];
    this.#heldBytes = 0;
    const spill = this.#spill;
    this.#spill = undefined;
    try {
      for (const { stream, data } of held) this.#emit(stream, data);
      if (spill) this.#replay(spill.fd);
    } finally {
      if (spill) {
        closeSync(spill.fd);
        rmSync(spill.dir, { recursive: true, force: true });
      }
    }
  }

  /** Remove a spill file still open (the run ended while a prompt was on screen). */
  dispose(): void {
    if (!this.#spill) return;
    closeSync(this.#spill.fd);
    rmSync(this.#spill.dir, { recursive: true, force: true });
    this.#spill = undefined;
  }

  #emit(stream: Stream, data: Uint8Array): void {
    const written = this.#write(stream, data);
    if (written.byteLength > 0) this.#atLineStart = written[written.byteLength - 1] === LF;
  }

  #openSpill(): { dir: string; fd: number } {
    const dir = mkdtempSync(path.join(this.#tmpdir, "shellgate-held-"));
    return { dir, fd: openSync(path.join(dir, "output"), "wx+", 0o600) };
  }

  #replay(fd: number): void {
    let position = 0;
    const header = new Uint8Array(RECORD_HEADER_BYTES);
    const piece = new Uint8Array(REPLAY_PIECE_BYTES);
    for (;;) {
      if (readFully(fd, header, position) < RECORD_HEADER_BYTES) return;
      position += RECORD_HEADER_BYTES;
      const stream = header[0] === 1 ? "stdout" : "stderr";
      let left = new DataView(header.buffer).getUint32(1);
      while (left > 0) {
        const n = readFully(fd, piece.subarray(0, Math.min(left, piece.byteLength)), position);
        if (n === 0) return;
        position += n;
        left -= n;
        // A copy: `write` may keep what it is given, and the piece is read into again.
        this.#emit(stream, piece.slice(0, n));
      }
    }
  }
}

/** Read `into.byteLength` bytes at `position` (fewer only at the end of the file); returns how many. */
function readFully(fd: number, into: Uint8Array, position: number): number {
  let read = 0;
  while (read < into.byteLength) {
    const n = readSync(fd, into, read, into.byteLength - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return read;
}
