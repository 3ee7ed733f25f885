import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { debuglog } from "node:util";
import { isBulk, pumpBulk } from "./bulk-read.js";

/**
 * How much may wait in one direction's write queue before the other side stops being read, and
 * the stream mark of every socket the proxy makes. Node's default, 16 KiB, is less than one 64 KiB
 * read, so a relay would stop and restart reading after every chunk.
 */
export const STREAM_MARK = 1024 * 1024;

/**
 * A tunnel is handed to the native splicer once one direction has carried more than this. Starting
 * the splicer forks the proxy's process (a few ms); below this the JS pump is done sooner, and a
 * small request (the latency target) never pays for a process. Past it a tunnel is bulk transfer,
 * where the JS path costs several times the client's CPU per byte.
 */
export const HANDOFF_THRESHOLD = 1024 * 1024;

/**
 * At most this many splicer processes at once; further tunnels stay in the JS pump. A sandboxed
 * command opening many bulk tunnels must not be able to make the host fork without bound.
 */
const MAX_SPLICERS = 64;

/**
 * How long a tunnel past the threshold may wait, reading neither side, for its queues to empty.
 * They empty as soon as both peers read; a client that stops reading its download until its own
 * upload is through would otherwise wait on a tunnel that no longer reads its upload. After this
 * the JS pump goes on, once for all.
 */
export const QUIESCE_MS = 500;

const debug = debuglog("shellgate_netproxy");

/** Node's stream handle under a net.Socket: not public, but what spawn() itself hands to the child. */
interface StreamHandle {
  reading: boolean;
  readStart(): number;
  readStop(): number;
  setBlocking?(blocking: boolean): number;
}
const handleOf = (s: Socket) => (s as unknown as { _handle?: StreamHandle | null })._handle ?? undefined;

/**
 * Stops reading a socket for good until `release`: `pause()` alone does not (Node reads on into the
 * stream's buffer up to its mark). `reading` stays true so that Node's own `_read` leaves the handle
 * alone instead of starting it again.
 */
export function hold(s: Socket): void {
  const h = handleOf(s);
  if (h === undefined) return;
  h.readStop();
  h.reading = true;
}

/**
 * Reads again after `hold`, or after a spawn that did not start the splicer: the fork's child clears
 * O_NONBLOCK on its fd 0 and 1 before exec'ing, on descriptions it shares with this process, and a
 * blocking socket would stall the event loop; spawn() also stopped reading and paused the stream
 * (`resume` restarts the flow then; not after a `hold` alone, where a pause is the pump's backpressure).
 */
export function release(s: Socket, resume: boolean): void {
  const h = handleOf(s);
  if (h === undefined || s.destroyed) return;
  h.setBlocking?.(false);
  h.reading = true;
  h.readStart();
  if (resume) s.resume();
}

/**
 * Hands established tunnels to `<path> --splice` and plain-HTTP bodies to `<path> --splice-body N`
 * (client on fd 0, destination on fd 1), and owns the children that then hold them, so that stop()
 * leaves no tunnel open.
 */
export class TunnelSplicer {
  readonly path: string;
  readonly #children = new Set<ChildProcess>();
  #stopped = false;
  #unexpectedExits = 0;

  constructor(path: string) {
    this.path = path;
  }

  /** Splicer processes running now. */
  get running(): number {
    return this.#children.size;
  }

  /** Splicers that ended other than with 0 or by stop(): for debugging only (NODE_DEBUG=shellgate_netproxy logs each). */
  get unexpectedExits(): number {
    return this.#unexpectedExits;
  }

  /**
   * Starts a splicer on the two sockets. true: the child has them, and the caller must destroy its
   * own handles (closing only this process's descriptors; the connections stay up). false: nothing
   * started, and the caller must `release` both sockets.
   */
  handOver(client: Socket, upstream: Socket): boolean {
    // The child's exit closes the last copies of the tunnel: this process has none left by then.
    return this.#start(["--splice"], client, upstream) !== undefined;
  }

  /**
   * Moves exactly `length` bytes from `upstream` to `client` in a `--splice-body` child (a plain-HTTP
   * response body whose length its head gave), leaving both connections open. The caller must have
   * `hold`-ed both sockets with nothing of theirs queued here, and must `release` them once this
   * settles: "done" (every byte is in the client's kernel buffer), "not-started" (nothing moved: the
   * JS path carries the body instead), or "failed" (an unknown part moved: both must be closed).
   */
  spliceBody(client: Socket, upstream: Socket, length: number): Promise<"done" | "not-started" | "failed"> {
    const child = this.#start(["--splice-body", String(length)], client, upstream);
    if (child === undefined) return Promise.resolve("not-started");
    return new Promise((resolve) => child.once("exit", (code) => resolve(code === 0 ? "done" : "failed")));
  }

  // The child of one handover, registered; undefined when none started (nothing was touched then
  // but the sockets' shared flags, which `release` restores).
  #start(args: string[], client: Socket, upstream: Socket): ChildProcess | undefined {
    if (this.#stopped || this.#children.size >= MAX_SPLICERS) return undefined;
    try {
      // Checked again here, not only at start: a splicer that has gone would still cost a fork, and
      // the fork's child changes the sockets' shared flags before its exec fails (see `release`).
      accessSync(this.path, constants.X_OK);
    } catch {
      return undefined;
    }
    let child: ChildProcess;
    try {
      // No environment: the splicer needs none, and the host's variables are nothing for it to see.
      child = spawn(this.path, args, { stdio: [client, upstream, "ignore"], env: {} });
    } catch {
      return undefined;
    }
    child.on("error", () => {});
    if (child.pid === undefined) return undefined;
    this.#children.add(child);
    // An unexpected exit closes nothing here: the caller decides what its sockets do next. It is
    // counted and logged for debugging, nothing else.
    child.once("exit", (code, signal) => {
      this.#children.delete(child);
      if (code !== 0 && !this.#stopped) {
        this.#unexpectedExits++;
        debug("tunnel splicer %d ended with %s", child.pid, code ?? signal);
      }
    });
    return child;
  }

  /** Kills every splicer (their tunnels close) and starts no more. */
  stop(): void {
    this.#stopped = true;
    for (const child of this.#children) child.kill("SIGKILL");
  }
}

/**
 * Nothing of the tunnel is inside this process: nothing waits to be written (the write queue is
 * empty, so the kernel has every byte that was read), nothing read waits to be emitted, and neither
 * end has ended or been destroyed (a half-closed tunnel stays in the JS pump, which passes the end on).
 */
function idle(s: Duplex): s is Socket {
  const state = (s as unknown as { _readableState?: { ended?: boolean } })._readableState;
  return (
    s instanceof Socket &&
    !s.destroyed &&
    !s.connecting &&
    s.writableLength === 0 &&
    s.readableLength === 0 &&
    !s.writableEnded &&
    !s.readableEnded &&
    state?.ended === false
  );
}

/**
 * Joins a client stream to its destination both ways. An end is passed on (half-close, which TLS
 * and `git` rely on), and each side then closes on its own once both directions are done. Only an
 * abort travels as an abort: an error, or a close before the stream ended, destroys the other side,
 * so a tunnel never outlives a broken end. A graceful close must not destroy the other side: that
 * would drop what is still queued for it (the tail of a download).
 *
 * With a `splicer`, a tunnel that has carried more than HANDOFF_THRESHOLD one way stops reading
 * both sides (`hold`); what was read already is still pumped, and at the first moment nothing of it
 * is inside this process (`idle`, checked after each completed write) it is handed over. From then
 * on no byte can be read here, so every byte this process read has been written, in order, and the
 * rest is still in the kernel for the child. One attempt per tunnel: if the splicer cannot start, or
 * the queues do not empty within QUIESCE_MS, the JS pump simply goes on.
 */
export function splice(client: Duplex, upstream: Duplex, splicer?: TunnelSplicer): void {
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
  const bulk = isBulk(upstream);
  if (splicer === undefined || bulk) {
    pump(client, upstream);
    if (bulk) pumpBulk(upstream as Socket, client);
    else pump(upstream, client);
    return;
  }
  let phase: "js" | "quiescing" | "done" = "js";
  let timer: NodeJS.Timeout | undefined;
  const carried = [0, 0];
  const giveUp = () => {
    if (phase !== "quiescing") return;
    phase = "done";
    // Not resumed: a paused stream here is the pump's backpressure, which its "drain" ends.
    for (const s of [client, upstream]) if (s instanceof Socket) release(s, false);
  };
  const written = () => {
    if (phase === "done") return;
    if (phase === "js") {
      if ((carried[0] as number) <= HANDOFF_THRESHOLD && (carried[1] as number) <= HANDOFF_THRESHOLD) return;
      if (!(client instanceof Socket) || !(upstream instanceof Socket)) return void (phase = "done");
      phase = "quiescing";
      hold(client);
      hold(upstream);
      timer = setTimeout(giveUp, QUIESCE_MS).unref();
    }
    if (!idle(client) || !idle(upstream)) {
      // An end or an abort arrived meanwhile: the JS pump passes it on; nothing is handed over.
      if (client.destroyed || upstream.destroyed || client.writableEnded || upstream.writableEnded) {
        clearTimeout(timer);
        giveUp();
      }
      return;
    }
    phase = "done";
    clearTimeout(timer);
    if (splicer.handOver(client, upstream)) {
      // Only this process's descriptors close; the child's copies keep both connections.
      client.destroy();
      upstream.destroy();
    } else {
      release(client, true);
      release(upstream, true);
    }
  };
  const counting = () => phase !== "done";
  pump(client, upstream, (n) => (carried[0] = (carried[0] as number) + n), counting, written);
  pump(upstream, client, (n) => (carried[1] = (carried[1] as number) + n), counting, written);
}

function pump(from: Duplex, to: Duplex, count?: (n: number) => void, watching?: () => boolean, written?: () => void): void {
  from.on("data", (chunk: Buffer) => {
    // The callback (only until the one handoff attempt) runs once the chunk is in the kernel.
    if (written !== undefined && watching?.() === true) {
      count?.(chunk.length);
      to.write(chunk, written);
    } else {
      to.write(chunk);
    }
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
