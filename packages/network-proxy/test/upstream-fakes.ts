import http from "node:http";
import net from "node:net";

/** What a fake upstream proxy saw: one entry per request (CONNECT target, absolute-form URL, or SOCKS5 destination). */
export interface UpstreamLog {
  connections: number;
  requests: Array<{ kind: "connect" | "forward" | "socks"; target: string; auth?: string }>;
}

/** Where the fake upstreams send everything: names in `table` to their address, literals as they are. */
function destinationOf(host: string, table: Record<string, string>): string {
  return table[host] ?? host;
}

/**
 * A loopback HTTP proxy standing in for a corporate one: CONNECT tunnels and absolute-form plain
 * HTTP, refusing with 407 unless the request carries `Proxy-Authorization: Basic user:pass` (when
 * `credentials` is given).
 */
export async function startHttpUpstream(table: Record<string, string>, credentials?: string): Promise<{ port: number; log: UpstreamLog; close(): Promise<void> }> {
  const log: UpstreamLog = { connections: 0, requests: [] };
  const expected = credentials === undefined ? undefined : `Basic ${Buffer.from(credentials).toString("base64")}`;
  const server = http.createServer((req, res) => {
    const auth = req.headers["proxy-authorization"];
    log.requests.push({ kind: "forward", target: req.url ?? "", ...(auth ? { auth } : {}) });
    if (expected !== undefined && auth !== expected) return void res.writeHead(407).end("auth");
    const url = new URL(req.url ?? "");
    const out = http.request({ host: destinationOf(url.hostname, table), port: url.port, path: `${url.pathname}${url.search}`, headers: { ...req.headers, "x-via": "fake-upstream" } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.writeHead(502).end());
    req.pipe(out);
  });
  server.on("connection", () => log.connections++);
  server.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const auth = req.headers["proxy-authorization"];
    log.requests.push({ kind: "connect", target: req.url ?? "", ...(auth ? { auth } : {}) });
    if (expected !== undefined && auth !== expected) return void client.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n");
    const { hostname, port } = new URL(`http://${req.url ?? ""}`);
    const upstream = net.connect(Number(port), destinationOf(hostname.replace(/^\[|\]$/g, ""), table), () => {
      client.write("HTTP/1.1 200 Connection established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    log,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A loopback SOCKS5 proxy (RFC 1928 CONNECT; RFC 1929 username/password when `credentials` is "user:pass"). */
export async function startSocksUpstream(table: Record<string, string>, credentials?: string): Promise<{ port: number; log: UpstreamLog; close(): Promise<void> }> {
  const log: UpstreamLog = { connections: 0, requests: [] };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    log.connections++;
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    let buffer = Buffer.alloc(0);
    let stage: "greeting" | "auth" | "request" | "done" = "greeting";
    let auth: string | undefined;
    client.on("data", function onData(chunk: Buffer) {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (stage === "greeting") {
          if (buffer.length < 2 || buffer.length < 2 + (buffer[1] ?? 0)) return;
          const methods = [...buffer.subarray(2, 2 + (buffer[1] ?? 0))];
          buffer = buffer.subarray(2 + (buffer[1] ?? 0));
          const want = credentials === undefined ? 0x00 : 0x02;
          if (!methods.includes(want)) return void client.end(Buffer.from([5, 0xff]));
          client.write(Buffer.from([5, want]));
          stage = want === 0x02 ? "auth" : "request";
        } else if (stage === "auth") {
          const ulen = buffer[1] ?? 0;
          if (buffer.length < 3 + ulen || buffer.length < 3 + ulen + (buffer[2 + ulen] ?? 0)) return;
          const plen = buffer[2 + ulen] ?? 0;
          auth = `${buffer.subarray(2, 2 + ulen).toString()}:${buffer.subarray(3 + ulen, 3 + ulen + plen).toString()}`;
          buffer = buffer.subarray(3 + ulen + plen);
          if (auth !== credentials) return void client.end(Buffer.from([1, 1]));
          client.write(Buffer.from([1, 0]));
          stage = "request";
        } else if (stage === "request") {
          if (buffer.length < 5) return;
          const atyp = buffer[3];
          const len = atyp === 1 ? 4 : atyp === 4 ? 16 : 1 + (buffer[4] ?? 0);
          if (buffer.length < 4 + len + 2) return;
          const raw = buffer.subarray(4, 4 + len);
          const host =
            atyp === 1 ? [...raw].join(".") : atyp === 4 ? (raw.toString("hex").match(/.{4}/g) ?? []).map((g) => Number.parseInt(g, 16).toString(16)).join(":") : raw.subarray(1).toString();
          const port = buffer.readUInt16BE(4 + len);
          buffer = buffer.subarray(4 + len + 2);
          log.requests.push({ kind: "socks", target: `${host}:${port}`, ...(auth ? { auth } : {}) });
          stage = "done";
          client.off("data", onData);
          client.pause();
          const upstream = net.connect(port, destinationOf(host, table), () => {
            client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
            if (buffer.length > 0) upstream.write(buffer);
            upstream.pipe(client).pipe(upstream);
            client.resume();
          });
          upstream.on("error", () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
          return;
        } else return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    log,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}
