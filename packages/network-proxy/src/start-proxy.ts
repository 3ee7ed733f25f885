import { lookup } from "node:dns/promises";
import type { Server as HttpServer } from "node:http";
import type { Server, Socket } from "node:net";
import { join } from "node:path";
import { ConnectionBudget } from "./connection-budget.js";
import { ProxyListenerError, ProxyStartError } from "./errors.js";
import { createHttpProxy } from "./http-proxy.js";
import { checkSocketDirectory, listenOn, removeSocketFile, secureSocketFile, type ListenTarget } from "./listen.js";
import { parseNetworkProxyOptions } from "./options.js";
import { createSocksProxy } from "./socks-proxy.js";
import { TunnelSplicer } from "./splice.js";
import type { NetworkProxy, NetworkProxyOptions, NetworkRequestEvent, ProxyEndpoints, ProxyResolver } from "./types.js";

/** Internal: the two listening servers, for tests that need to break one. Not exported from the package. */
export const kListeners = Symbol("network-proxy listeners");
/** Internal: the tunnel splicer (running and unexpected-exit counts), for tests. Not exported from the package. */
export const kSplicer = Symbol("network-proxy splicer");
/** Internal: the connection budget (open and refused counts), for tests. Not exported from the package. */
export const kConnections = Symbol("network-proxy connections");

const defaultResolver: ProxyResolver = async (host) =>
  (await lookup(host, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * Starts the HTTP (plain and CONNECT) and SOCKS5 listeners. Resolves once both listen; a failure
 * to start one closes the other and throws `ProxyStartError` (`NETPROXY_START_FAILED`); bad options
 * throw `InvalidProxyOptionsError` (`NETPROXY_INVALID_OPTIONS`) before anything is bound.
 */
export async function startNetworkProxy(options: NetworkProxyOptions): Promise<NetworkProxy> {
  const o = parseNetworkProxyOptions(options);
  const unix = o.listen.transport === "unix-socket" ? o.listen.directory : undefined;
  if (unix !== undefined) await checkSocketDirectory(unix);

  const abort = new AbortController();
  const upstreams = new Set<Socket>();
  const splicer = o.tunnelSplicer === undefined ? undefined : new TunnelSplicer(o.tunnelSplicer);
  const report = (event: NetworkRequestEvent) => {
    try {
      const result: unknown = o.onRequest?.(event);
      // An async listener's rejection would otherwise be an unhandled rejection, which kills the host.
      if (result instanceof Promise) result.catch(() => {});
    } catch {
      // A listener must not be able to break or bypass the proxy.
    }
  };
  const ctx = {
    decide: o.decide,
    resolver: o.resolver ?? defaultResolver,
    connectTimeoutMs: o.connectTimeoutMs,
    signal: abort.signal,
    track(socket: Socket) {
      upstreams.add(socket);
      socket.once("close", () => upstreams.delete(socket));
      if (abort.signal.aborted) socket.destroy();
    },
    report,
    splicer,
    bulkReads: splicer === undefined,
    ...(o.upstream ? { upstream: o.upstream } : {}),
    connections: new ConnectionBudget(o.maxConnections),
  };
  const http = createHttpProxy(ctx);
  const socks = createSocksProxy(ctx);
  const paths = unix === undefined ? [] : [join(unix, "http.sock"), join(unix, "socks.sock")];
  const targetOf = (i: number): ListenTarget => (unix === undefined ? { host: "127.0.0.1", port: 0 } : { path: paths[i] as string });

  const shutdown = async () => {
    abort.abort();
    // A handed-over tunnel lives only in its splicer (this process closed its copies): killing it closes it.
    splicer?.stop();
    for (const socket of upstreams) socket.destroy();
    for (const socket of socks.clients) socket.destroy();
    await Promise.all([
      http.proxy.close(true).catch(() => {}),
      new Promise<void>((resolve) => (socks.server.listening ? socks.server.close(() => resolve()) : resolve())),
    ]);
    await Promise.all(paths.map(removeSocketFile));
  };

  // Watched from before listen() so that no moment is left where a listener error is unhandled
  // (which would kill the host); until the proxy is up, listenOn reports errors itself.
  let failure: (name: "http" | "socks", error?: Error) => void = () => {};
  const watch = (server: HttpServer | Server, name: "http" | "socks") => {
    server.on("error", (error: Error) => failure(name, error));
    server.on("close", () => failure(name));
  };
  watch(http.server, "http");
  watch(socks.server, "socks");

  let endpoints: ProxyEndpoints;
  try {
    const [h, s] = await Promise.all([listenOn(http.server, targetOf(0), "HTTP"), listenOn(socks.server, targetOf(1), "SOCKS5")]);
    if (unix !== undefined) await Promise.all(paths.map(secureSocketFile));
    endpoints = { http: h, socks: s };
  } catch (error) {
    await shutdown();
    throw error instanceof ProxyStartError ? error : new ProxyStartError(`cannot start: ${(error as Error).message}`, { cause: error });
  }

  let alive = true;
  let stopping: Promise<void> | undefined;
  let settle!: (outcome: { error?: Error }) => void;
  const closed = new Promise<{ error?: Error }>((resolve) => (settle = resolve));
  const end = (error?: Error) => {
    if (stopping) return stopping;
    alive = false;
    stopping = shutdown().then(() => settle(error ? { error } : {}));
    return stopping;
  };
  failure = (name, error) => void end(new ProxyListenerError(name, error?.message ?? "closed unexpectedly", { cause: error }));
  return {
    endpoints,
    get alive() {
      return alive;
    },
    closed,
    stop: () => end(),
    [kListeners]: { http: http.server, socks: socks.server },
    [kSplicer]: splicer,
    [kConnections]: ctx.connections,
  } as NetworkProxy;
}
