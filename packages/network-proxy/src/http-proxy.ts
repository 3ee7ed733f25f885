import { EventEmitter } from "node:events";
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { RequestError, Server, type PrepareRequestFunctionOpts, type PrepareRequestFunctionResult } from "proxy-chain";
import { openDestination, type DestinationContext } from "./open-destination.js";
import { tooManyConnectionsText, type ConnectionBudget } from "./connection-budget.js";
import { errorCode } from "./connect.js";
import { forwardHttp } from "./forward-http.js";
import { httpStatusOf, refusalText } from "./refusal.js";
import { splice, STREAM_MARK, type TunnelSplicer } from "./splice.js";
import type { NetworkRequestEvent } from "./types.js";

/** What the HTTP listener needs from the running proxy. */
export interface HttpFrontendContext extends DestinationContext {
  report(event: NetworkRequestEvent): void;
  /** Takes over bulk CONNECT tunnels, when configured. */
  splicer?: TunnelSplicer | undefined;
  /** Client connections open at once, shared with the SOCKS5 listener. */
  connections: ConnectionBudget;
}

type ClientSocket = Parameters<Server["onConnection"]>[0];

/** The destination connection `openDestination` made for a plain-HTTP request, and for which host, on its way to `onRequest`. */
class Admitted {
  constructor(
    readonly socket: Socket,
    readonly host: string,
    readonly port: number,
    /** Set when `socket` leads to an HTTP upstream proxy: the request goes in absolute form. */
    readonly forward?: { authorization?: string },
  ) {}
}

class ShellgateProxyServer extends Server {
  readonly #splicer: TunnelSplicer | undefined;
  readonly #connections: ConnectionBudget;
  readonly #refused = new WeakSet<object>();
  constructor(options: ConstructorParameters<typeof Server>[0], splicer: TunnelSplicer | undefined, connections: ConnectionBudget) {
    super(options);
    this.#splicer = splicer;
    this.#connections = connections;
    // proxy-chain's own http.Server keeps Node's 16 KiB stream marks, so a forwarded download
    // stops and restarts reading after every 64 KiB chunk. The same server with larger marks,
    // wired to the same handlers proxy-chain wires for `serverType: "http"`, replaces it before
    // anything listens.
    const server = createServer({ highWaterMark: STREAM_MARK });
    server.on("clientError", this.onClientError.bind(this));
    server.on("request", this.onRequest.bind(this));
    server.on("connect", this.onConnect.bind(this));
    server.on("connection", this.onConnection.bind(this));
    this.server = server;
  }

  // proxy-chain drops every connection without a `remoteAddress` (a guard against a Node bug with
  // TCP sockets), and a unix-socket client never has one. The registration it does besides is
  // kept: close(true) relies on it to end open tunnels.
  override onConnection(socket: ClientSocket): void {
    socket.on("error", () => {});
    if (!this.#connections.take(socket)) {
      // Answered at once, before any request is read, as proxy-chain answers a failed request (the
      // connection then closes): Node's parser already holds the socket, and whatever it parses
      // meanwhile is dropped (`#refused`).
      this.#refused.add(socket);
      this.sendSocketResponse(socket, 503, { "content-type": "text/plain; charset=utf-8" }, tooManyConnectionsText(this.#connections.max));
      return;
    }
    this.registerConnection(socket);
    socket.setNoDelay?.(true);
  }

  // A refused connection's request, if the client sent one before the answer went out, is not served.
  override async onConnect(request: IncomingMessage, socket: ClientSocket, head: Buffer): Promise<void> {
    if (this.#refused.has(socket)) return void socket.destroy();
    return super.onConnect(request, socket, head);
  }

  // proxy-chain parses the request and its target and calls prepareRequestFunction (admission);
  // the forwarding is ours (forwardHttp), which lets a response body pass through unparsed.
  override async onRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.#refused.has(request.socket)) return void request.socket.destroy();
    let admitted: Admitted | undefined;
    try {
      const opts = await this.prepareRequestHandling(request);
      if (!(opts.customTag instanceof Admitted) || opts.trgParsed === null) throw new Error("plain HTTP request without an admitted connection");
      admitted = opts.customTag;
      await forwardHttp(request, response, opts.trgParsed, admitted.socket, this.#splicer, admitted.forward);
    } catch (error) {
      if (error instanceof RequestError || admitted === undefined) return this.failRequest(request, this.normalizeHandlerError(error as NodeJS.ErrnoException));
      // Admitted, then the destination failed before answering: a gateway error the client can read.
      const text = refusalText({ cause: "upstream-failed", host: admitted.host, port: admitted.port, reason: errorCode(error) });
      this.failRequest(request, new RequestError(text, 502, { "content-type": "text/plain; charset=utf-8" }));
    }
  }
}

/**
 * The HTTP proxy listener (plain HTTP forwarding and `CONNECT`), not yet listening: proxy-chain
 * parses and forwards; every request goes through `openDestination` first, and a refusal is a 403/400/502
 * with the readable text as its `text/plain` body.
 */
export function createHttpProxy(ctx: HttpFrontendContext): { proxy: Server; server: HttpServer } {
  const prepareRequestFunction = async ({ request, hostname, port, isHttp }: PrepareRequestFunctionOpts): Promise<PrepareRequestFunctionResult> => {
    const opened = await openDestination(isHttp ? "http" : "https", hostname, port, ctx);
    ctx.report(opened.event);
    if (!opened.ok) {
      throw new RequestError(refusalText(opened.refusal), httpStatusOf(opened.refusal.cause), { "content-type": "text/plain; charset=utf-8" });
    }
    const upstream = opened.socket;
    const client = request.socket;
    if (client.destroyed) {
      upstream.destroy();
      throw new RequestError("client went away", 499);
    }
    const dropUpstream = () => upstream.destroy();
    client.once("close", dropUpstream);
    upstream.once("close", () => client.off("close", dropUpstream));
    if (isHttp) return { customTag: new Admitted(upstream, opened.event.host, opened.event.port, opened.forward) };
    // proxy-chain's own CONNECT path would dial the name again; a custom connect "server" gets the
    // client socket after the 200 instead, and joins it to the socket that was checked.
    const tunnel = new EventEmitter();
    tunnel.once("connection", (socket: Socket) => splice(socket, upstream, ctx.splicer));
    return { customConnectServer: tunnel as unknown as HttpServer };
  };
  const proxy = new ShellgateProxyServer({ port: 0, host: "127.0.0.1", prepareRequestFunction, authRealm: "shellgate", verbose: false }, ctx.splicer, ctx.connections);
  return { proxy, server: proxy.server as HttpServer };
}
