import { request as httpRequest, validateHeaderName, validateHeaderValue, type IncomingMessage, type ServerResponse } from "node:http";
import { Duplex } from "node:stream";
import type { Socket } from "node:net";
import { isBulk, pinnedWriter, takeReads } from "./bulk-read.js";
import { HANDOFF_THRESHOLD, hold, QUIESCE_MS, release, STREAM_MARK, type TunnelSplicer } from "./splice.js";

// Hop-by-hop fields (RFC 9110 §7.6.1) and the proxy's own: they describe one connection, not the message.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"]);

/**
 * The fields of `raw` (Node's `rawHeaders`) that go on to the next hop: not hop-by-hop, not named
 * by the message's own `Connection`, valid by Node's rules, and, when `host` is given, with the
 * request-target's authority as the only `Host` (RFC 9112 §3.2.2): the connection was admitted for
 * the URL's host, and a client's own `Host` would otherwise reach another site behind the same
 * address (a CDN's).
 */
export function forwardedFields(raw: readonly string[], host?: string): string[] {
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() === "connection") for (const token of (raw[i + 1] as string).split(",")) named.add(token.trim().toLowerCase());
  }
  const out: string[] = host === undefined ? [] : ["Host", host];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower) || (host !== undefined && lower === "host")) continue;
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch {
      continue;
    }
    out.push(name, value);
  }
  return out;
}

/**
 * The body length a response head promises, when the body follows the head as exactly that many
 * bytes, the case whose bytes can pass through unparsed; undefined for everything else (chunked,
 * no length, no body by status or method), which goes through Node's parser.
 */
export function passThroughLength(method: string, res: IncomingMessage): number | undefined {
  const status = res.statusCode ?? 0;
  if (method === "HEAD" || status < 200 || status === 204 || status === 304) return undefined;
  if (res.headers["transfer-encoding"] !== undefined) return undefined;
  const lengths = res.rawHeaders.filter((_, i) => i % 2 === 0 && res.rawHeaders[i]?.toLowerCase() === "content-length").length;
  const value = res.headers["content-length"];
  if (lengths !== 1 || value === undefined || !/^\d{1,15}$/u.test(value)) return undefined;
  return Number(value);
}

/**
 * What Node's HTTP client reads and writes instead of the destination socket: its writes (the
 * request) go to the socket, and it reads only what the forwarder pushes. That lets the forwarder
 * stop feeding the parser right after a response head, and carry the body itself (`detach`).
 */
class ParserGate extends Duplex {
  readonly #upstream: Socket;
  #attached = true;
  constructor(upstream: Socket) {
    super({ allowHalfOpen: true, readableHighWaterMark: STREAM_MARK });
    this.#upstream = upstream;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.#upstream.write(chunk, (error) => done(error ?? null));
  }
  // The end of a request body is not the end of the connection: the destination still has to answer.
  override _final(done: () => void): void {
    done();
  }
  // The parser asking for more restarts the destination's flow, until the forwarder carries the body.
  override _read(): void {
    if (this.#attached) this.#upstream.resume();
  }
  detach(): void {
    this.#attached = false;
  }
  // Called by Node's HTTP client; a stream that is not a socket has nothing to set.
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
}

/**
 * Forwards one plain-HTTP request over `upstream`, a connection already admitted and checked for
 * `target`'s host, and answers the client through `response`. Node's HTTP client writes the request
 * (`Connection: close`: the next request is decided and checked afresh) and parses the response
 * head. A body of a known length then passes through unparsed: in JS, or, past HANDOFF_THRESHOLD
 * and with a `splicer`, in a `--splice-body` child, after which the client's connection is used on
 * (keep-alive). Anything else (chunked, no length) is parsed and re-framed by Node, as a proxy must.
 * Rejects only before anything was sent to the client; a failure after that closes the connection.
 * `viaProxy`: `upstream` leads to an HTTP upstream proxy, asked in absolute form with its credentials.
 */
export function forwardHttp(
  request: IncomingMessage,
  response: ServerResponse,
  target: URL,
  upstream: Socket,
  splicer?: TunnelSplicer,
  viaProxy?: { authorization?: string },
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const gate = new ParserGate(upstream);
    let phase: "head" | "parsed" | "raw" | "done" = "head";
    let remaining = 0;
    // Whether the client's socket is held for a handoff (it must be read again for keep-alive).
    let clientHeld = false;
    const method = request.method ?? "GET";
    const settle = () => {
      phase = "done";
      upstream.destroy();
      gate.destroy();
    };
    // The whole answer is with the client (or queued for it): the connection goes on, keep-alive.
    const complete = (last?: Buffer) => {
      if (phase === "done") return;
      settle();
      if (clientHeld) release(request.socket as Socket, true);
      clientHeld = false;
      if (!response.writableEnded) response.end(last);
      resolve();
    };
    const fail = (error: Error) => {
      if (phase === "done") return;
      settle();
      if (!response.headersSent) return reject(error);
      // The client has part of an answer: only a broken connection tells it the rest is missing.
      request.socket.destroy();
      resolve();
    };
    const headers = forwardedFields(request.rawHeaders, target.host);
    if (viaProxy?.authorization !== undefined) headers.push("Proxy-Authorization", viaProxy.authorization);
    const out = httpRequest({
      method,
      // An HTTP upstream proxy is asked in absolute form (RFC 9112 §3.2.2), the destination itself in origin form.
      path: viaProxy ? `${target.protocol}//${target.host}${target.pathname}${target.search}` : `${target.pathname}${target.search}`,
      headers,
      setHost: false,
      // Lenient about what destinations send, as proxy-chain is: a client asked for this host.
      insecureHTTPParser: true,
      createConnection: () => gate as unknown as Socket,
    });
    out.on("error", (error) => (phase === "raw" ? undefined : fail(error)));
    response.once("close", () => {
      if (!response.writableFinished) fail(new Error("the client went away"));
    });
    upstream.on("error", fail);
    // The destination socket is half-open (connectTo): its end comes as "end", with no "close"
    // until this side ends too. Before the end of a head or of a promised body, it is a failure; a
    // body that ends with the connection (no length) is the parser's to end.
    const early = () => {
      if (phase === "head" || phase === "raw") fail(new Error("the destination closed the connection before the end of its answer"));
    };
    upstream.once("close", early);
    upstream.once("end", () => (phase === "parsed" ? void gate.push(null) : early()));

    let head: IncomingMessage | undefined;
    out.once("response", (res: IncomingMessage) => {
      // Once the body passes through unparsed, the parser's view of it (never complete) is moot.
      res.on("error", (error) => (phase === "parsed" ? fail(error) : undefined));
      res.on("aborted", () => (phase === "parsed" ? fail(new Error("the destination's answer was cut short")) : undefined));
      try {
        response.writeHead(res.statusCode ?? 502, res.statusMessage, forwardedFields(res.rawHeaders));
        head = res;
      } catch (error) {
        // A reason phrase Node will not send (the parser here is lenient, the writer is not).
        fail(error instanceof Error ? error : new Error(String(error)));
      }
    });
    const onData = (chunk: Buffer) => {
      if (phase === "raw") return void body(chunk, sendOrPause);
      if (phase !== "head" && phase !== "parsed") return;
      if (!gate.push(chunk)) upstream.pause();
      if (phase !== "head" || head === undefined) return;
      // The head arrived in this chunk. The parser took the whole chunk at once (nothing is left in
      // the gate) in every case but a stalled reader; only then is the split exact, and the body
      // that came with the head is all in `head`.
      const length = passThroughLength(method, head);
      if (length === undefined || gate.readableLength !== 0) {
        phase = "parsed";
        head.pipe(response);
        response.once("finish", () => complete());
        return;
      }
      phase = "raw";
      gate.detach();
      let withHead = 0;
      for (let piece: Buffer | null; (piece = head.read() as Buffer | null) !== null; ) {
        withHead += piece.length;
        response.write(piece);
      }
      remaining = length - withHead;
      if (remaining <= 0) return complete();
      if (splicer !== undefined && remaining > HANDOFF_THRESHOLD && request.complete && response.socket === request.socket) handOff(splicer);
      // The parser may have paused the socket (a full gate); what it holds now flows to `body`.
      upstream.resume();
    };
    // A destination read in bulk (no splicer here) hands over views of its read buffer, which the
    // next read reuses. The parser keeps what it is given: a head is copied. A body passing through
    // goes to the client as read (`pinnedWriter`).
    const toClient = pinnedWriter(upstream, response);
    const onBulk = (view: Buffer): boolean => {
      if (phase !== "raw") {
        onData(Buffer.from(view));
        return !upstream.isPaused();
      }
      return body(view, toClient);
    };

    // A body's bytes as they arrive, up to the promised length, through `send`; anything after it
    // is not the answer to this request and goes with the connection. The last piece ends the answer
    // and complete() closes the destination (so nothing reads into a bulk buffer again). Returns
    // whether to read on.
    const body = (chunk: Buffer, send: (piece: Buffer) => boolean): boolean => {
      const piece = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
      remaining -= piece.length;
      if (remaining === 0) {
        complete(piece);
        return false;
      }
      return send(piece);
    };
    // A `data` chunk is the socket's own: written, and the socket paused until the client drains.
    const sendOrPause = (piece: Buffer): boolean => {
      if (response.write(piece)) return true;
      upstream.pause();
      response.once("drain", () => upstream.resume());
      return false;
    };

    // Neither socket is read from here on until the child is done or did not start. It starts once
    // everything written so far is in the kernel, so its bytes can only come after those; a client
    // that does not read for QUIESCE_MS keeps the body in JS.
    const handOff = (children: TunnelSplicer) => {
      const client = request.socket as Socket;
      hold(upstream);
      hold(client);
      clientHeld = true;
      // No handoff after all: both sockets are read again and the body goes on in JS.
      const stayInJs = () => {
        clientHeld = false;
        release(upstream, true);
        release(client, true);
      };
      const deadline = Date.now() + QUIESCE_MS;
      let tries = 0;
      const attempt = () => {
        if (phase !== "raw") return;
        if (client.writableLength !== 0 || response.writableLength !== 0 || upstream.readableLength !== 0 || upstream.isPaused()) {
          // Usually idle within a turn or two of the loop; a client that does not read is polled gently.
          if (Date.now() < deadline) return void (++tries < 16 ? setImmediate(attempt) : setTimeout(attempt, 5));
          return stayInJs();
        }
        void children.spliceBody(client, upstream, remaining).then((outcome) => {
          if (outcome === "not-started") return stayInJs();
          if (outcome === "failed") return fail(new Error("the body splicer failed"));
          remaining = 0;
          complete();
        });
      };
      // Held, the socket still hands on what it had buffered (a "data" per chunk, to `body`).
      setImmediate(attempt);
    };

    // Registered after everything it calls: takeReads hands over at once what already arrived.
    if (isBulk(upstream)) takeReads(upstream, onBulk);
    else upstream.on("data", onData);

    request.pipe(out);
  });
}
