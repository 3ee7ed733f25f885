import { connect, Socket, type NetConnectOpts } from "node:net";
import type { Duplex } from "node:stream";

/**
 * How much one read of a destination may return. Node reads a socket 64 KiB at a time and
 * allocates a buffer for each read; a download through the JS pump then costs a read callback, a
 * buffer and a queued write per 64 KiB. One reusable buffer this size per connection (allocated on
 * its first read) lets a read take whatever the kernel holds, and the write that follows usually
 * completes at once, so the buffer is free again (measured on a 2-core machine, 100 MB over loopback:
 * about twice the throughput of the `data` pump).
 */
export const BULK_READ_BYTES = 1024 * 1024;

/** Takes one read; `chunk` is valid only during the call. False: read nothing more until `resume()`. */
export type Taker = (chunk: Buffer) => boolean;

interface BulkReads {
  taker?: Taker;
  /** Bytes that came before a taker did (a destination that speaks first), copied. */
  early: Buffer[];
}

const bulk = new WeakMap<Socket, BulkReads>();

/**
 * `net.connect(options)` for a destination, read through Node's `onread` (see BULK_READ_BYTES)
 * instead of `data` events: `takeReads` (or `pumpBulk`) is the only way to consume it. What arrives
 * before then is kept, and reading waits for it.
 */
export function connectBulk(options: NetConnectOpts): Socket {
  const state: BulkReads = { early: [] };
  let buffer: Buffer | undefined;
  const onread = {
    buffer: () => (buffer ??= Buffer.allocUnsafe(BULK_READ_BYTES)),
    callback: (n: number, b: Buffer) => {
      const chunk = b.subarray(0, n);
      if (state.taker) return state.taker(chunk);
      state.early.push(Buffer.from(chunk));
      // Paused as well as stopped, so that takeReads' resume() starts reading again.
      socket.pause();
      return false;
    },
  };
  const socket: Socket = connect({ ...options, onread } as NetConnectOpts);
  bulk.set(socket, state);
  return socket;
}

/** Whether `socket` was made by `connectBulk` (and must be consumed by `takeReads` or `pumpBulk`). */
export function isBulk(socket: Duplex): boolean {
  return bulk.has(socket as Socket);
}

/**
 * Hands every read of `socket` (made by `connectBulk`) to `take`, first those that came before;
 * `take` sees a view valid only during the call and returns false, after pausing the socket, to read
 * nothing more until `resume()`. The socket flows from now on (its `end` is emitted).
 */
export function takeReads(socket: Socket, take: Taker): void {
  const state = bulk.get(socket);
  if (state === undefined) throw new TypeError("takeReads needs a socket made by connectBulk");
  let more = true;
  for (const chunk of state.early.splice(0)) more = take(chunk) && more;
  state.taker = take;
  if (more) socket.resume();
}

/** Where `pinnedWriter` writes: a socket, or an HTTP response on one. */
export interface PinnedTarget {
  write(chunk: Buffer, done: () => void): unknown;
  readonly writableLength: number;
}

/**
 * A writer of views of `from`'s read buffer into `to` (a plain socket): each write goes out as it
 * is, and when the kernel did not take it at once, `from` stops reading (the next read would reuse
 * the buffer the write points into) until that write's callback says the kernel has it. Returns
 * what a taker returns. Only the write that stopped reading starts it again: callbacks come in
 * order, so every earlier write is done then too, while an earlier one's callback may come while a
 * later write still points into the buffer.
 */
export function pinnedWriter(from: Socket, to: PinnedTarget): Taker {
  let pausedBy = 0;
  let writes = 0;
  return (view) => {
    const id = ++writes;
    to.write(view, () => {
      if (pausedBy !== id) return;
      pausedBy = 0;
      from.resume();
    });
    if (to.writableLength === 0) return true;
    // pause() as well as `false`: resume() restarts reading only on a stream it knows to be paused.
    pausedBy = id;
    from.pause();
    return false;
  };
}

/**
 * Copies everything `from` (made by `connectBulk`) reads to `to`, and its end; like the `data`
 * pump, with the same backpressure. Into a plain socket the read buffer is written as it is
 * (`pinnedWriter`); any other stream gets a copy, since its callback may come while it still holds
 * the bytes (a PassThrough hands them on unread).
 */
export function pumpBulk(from: Socket, to: Duplex): void {
  if (!bulk.has(from)) throw new TypeError("pumpBulk needs a socket made by connectBulk");
  const zeroCopy = to instanceof Socket && to.constructor === Socket;
  const write = pinnedWriter(from, to);
  from.once("end", () => to.end());
  takeReads(from, zeroCopy ? write : (view) => write(Buffer.from(view)));
}
