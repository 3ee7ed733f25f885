import { connect, isIP, type Socket } from "node:net";
import { connectBulk } from "./bulk-read.js";
import { STREAM_MARK } from "./splice.js";

/** `promise`, unless stop() (or `timeoutMs`) comes first: then a rejection, so nothing waits on a stopped proxy. */
export function untilStopped<T>(promise: Promise<T>, signal: AbortSignal, timeoutMs?: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => finish(() => reject(new Error("stopped")));
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => finish(() => reject(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" }))), timeoutMs);
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      settle();
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then((value) => finish(() => resolve(value)), (error: unknown) => finish(() => reject(error)));
  });
}

/**
 * Connects to one checked address (never a name, so nothing resolves anything here), within
 * `timeoutMs` and until stop(). `track` registers the socket at once so that stop() can close a
 * connection that is still being made. `bulk`: read it with `connectBulk` (a tunnel's destination
 * that no splicer will take over; only `pumpBulk` can consume it).
 */
export function connectTo(address: string, port: number, timeoutMs: number, signal: AbortSignal, track: (socket: Socket) => void, bulk = false): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // Half-open, like the client side: a destination that ends its side may still be sent the rest.
    // (`highWaterMark` is a net.Socket option since Node 18 that @types/node 20 does not list yet.)
    const options = { host: address, port, family: isIP(address), allowHalfOpen: true, highWaterMark: STREAM_MARK };
    const socket = bulk ? connectBulk(options) : connect(options);
    track(socket);
    const fail = (error: Error) => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onAbort = () => fail(new Error("stopped"));
    const timer = setTimeout(() => fail(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })), Math.max(1, timeoutMs));
    const cleanup = () => {
      clearTimeout(timer);
      socket.off("error", fail);
      signal.removeEventListener("abort", onAbort);
    };
    socket.once("error", fail);
    signal.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => {
      cleanup();
      // The frontends add their own handling; until they do, an error must not be unhandled (it would kill the host).
      socket.on("error", () => {});
      socket.setNoDelay(true);
      resolve(socket);
    });
  });
}

/** The errno-style code of an error (`ECONNREFUSED`), else its message: what a refusal reason shows. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}
