import { decodeLossy } from "./decode.js";
import { ByteRing } from "./byte-ring.js";

/** One retained piece of output, with the stream it came from when the buffer is shared by several. */
export interface TaggedBytes<Tag extends string = string> {
  readonly data: Uint8Array;
  readonly tag: Tag | undefined;
}

/**
 * A byte buffer with a hard cap that keeps the beginning and the end of a stream.
 *
 * The first half of the cap (the head) fills first and is never evicted; everything after it goes
 * to the tail, whose oldest bytes are evicted as new ones arrive. What falls out of the middle is
 * counted, never kept, so memory stays at or under the cap however much a process prints.
 * Chunks keep an optional tag so one buffer can hold interleaved streams in arrival order.
 *
 * Bytes are copied in (the head into its own chunks, the tail into a ring that grows up to its
 * budget), so callers' buffers die young: retaining a firehose's read buffers for a while made the
 * garbage collector the bottleneck of a 1 GiB run.
 */
export class HeadTailBuffer<Tag extends string = string> {
  /** The byte cap: retained bytes never exceed it. */
  readonly capBytes: number;
  /** Bytes reserved for the beginning of the stream (half of the cap). */
  readonly headBudget: number;
  /** Bytes kept from the end of the stream (the rest of the cap). */
  readonly tailBudget: number;
  private head: TaggedBytes<Tag>[] = [];
  private headBytes = 0;
  private tail: ByteRing<Tag>;
  private dropped = 0;
  private total = 0;

  constructor(capBytes: number = 1024 * 1024) {
    if (!Number.isInteger(capBytes) || capBytes < 2) {
      throw new RangeError(`HeadTailBuffer capBytes must be an integer >= 2, got ${capBytes}`);
    }
    this.capBytes = capBytes;
    this.headBudget = Math.floor(capBytes / 2);
    this.tailBudget = capBytes - this.headBudget;
    this.tail = new ByteRing(this.tailBudget);
  }

  /** Appends bytes (copied; the caller may reuse `data`). */
  push(data: Uint8Array, tag?: Tag): void {
    let chunk = data;
    if (chunk.byteLength === 0) return;
    this.total += chunk.byteLength;
    const headRoom = this.headBudget - this.headBytes;
    if (headRoom > 0) {
      const take = Math.min(headRoom, chunk.byteLength);
      // `new Uint8Array(view)` copies; Buffer#slice would not (it returns a view on Node's read buffer).
      this.head.push({ data: new Uint8Array(chunk.subarray(0, take)), tag });
      this.headBytes += take;
      if (take === chunk.byteLength) return;
      chunk = chunk.subarray(take);
    }
    this.dropped += this.tail.push(chunk, tag);
  }

  /** Bytes currently retained (head + tail); never more than `capBytes`. */
  get retainedBytes(): number {
    return this.headBytes + this.tail.length;
  }

  /** Bytes that were received but evicted from the middle. */
  get droppedBytes(): number {
    return this.dropped;
  }

  /** Every byte ever pushed, retained or not. */
  get totalBytes(): number {
    return this.total;
  }

  /** True when something was dropped. */
  get truncated(): boolean {
    return this.dropped > 0;
  }

  /** Retained chunks in order: the head, then the tail (tail chunks are copies). */
  chunks(): TaggedBytes<Tag>[] {
    return [...this.head, ...this.tail.segments()];
  }

  /** The retained head bytes, concatenated. */
  headBytesCopy(): Uint8Array {
    return concat(this.head);
  }

  /** The retained tail bytes, concatenated. */
  tailBytesCopy(): Uint8Array {
    return this.tail.toBytes();
  }

  /** Retained bytes (head then tail) as one array, optionally only those with `tag`. */
  toBytes(tag?: Tag): Uint8Array {
    const all = this.chunks();
    return concat(tag === undefined ? all : all.filter((c) => c.tag === tag));
  }

  /**
   * Retained bytes decoded as UTF-8, invalid sequences replaced by U+FFFD. Head and tail are decoded
   * apart so a cut never glues two unrelated partial characters; with `marker`, a line
   * `... N bytes omitted ...` marks where the middle was dropped.
   */
  toText(options: { marker?: boolean } = {}): string {
    const head = decodeLossy(this.headBytesCopy());
    const tail = decodeLossy(this.tailBytesCopy());
    if (options.marker && this.dropped > 0) return `${head}\n... ${this.dropped} bytes omitted ...\n${tail}`;
    return head + tail;
  }

  /** An independent copy with the same content and counters. */
  clone(): HeadTailBuffer<Tag> {
    const c = new HeadTailBuffer<Tag>(this.capBytes);
    // Head chunks are private copies that are never mutated, so they can be shared.
    c.head = [...this.head];
    c.headBytes = this.headBytes;
    c.tail = this.tail.clone();
    c.dropped = this.dropped;
    c.total = this.total;
    return c;
  }

  /** Returns the retained chunks and empties the buffer (counters included). */
  drain(): TaggedBytes<Tag>[] {
    const out = this.chunks();
    this.clear();
    return out;
  }

  /** Empties the buffer and resets its counters. */
  clear(): void {
    this.head = [];
    this.headBytes = 0;
    this.tail = new ByteRing(this.tailBudget);
    this.dropped = 0;
    this.total = 0;
  }
}

function concat(parts: readonly TaggedBytes[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.data.byteLength;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p.data, o);
    o += p.data.byteLength;
  }
  return out;
}
