import type { Duplex } from "node:stream";

/**
 * How much may wait in one direction's write queue before the other side stops being read, and
 * the stream mark of every socket the proxy makes. Node's default, 16 KiB, is less than one 64 KiB
 * read, so a relay would stop and restart reading after every chunk.
 */
export const STREAM_MARK = 1024 * 1024;

/**
 * Joins a client stream to its destination both ways. An end is passed on (half-close, which TLS
 * and `git` rely on), and each side then closes on its own once both directions are done. Only an
 * abort travels as an abort: an error, or a close before the stream ended, destroys the other side,
 * so a tunnel never outlives a broken end. A graceful close must not destroy the other side: that
 * would drop what is still queued for it (the tail of a download).
 */
export function splice(client: Duplex, upstream: Duplex): void {
  const abort = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on("error", abort);
  upstream.on("error", abort);
  client.once("close", () => {
    if (!client.readableEnded) upstream.destroy();
  });
  upstream.once("close", () => {
    if (!upstream.readableEnded) client.destroy();
  });
  pump(client, upstream);
  pump(upstream, client);
}

function pump(from: Duplex, to: Duplex): void {
  from.on("data", (chunk: Buffer) => {
    to.write(chunk);
    // Past the socket's own mark `write` has set its drain flag, so "drain" comes once the queue empties.
    if (to.writableLength >= STREAM_MARK && !from.isPaused()) {
      from.pause();
      to.once("drain", () => from.resume());
    }
  });
  from.once("end", () => to.end());
  // Paused streams stay paused when a "data" listener is added (held optimistic data, a CONNECT head).
  from.resume();
}
