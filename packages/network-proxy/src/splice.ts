import type { Duplex } from "node:stream";

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
  client.pipe(upstream);
  upstream.pipe(client);
}
