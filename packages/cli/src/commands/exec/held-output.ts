import { closeSync, constants, openSync, readSync, rmSync } from "node:fs";
import path from "node:path";
import type { PromptScreen } from "../../approval/terminal.js";
import { writeAllSync } from "./output-capture.js";
import { CREATE_PRIVATE_FILE, makePrivateRunDir, stillPrivateRunDir, type PrivateRunDir } from "./private-run-dir.js";

/** Bytes of held output kept in memory; what arrives beyond them waits in a private file. */
const HELD_MEMORY_BYTES = 4 * 1024 * 1024;

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
 * is bounded: past `HELD_MEMORY_BYTES` the held output goes to a 0600 file in a 0700 directory of
 * the private spill location (see `makePrivateRunDir`: never a directory the command can write),
 * read back in bounded pieces and removed on release; where no such directory can be made, it stays
 * in memory rather than being lost. Held bytes are the command's raw output: the terminal filter runs
 * in `write`, when they are written.
 */
export class HeldTerminalOutput implements PromptScreen {
  readonly #write: (stream: Stream, data: Uint8Array) => Uint8Array;
  readonly #memoryCap: number;
  readonly #parent: string | undefined;
  #holding = false;
  #held: Array<{ stream: Stream; data: Uint8Array }> = [];
  #heldBytes = 0;
  #spill: { dir: PrivateRunDir; fd: number } | undefined;
  /** Set once a spill directory could not be made: the rest is held in memory. */
  #spillFailed = false;
  /** Whether the last byte written to the terminal ended a line (nothing written yet counts as yes). */
  #atLineStart = true;

  /**
   * `write` filters bytes, puts them on the terminal and returns what it wrote (it may throw: the
   * caller's write error handling stays its own). `memoryCap` and `parent` (where the spill
   * directory is made) are for tests.
   */
  constructor(write: (stream: Stream, data: Uint8Array) => Uint8Array, options: { memoryCap?: number; parent?: string } = {}) {
    this.#write = write;
    this.#memoryCap = options.memoryCap ?? HELD_MEMORY_BYTES;
    this.#parent = options.parent;
  }

  /** Write `data` of `stream` now, or hold it while a prompt is on screen. */
  push(stream: Stream, data: Uint8Array): void {
    if (data.byteLength === 0) return;
    if (!this.#holding) return this.#emit(stream, data);
    if (this.#spill === undefined && (this.#heldBytes + data.byteLength <= this.#memoryCap || !this.#startSpill())) {
      // A copy: the caller may reuse its buffer.
      this.#held.push({ stream, data: Uint8Array.from(data) });
      this.#heldBytes += data.byteLength;
      return;
    }
    const spill = this.#spill!;
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
      if (spill) removeSpill(spill);
    }
  }

  /** Remove a spill file still open (the run ended while a prompt was on screen). */
  dispose(): void {
    if (!this.#spill) return;
    removeSpill(this.#spill);
    this.#spill = undefined;
  }

  #emit(stream: Stream, data: Uint8Array): void {
    const written = this.#write(stream, data);
    if (written.byteLength > 0) this.#atLineStart = written[written.byteLength - 1] === LF;
  }

  /** Open the spill file; false (and memory from then on) when no private directory can be made. */
  #startSpill(): boolean {
    if (this.#spillFailed) return false;
    try {
      const dir = makePrivateRunDir("held-", this.#parent);
      try {
        this.#spill = { dir, fd: openSync(path.join(dir.path, "output"), constants.O_RDWR | CREATE_PRIVATE_FILE, 0o600) };
      } catch (error) {
        rmSync(dir.path, { recursive: true, force: true });
        throw error;
      }
      return true;
    } catch {
      this.#spillFailed = true;
      return false;
    }
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

/** Close a spill file and remove its directory, by name only while it is still the one made. */
function removeSpill(spill: { dir: PrivateRunDir; fd: number }): void {
  closeSync(spill.fd);
  if (stillPrivateRunDir(spill.dir)) rmSync(spill.dir.path, { recursive: true, force: true });
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
