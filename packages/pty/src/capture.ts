import { HeadTailBuffer } from "./head-tail-buffer.js";
import type { OutputChunk, OutputStream } from "./types.js";

/**
 * Output of one process: capped buffers per stream plus the interleaved one, and the broadcast to
 * subscribers. The interleaved buffer doubles as the replay buffer for late subscribers, so replay
 * costs no extra memory and is bounded by the same cap.
 *
 * While only one pipe stream has spoken (the usual case, and always for a firehose), the
 * interleaved view *is* that stream's buffer; a separate one is cloned from it when the other
 * stream first speaks. That saves a copy of every byte of single-stream output.
 */
export class OutputCapture {
  readonly stdout: HeadTailBuffer<OutputStream> | undefined;
  readonly stderr: HeadTailBuffer<OutputStream> | undefined;
  private readonly single: HeadTailBuffer<OutputStream> | undefined;
  private interleaved: HeadTailBuffer<OutputStream> | undefined;
  private firstStream: OutputStream | undefined;
  private readonly subscribers = new Set<(chunk: OutputChunk) => void>();

  constructor(capBytes: number, separateStreams: boolean) {
    this.stdout = separateStreams ? new HeadTailBuffer(capBytes) : undefined;
    this.stderr = separateStreams ? new HeadTailBuffer(capBytes) : undefined;
    this.single = separateStreams ? undefined : new HeadTailBuffer(capBytes);
  }

  /** Everything in arrival order (pipes: stdout and stderr interleaved; PTY: the terminal stream). */
  get aggregated(): HeadTailBuffer<OutputStream> {
    if (this.single) return this.single;
    if (this.interleaved) return this.interleaved;
    return (this.firstStream === "stderr" ? this.stderr : this.stdout) as HeadTailBuffer<OutputStream>;
  }

  push(stream: OutputStream, data: Uint8Array): void {
    if (this.single) this.single.push(data, stream);
    else {
      const own = (stream === "stderr" ? this.stderr : this.stdout) as HeadTailBuffer<OutputStream>;
      if (this.firstStream === undefined) this.firstStream = stream;
      else if (this.firstStream !== stream && !this.interleaved) this.interleaved = this.aggregated.clone();
      own.push(data, stream);
      this.interleaved?.push(data, stream);
    }
    if (this.subscribers.size === 0) return;
    const chunk: OutputChunk = { stream, data };
    for (const cb of this.subscribers) deliver(cb, chunk);
  }

  subscribe(cb: (chunk: OutputChunk) => void): () => void {
    for (const c of this.aggregated.chunks()) deliver(cb, { stream: c.tag ?? "stdout", data: c.data });
    this.subscribers.add(cb);
    return () => {
      this.subscribers.delete(cb);
    };
  }

  /** Drops every subscriber (the process is finished; nothing more will come). */
  close(): void {
    this.subscribers.clear();
  }

  get truncated(): boolean {
    return this.aggregated.truncated || (this.stdout?.truncated ?? false) || (this.stderr?.truncated ?? false);
  }
}

function deliver(cb: (chunk: OutputChunk) => void, chunk: OutputChunk): void {
  try {
    cb(chunk);
  } catch (error) {
    // A faulty subscriber must not stop capture or starve the others; surface it without crashing.
    process.emitWarning(`@shellgate/pty output subscriber threw: ${String(error)}`, "ShellgatePtyWarning");
  }
}
