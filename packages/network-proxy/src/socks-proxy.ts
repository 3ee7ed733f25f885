import { Socks5Server } from "@pondwader/socks5-server";
import { createServer, type Server, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { openDestination, type DestinationContext } from "./open-destination.js";
import type { ConnectionBudget } from "./connection-budget.js";
import { normalizeRequestHost } from "./host.js";
import { SocksReply, socksReplyOf } from "./refusal.js";
import { splice, STREAM_MARK, type TunnelSplicer } from "./splice.js";
import type { NetworkRequestEvent } from "./types.js";

/** What the SOCKS5 listener needs from the running proxy. */
export interface SocksFrontendContext extends DestinationContext {
  report(event: NetworkRequestEvent): void;
  /** Takes over bulk SOCKS5 tunnels, when configured. */
  splicer?: TunnelSplicer | undefined;
  /** Client connections open at once, shared with the HTTP listener. */
  connections: ConnectionBudget;
}

// A client that connects and never finishes the handshake would hold a socket forever. Once the
// request is read the limit is lifted: `decide` may legitimately wait (an approval prompt).
const HANDSHAKE_TIMEOUT_MS = 30_000;

/**
 * A full RFC 1928 reply (VER, REP, RSV, ATYP=IPv4, BND.ADDR 0.0.0.0, BND.PORT 0), written and then
 * the stream ended. The library's own refusal for an unsupported command is two bytes and its
 * sendStatus destroys the socket right after writing, which can lose the reply; so every reply is
 * written here.
 */
function reply(socket: Duplex, code: number, end: boolean): void {
  const bytes = Buffer.from([0x05, code, 0x00, 0x01, 0, 0, 0, 0, 0, 0]);
  if (end) socket.end(bytes);
  else socket.write(bytes);
}

/**
 * The SOCKS5 listener, not yet listening. @pondwader/socks5-server reads the greeting and the
 * request (no authentication offered: the transports are local); this module owns the net.Server
 * (so listener errors, unix sockets and stop() are ours), and answers every request: CONNECT
 * through `openDestination`, BIND and UDP ASSOCIATE with 0x07.
 */
export function createSocksProxy(ctx: SocksFrontendContext): { server: Server; clients: Set<Socket> } {
  const clients = new Set<Socket>();
  const socks = new Socks5Server();
  // Registered only so that they reach the handler below and get a well-formed 0x07 reply.
  socks.supportedCommands.add("bind");
  socks.supportedCommands.add("udp");
  socks.setConnectionHandler((connection) => {
    const client = connection.socket;
    if ("setTimeout" in client && typeof client.setTimeout === "function") (client as Socket).setTimeout(0);
    // The library resumes the stream right after this handler returns; data a client sends before
    // the reply (optimistic data) would be emitted to no one while the request is admitted.
    const hold = (chunk: Buffer) => {
      client.pause();
      client.unshift(chunk);
    };
    client.once("data", hold);
    const port = connection.destPort;
    if (connection.command !== "connect") {
      let host = connection.destAddress;
      try {
        host = normalizeRequestHost(host);
      } catch {
        host = String(host).slice(0, 256);
      }
      const what = connection.command === "udp" ? "UDP ASSOCIATE" : "BIND";
      ctx.report({ protocol: "socks5_tcp", host, port, decision: "deny", cause: "unsupported-command", reason: `SOCKS5 ${what} is not supported` });
      reply(client, SocksReply.commandNotSupported, true);
      return;
    }
    void openDestination("socks5_tcp", connection.destAddress, port, ctx).then(
      (opened) => {
        ctx.report(opened.event);
        if (!opened.ok) return reply(client, socksReplyOf(opened.refusal.cause), true);
        if (client.destroyed) return void opened.socket.destroy();
        client.off("data", hold);
        reply(client, SocksReply.succeeded, false);
        splice(client, opened.socket, ctx.splicer);
      },
      () => reply(client, SocksReply.generalFailure, true),
    );
  });
  // Half-open: a client that ends its side (request sent) must still get the whole answer.
  const server = createServer({ allowHalfOpen: true, highWaterMark: STREAM_MARK }, (socket) => {
    socket.on("error", () => {});
    // Over the budget: closed unread. SOCKS5 has no reply before the greeting that could say why.
    if (!ctx.connections.take(socket)) return void socket.destroy();
    clients.add(socket);
    socket.once("close", () => clients.delete(socket));
    socket.setNoDelay(true);
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => socket.destroy());
    socks._handleConnection(socket);
  });
  return { server, clients };
}
