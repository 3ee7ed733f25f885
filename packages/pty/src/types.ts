/** Which stream a chunk came from; a PTY merges everything into `pty`. */
export type OutputStream = "stdout" | "stderr" | "pty";

/** One piece of raw output as it was read. Treat `data` as read-only: it is shared with the buffers. */
export interface OutputChunk {
  readonly stream: OutputStream;
  readonly data: Uint8Array;
}

/** How the process ended. `exitCode` is 124 when timed out, 128+N when killed by signal N. */
export interface ExitInfo {
  exitCode: number;
  /** Name of the signal that ended the process (`SIGKILL`), or null when it exited by itself. */
  signal: string | null;
  timedOut: boolean;
  /** True when the spec's `AbortSignal` fired before the process exited. */
  cancelled: boolean;
}

/** Everything a finished process produced. Output is decoded lossily as UTF-8 at this edge. */
export interface ExecResult {
  exitCode: number;
  signal: string | null;
  /** Pipe: stdout only. PTY: the whole terminal stream. */
  stdout: string;
  /** Pipe: stderr only. PTY: always "". */
  stderr: string;
  /** Pipe: stdout and stderr interleaved in arrival order. PTY: same as stdout. */
  aggregated: string;
  /** From spawn to the exit of the process (not of the drain). */
  durationMs: number;
  timedOut: boolean;
  cancelled: boolean;
  /** True when any buffer dropped bytes from its middle. */
  truncated: boolean;
  /** Bytes dropped from the middle of the aggregated stream (0 when nothing was dropped). */
  droppedBytes: number;
  /** True when pipes were still held open (by a descendant) after the drain timeout and we stopped reading. */
  drainTimedOut: boolean;
  /** PTY with `render: true`: the text a person would see on the terminal (scrollback + screen). */
  rendered?: string;
}

/** One running (or finished) process, pipe- or PTY-backed; the same shape for both. */
export interface ProcessHandle {
  /** Process id of the leader; it is also the id of its process group and session. */
  readonly pid: number;
  readonly kind: "pipe" | "pty";
  /** The tag in `SHELLGATE_PROCESS_TAG` that marks every process of this tree. */
  readonly tag: string;
  /** True once the leader process has exited (its output may still be draining). */
  readonly hasExited: boolean;
  /** Resolves when the leader exits (never rejects: spawn failures throw from `spawnPipe`/`spawnPty`). */
  readonly exited: Promise<ExitInfo>;
  /** Writes to stdin (PTY: the terminal input). Throws a `PtyError` when the process cannot take input. */
  write(data: string | Uint8Array): void;
  /** Ends stdin (pipes: closes it; PTY: sends the EOF character ^D). */
  closeStdin(): void;
  /** Subscribes to output; what is still buffered is replayed synchronously first. Returns the unsubscriber. */
  onOutput(cb: (chunk: OutputChunk) => void): () => void;
  /** Resolves once the process exited and its output was drained (or the drain guard fired). */
  result(): Promise<ExecResult>;
  /** Kills the whole tree (TERM, grace, KILL), escaped descendants included; resolves when it is gone. */
  terminate(): Promise<void>;
  /** PTY only: changes the terminal size. */
  resize?(cols: number, rows: number): void;
  /** PTY with `render: true`: the rendered terminal text so far. */
  renderedText?(): Promise<string>;
}
