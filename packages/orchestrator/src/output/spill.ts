// `fs.promises` is read where it is used: importing node:fs/promises would load it on every CLI start.
import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { OrchestratorConfigError } from "../errors.js";
import { outputSpillDir, type UserPathsEnv } from "@shellgate/user-paths";
import { checkPrivateDir, createPrivateFile, ensurePrivateDir, removeExpired, UnfitDirectoryError, type PrivateDir } from "./private-dir.js";

/**
 * Default cap of one saved output: 64 MiB. It holds every realistic build or test log many times
 * over (`seq 1 2000000` is 14.9 MB), a model pages such a file with grep/sed rather than reading
 * it, and the spill directory is often on a RAM-backed /tmp, where a runaway `yes` must not eat
 * gigabytes per call.
 */
export const DEFAULT_SPILL_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Default bound of bytes accepted but not yet on disk: about half a second of a firehose at the
 * rate Node reads pipes here (50-100 MiB/s), which rides out a short disk stall (8 MiB did not, on
 * a loaded shared machine). Past it the disk is losing the race with the command; saving stops
 * there (the file stays an exact prefix) instead of holding the command back or queueing without
 * bound. Memory is only used while the disk lags.
 */
export const DEFAULT_SPILL_MAX_QUEUED_BYTES = 32 * 1024 * 1024;

/**
 * How long a saved output left behind by a session that never closed (killed, crashed) is kept: 24
 * hours. A session removes its own files when it closes; the next session to save anything removes
 * leftovers older than this from the default location.
 */
export const DEFAULT_SPILL_MAX_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * The default spill location: `output-<uid>` (`output` where there are no uids) in shellgate's cache
 * directory (`$XDG_CACHE_HOME/shellgate`, else `~/.cache/shellgate`). It lies outside every writable
 * root or, where a root contains it, in a directory every sandbox holds read-only: a sandboxed command
 * can read a saved output, but can neither rename the directory nor put a link in its place. Each
 * session saves into a private directory of its own inside it.
 */
export function defaultSpillDir(env: UserPathsEnv = process.env): string {
  return outputSpillDir(env);
}

const positiveInt = z.number().int().positive();

/** Options of an `OutputSpill`, validated at construction. */
export const OutputSpillOptionsSchema = z.strictObject({
  /**
   * Where to write; default a private directory of this spill's own inside `defaultSpillDir()`.
   * Either way the directory must be this user's own, a real directory (not a link) writable by
   * nobody else, and files are created without following a link.
   */
  dir: z.string().min(1).optional(),
  /** Age past which files left in the default location by sessions that never closed are removed. */
  maxAgeMs: positiveInt.default(DEFAULT_SPILL_MAX_AGE_MS),
  /** Bytes of one output saved at most; the file then ends with a marker line. */
  limitBytes: positiveInt.default(DEFAULT_SPILL_LIMIT_BYTES),
  /** Bytes accepted but not yet written, at most (see `DEFAULT_SPILL_MAX_QUEUED_BYTES`). */
  maxQueuedBytes: positiveInt.default(DEFAULT_SPILL_MAX_QUEUED_BYTES),
});
/** `OutputSpill` options as a caller writes them. */
export type OutputSpillOptions = z.input<typeof OutputSpillOptionsSchema>;

/** Why a saved output stops before the end of the stream. */
export type SpillStopReason = "limit" | "backlog" | "error";

/** What a saved output holds, at the moment it was asked for. */
export interface SpillSummary {
  /** The file (mode 0600); undefined when not even the file could be created (`error` says why). */
  path: string | undefined;
  /** Bytes of the stream so far. */
  totalBytes: number;
  /** Bytes of the stream in the file: always exactly its first `savedBytes` bytes. */
  savedBytes: number;
  /** Why saving stopped, when it did (the file then ends with `spillMarker(...)` unless writing failed). */
  stopped?: SpillStopReason;
  /** The save limit in force. */
  limitBytes: number;
  /** The write error, when `stopped` is `"error"`. */
  error?: string;
}

/**
 * The line appended to a saved output where saving stopped. It starts with a newline of its own,
 * so the file is always exactly the saved prefix followed by this text.
 */
export function spillMarker(reason: Exclude<SpillStopReason, "error">, savedBytes: number, limitBytes: number): string {
  const why =
    reason === "limit"
      ? `the save limit of ${formatByteSize(limitBytes)} was reached`
      : "the output arrived faster than it could be written to disk";
  return `\n[shellgate: saving stopped here after the first ${savedBytes} bytes: ${why}; later output was not saved]\n`;
}

/** `N bytes` below 1 KiB, else KiB/MiB/GiB with one decimal (`14.9 MiB`, `64 MiB`). */
export function formatByteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${String(Math.round(value * 10) / 10)} ${units[unit]}`;
}

/**
 * The note after a spill path telling the model what the file holds, or undefined when it simply
 * holds all of the output. `responseStart`: for a session file, the stream offset where this
 * response's output begins (the file holds the whole session).
 */
export function describeSpill(summary: SpillSummary, options: { responseStart?: number } = {}): string | undefined {
  const parts: string[] = [];
  const session = options.responseStart !== undefined;
  const start = options.responseStart ?? 0;
  // At offset 0 the file starts where this response does; nothing to explain.
  if (session && start > 0) {
    parts.push(
      start < summary.savedBytes || (start === summary.savedBytes && summary.stopped === undefined)
        ? `the session's output from its start; this response's output starts at byte ${start}`
        : `the session's output from its start; this response's output (from byte ${start}) is past the saved part`,
    );
  }
  if (summary.stopped !== undefined) {
    const why =
      summary.stopped === "limit"
        ? `the save limit is ${formatByteSize(summary.limitBytes)}`
        : summary.stopped === "backlog"
          ? "it arrived faster than it could be written to disk"
          : `writing failed: ${summary.error ?? "unknown error"}`;
    parts.push(
      `first ${formatByteSize(summary.savedBytes)} of ${formatByteSize(summary.totalBytes)}${session ? " so far" : ""}; the rest was not saved: ${why}`,
    );
  }
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/**
 * Saves the full output of commands whose output the model only sees truncated, so it can page it
 * with ordinary tools. Output is streamed to the file as it arrives (`open()`), up to `limitBytes`;
 * files are private (0600) in a private (0700) directory, created with O_EXCL|O_NOFOLLOW only while
 * that directory is still the one that was checked (see `private-dir.ts`): the host never writes
 * through a name a command could have replaced. A directory the spill created itself is removed by
 * `dispose()`; a caller-supplied directory is left alone.
 */
export class OutputSpill {
  readonly limitBytes: number;
  readonly maxQueuedBytes: number;
  readonly maxAgeMs: number;
  readonly #configuredDir: string | undefined;
  #dir: Promise<PrivateDir> | undefined;
  #owned = false;
  #counter = 0;
  readonly #open = new Set<SpillStream>();

  /** @throws OrchestratorConfigError naming the bad option. */
  constructor(options: OutputSpillOptions = {}) {
    const parsed = OutputSpillOptionsSchema.safeParse(options);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(spill options)";
      throw new OrchestratorConfigError(field, issue?.message ?? "invalid", { cause: parsed.error });
    }
    this.#configuredDir = parsed.data.dir;
    this.limitBytes = parsed.data.limitBytes;
    this.maxQueuedBytes = parsed.data.maxQueuedBytes;
    this.maxAgeMs = parsed.data.maxAgeMs;
  }

  /** The directory this spill saves into (or its parent, for the default location, before the first save). */
  get location(): string {
    return this.#configuredDir !== undefined ? path.resolve(this.#configuredDir) : defaultSpillDir();
  }

  /**
   * Make a caller-supplied directory now, before any command runs. It is a protected path, so a
   * sandboxed run that found it missing would hold its place with a placeholder directory that the
   * sandbox's helper removes when the run ends and it is empty — taking the host's spill directory
   * with it between two saves. Made here, it is a real directory the helper never removes. A failure
   * is left for the first save to report (naming `spillDir`), as before.
   */
  async prepare(): Promise<void> {
    if (this.#configuredDir !== undefined) await this.#directory().catch(() => undefined);
  }

  /**
   * Start saving one output stream. Nothing touches the disk until more than `memoryBytes` have
   * arrived (or `reveal()` is called), so an output that stays small never creates a file; the bytes
   * held until then are written first, so the file is complete from byte 0.
   */
  open(name: string, options: { memoryBytes?: number } = {}): SpillStream {
    const memoryBytes = Math.max(0, Math.min(options.memoryBytes ?? 0, this.maxQueuedBytes));
    const stream = new SpillStream(
      {
        createFile: () => this.#createFile(name),
        forget: (s) => this.#open.delete(s),
      },
      { limitBytes: this.limitBytes, maxQueuedBytes: this.maxQueuedBytes, memoryBytes },
    );
    this.#open.add(stream);
    return stream;
  }

  /**
   * Write `text` (already in memory) to a new file named after the call, within the limit; returns its path.
   * @throws OrchestratorConfigError naming `spillDir` when no file can be created there.
   */
  async save(callId: string, text: string): Promise<string> {
    const stream = this.open(callId);
    stream.push(Buffer.from(text, "utf8"));
    const summary = await stream.reveal();
    await stream.end();
    if (summary.path === undefined) throw new OrchestratorConfigError("spillDir", `cannot save output there: ${summary.error ?? "unknown error"}`);
    return summary.path;
  }

  /** The directory in use, if one has been created yet. */
  async directory(): Promise<string | undefined> {
    return this.#dir ? (await this.#dir.catch(() => undefined))?.path : undefined;
  }

  /** Close every open stream, then remove the directory when the spill created it. */
  async dispose(): Promise<void> {
    await Promise.all([...this.#open].map((s) => s.end()));
    if (!this.#dir || !this.#owned) return;
    const dir = await this.#dir.catch(() => undefined);
    this.#dir = undefined;
    // Removed only while it is the directory that was made: a link found in its place is left alone.
    if (dir && (await checkPrivateDir(dir.path).then((d) => d.dev === dir.dev && d.ino === dir.ino).catch(() => false))) {
      await fs.promises.rm(dir.path, { recursive: true, force: true });
    }
  }

  async #createFile(name: string): Promise<{ file: string; handle: FileHandle }> {
    let dir = await this.#directory();
    this.#counter += 1;
    const safeId = name.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64) || "call";
    const file = `${safeId}-${this.#counter}.txt`;
    if (this.#owned && !fs.existsSync(dir.path)) {
      // Another session's age cleanup removed this long-idle directory: make it again, privately.
      await fs.promises.mkdir(dir.path, { mode: 0o700 }).catch(() => undefined);
      dir = await checkPrivateDir(dir.path);
      this.#dir = Promise.resolve(dir);
    }
    return createPrivateFile(dir, file);
  }

  #directory(): Promise<PrivateDir> {
    if (!this.#dir) {
      if (this.#configuredDir !== undefined) {
        this.#dir = ensurePrivateDir(path.resolve(this.#configuredDir));
      } else {
        this.#owned = true;
        const base = defaultSpillDir();
        this.#dir = ensurePrivateDir(base).then(async () => {
          await removeExpired(base, this.maxAgeMs);
          const made = await fs.promises.mkdtemp(path.join(base, "session-"));
          return checkPrivateDir(made);
        });
      }
      // A failed mkdir must be retried on the next save, not cached forever.
      this.#dir.catch(() => {
        this.#dir = undefined;
      });
    }
    return this.#dir;
  }
}

interface SpillHost {
  createFile(): Promise<{ file: string; handle: FileHandle }>;
  forget(stream: SpillStream): void;
}

/**
 * One output being saved as it arrives. `push` never blocks and never waits for the disk: bytes are
 * queued and written in order by one writer; the queue is bounded (`maxQueuedBytes`), and when the
 * limit or the bound is reached, saving stops for good and a marker line is appended, so the file
 * is always an exact prefix of the stream. Raw bytes are written (no decoding, no splitting).
 */
export class SpillStream {
  readonly #host: SpillHost;
  readonly #limit: number;
  readonly #maxQueued: number;
  readonly #memoryBytes: number;
  #queue: Uint8Array[] = [];
  #queuedBytes = 0;
  /** Stream bytes accepted into the file (queued or written); the marker is not counted. */
  #accepted = 0;
  /** Bytes handed to the writer and bytes on disk, the marker included. */
  #enqueued = 0;
  #written = 0;
  #total = 0;
  #stopped: SpillStopReason | undefined;
  #error: string | undefined;
  #started = false;
  #ended = false;
  #revealed = false;
  #file: string | undefined;
  #handle: FileHandle | undefined;
  #pump: Promise<void> | undefined;
  #endPromise: Promise<void> | undefined;

  /** Use `OutputSpill.open`. */
  constructor(host: SpillHost, options: { limitBytes: number; maxQueuedBytes: number; memoryBytes: number }) {
    this.#host = host;
    this.#limit = options.limitBytes;
    this.#maxQueued = options.maxQueuedBytes;
    this.#memoryBytes = options.memoryBytes;
  }

  /** Bytes of the stream so far (saved or not). */
  get totalBytes(): number {
    return this.#total;
  }

  /** Whether `reveal()` was called: the model was given the path, so `end()` keeps the file. */
  get revealed(): boolean {
    return this.#revealed;
  }

  /** Take the next bytes of the stream. Synchronous and bounded; the data is not copied, so it must not be reused. */
  push(chunk: Uint8Array): void {
    if (this.#ended || chunk.byteLength === 0) return;
    this.#total += chunk.byteLength;
    if (this.#stopped !== undefined) return;
    const room = Math.min(this.#limit - this.#accepted, this.#maxQueued - this.#queuedBytes);
    const take = Math.min(chunk.byteLength, room);
    if (take > 0) {
      this.#enqueue(take === chunk.byteLength ? chunk : chunk.subarray(0, take));
      this.#accepted += take;
    }
    if (take < chunk.byteLength) this.#stop(this.#accepted >= this.#limit ? "limit" : "backlog");
    if (!this.#started && this.#queuedBytes > this.#memoryBytes) this.#start();
    else if (this.#started) this.#kick();
  }

  /**
   * Mark the file as shown to the model and wait until every byte accepted so far is on disk
   * (creating the file if the output was still in memory). Never rejects: a failure is in the summary.
   */
  async reveal(): Promise<SpillSummary> {
    this.#revealed = true;
    const target = this.#enqueued;
    this.#started = true;
    // Even an empty output gets its file: the model is about to be given the path.
    this.#kick(this.#handle === undefined);
    while ((this.#written < target || this.#handle === undefined) && this.#stopped !== "error" && this.#pump) await this.#pump;
    return this.summary();
  }

  /** What the file holds right now (bytes still queued count as saved once `reveal()` has waited for them). */
  summary(): SpillSummary {
    return {
      path: this.#file,
      totalBytes: this.#total,
      savedBytes: this.#stopped === "error" ? Math.min(this.#accepted, this.#written) : this.#accepted,
      ...(this.#stopped !== undefined ? { stopped: this.#stopped } : {}),
      limitBytes: this.#limit,
      ...(this.#error !== undefined ? { error: this.#error } : {}),
    };
  }

  /**
   * Stop taking output, finish writing and close the file. The file is kept when it was revealed,
   * removed otherwise (the model never saw its path). Idempotent; never rejects.
   */
  end(): Promise<void> {
    this.#endPromise ??= this.#finish();
    return this.#endPromise;
  }

  async #finish(): Promise<void> {
    this.#ended = true;
    if (!this.#revealed) {
      // Nothing more to write for a file no one will read.
      this.#queue = [];
      this.#queuedBytes = 0;
    }
    while (this.#pump) await this.#pump;
    await this.#handle?.close().catch(() => undefined);
    this.#handle = undefined;
    if (!this.#revealed && this.#file !== undefined) await fs.promises.unlink(this.#file).catch(() => undefined);
    this.#host.forget(this);
  }

  #enqueue(data: Uint8Array): void {
    this.#queue.push(data);
    this.#queuedBytes += data.byteLength;
    this.#enqueued += data.byteLength;
  }

  #stop(reason: Exclude<SpillStopReason, "error">): void {
    this.#stopped = reason;
    // The marker may take the queue past its bound by one short line; it is the last thing written.
    this.#enqueue(Buffer.from(spillMarker(reason, this.#accepted, this.#limit), "utf8"));
  }

  #start(): void {
    this.#started = true;
    this.#kick();
  }

  #kick(force = false): void {
    if (this.#pump || (this.#queue.length === 0 && !force)) return;
    this.#pump = this.#drain().finally(() => {
      this.#pump = undefined;
      // Bytes pushed while the last write was finishing.
      if (this.#queue.length > 0 && this.#stopped !== "error") this.#kick();
    });
  }

  async #drain(): Promise<void> {
    try {
      if (!this.#handle) {
        const created = await this.#host.createFile();
        this.#file = created.file;
        this.#handle = created.handle;
      }
      while (this.#queue.length > 0) {
        let batch = this.#queue;
        this.#queue = [];
        const batchBytes = batch.reduce((n, b) => n + b.byteLength, 0);
        // Gathered writes: the read buffers go to the kernel as they are, never copied.
        let left = batchBytes;
        while (left > 0) {
          let { bytesWritten } = await this.#handle.writev(batch);
          left -= bytesWritten;
          if (left === 0) break;
          const rest: Uint8Array[] = [];
          for (const b of batch) {
            if (bytesWritten >= b.byteLength) bytesWritten -= b.byteLength;
            else {
              rest.push(bytesWritten > 0 ? b.subarray(bytesWritten) : b);
              bytesWritten = 0;
            }
          }
          batch = rest;
        }
        // Released only once on disk, so the bound covers the write in flight too.
        this.#queuedBytes -= batchBytes;
        this.#written += batchBytes;
      }
    } catch (error) {
      this.#stopped = "error";
      this.#error = error instanceof UnfitDirectoryError ? `${error.code}: ${error.message}` : ((error as NodeJS.ErrnoException).code ?? String(error));
      // A batch may have been written in part: cut the file back to the bytes counted as saved.
      await this.#handle?.truncate(Math.min(this.#accepted, this.#written)).catch(() => undefined);
      this.#queue = [];
      this.#queuedBytes = 0;
    }
  }
}

/**
 * Render once; when the model's view was truncated and a spill is available, save `fullText` and
 * render again with the file's path in it. For text already in memory; commands stream theirs
 * through `OutputSpill.open`.
 */
export async function renderWithSpill<T extends { truncation: { truncated: boolean } }>(
  render: (fullOutputPath?: string) => T,
  fullText: string,
  spill: { save(callId: string, text: string): Promise<string> } | undefined,
  callId: string,
): Promise<T & { fullOutputPath?: string }> {
  const first = render();
  if (!first.truncation.truncated || !spill) return first;
  const fullOutputPath = await spill.save(callId, fullText);
  return { ...render(fullOutputPath), fullOutputPath };
}
