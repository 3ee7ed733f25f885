import { isIP, isIPv4, type Socket } from "node:net";
import { connectTo } from "./connect.js";
import type { UpstreamProxy } from "./upstream.js";
import type { ProxyResolver } from "./types.js";

/** What connecting through an upstream needs from the running proxy. */
export interface UpstreamConnectContext {
  resolver: ProxyResolver;
  signal: AbortSignal;
  track(socket: Socket): void;
}

/** How the connection to the upstream is used: a tunnel to the destination, or plain HTTP in absolute form (HTTP upstreams only). */
export type UpstreamMode = "tunnel" | "forward";

// A proxy's answer head or a SOCKS5 reply longer than this is not an answer.
const MAX_HEAD_BYTES = 16 * 1024;

/** The `Proxy-Authorization` value for an upstream's credentials (Basic), or undefined without any. */
export function proxyAuthorization(proxy: UpstreamProxy): string | undefined {
  if (proxy.username === undefined && proxy.password === undefined) return undefined;
  return `Basic ${Buffer.from(`${proxy.username ?? ""}:${proxy.password ?? ""}`, "utf8").toString("base64")}`;
}

/**
 * Reads a handshake's answer from a socket: the bytes asked for, then hands back whatever came
 * after them (the destination's first bytes) to the socket's own stream.
 */
class HandshakeReader {
  #buffer = Buffer.alloc(0);
  #waiter: (() => void) | undefined;
  #failure: Error | undefined;
  readonly #socket: Socket;
  readonly #onData = (chunk: Buffer) => {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    if (this.#buffer.length > MAX_HEAD_BYTES) this.#fail(new Error("the upstream proxy's answer is too long"));
    this.#waiter?.();
  };
  readonly #onEnd = () => this.#fail(new Error("the upstream proxy closed the connection"));
  readonly #onError = (error: Error) => this.#fail(error);
  constructor(socket: Socket) {
    this.#socket = socket;
    socket.on("data", this.#onData);
    socket.once("end", this.#onEnd);
    socket.once("close", this.#onEnd);
    socket.once("error", this.#onError);
  }
  #fail(error: Error): void {
    this.#failure ??= error;
    this.#waiter?.();
  }
  async #until(ready: () => boolean): Promise<void> {
    while (!ready()) {
      if (this.#failure) throw this.#failure;
      await new Promise<void>((resolve) => (this.#waiter = resolve));
      this.#waiter = undefined;
    }
  }
  async bytes(n: number): Promise<Buffer> {
    await this.#until(() => this.#buffer.length >= n);
    const out = this.#buffer.subarray(0, n);
    this.#buffer = this.#buffer.subarray(n);
    return out;
  }
  async head(): Promise<string> {
    await this.#until(() => this.#buffer.includes("\r\n\r\n"));
    const end = this.#buffer.indexOf("\r\n\r\n") + 4;
    const out = this.#buffer.subarray(0, end).toString("latin1");
    this.#buffer = this.#buffer.subarray(end);
    return out;
  }
  /** Stops reading for the handshake; what came after the answer is read again by the next reader. */
  release(): void {
    this.#socket.off("data", this.#onData);
    this.#socket.off("end", this.#onEnd);
    this.#socket.off("close", this.#onEnd);
    this.#socket.off("error", this.#onError);
    this.#socket.pause();
    if (this.#buffer.length > 0) this.#socket.unshift(this.#buffer);
  }
}

/**
 * A connection to `target` through `proxy`, within `timeoutMs`: HTTP CONNECT (with
 * `Proxy-Authorization` from the URL's credentials), SOCKS5 CONNECT (username/password when given;
 * `socks5` sends `target.address`, the address checked here, `socks5h` the name), or for plain HTTP
 * through an HTTP upstream (`forward`) the bare connection to it. Rejects with an error whose
 * message says what the upstream answered.
 */
export async function connectThrough(
  proxy: UpstreamProxy,
  target: { host: string; port: number; address?: string },
  mode: UpstreamMode,
  timeoutMs: number,
  ctx: UpstreamConnectContext,
): Promise<Socket> {
  const deadline = Date.now() + timeoutMs;
  const addresses = isIP(proxy.host) !== 0 ? [proxy.host] : (await ctx.resolver(proxy.host)).map((a) => a.address).filter((a) => isIP(a) !== 0);
  if (addresses.length === 0) throw Object.assign(new Error(`cannot resolve the upstream proxy ${proxy.host}`), { code: "ENOTFOUND" });
  let socket: Socket | undefined;
  let lastError: unknown;
  for (const address of addresses) {
    try {
      socket = await connectTo(address, proxy.port, deadline - Date.now(), ctx.signal, ctx.track);
      break;
    } catch (error) {
      lastError = error;
      if (ctx.signal.aborted || Date.now() >= deadline) break;
    }
  }
  if (!socket) throw lastError instanceof Error ? lastError : new Error(String(lastError));
  if (mode === "forward" && proxy.protocol === "http") return socket;
  const connected = socket;
  const timer = setTimeout(() => connected.destroy(Object.assign(new Error("the upstream proxy did not answer in time"), { code: "ETIMEDOUT" })), Math.max(1, deadline - Date.now()));
  const reader = new HandshakeReader(connected);
  try {
    if (proxy.protocol === "http") await httpConnect(connected, reader, proxy, target);
    else await socks5Connect(connected, reader, proxy, target);
    reader.release();
    return connected;
  } catch (error) {
    reader.release();
    connected.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function authority(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

async function httpConnect(socket: Socket, reader: HandshakeReader, proxy: UpstreamProxy, target: { host: string; port: number }): Promise<void> {
  const where = authority(target.host, target.port);
  const auth = proxyAuthorization(proxy);
  socket.write(`CONNECT ${where} HTTP/1.1\r\nHost: ${where}\r\n${auth ? `Proxy-Authorization: ${auth}\r\n` : ""}\r\n`);
  const head = await reader.head();
  const status = /^HTTP\/1\.[01] (\d{3})([^\r\n]*)/u.exec(head);
  if (!status) throw new Error("the upstream proxy's answer is not HTTP");
  const code = Number(status[1]);
  if (code < 200 || code > 299) throw Object.assign(new Error(`the upstream proxy ${proxy.shown} answered ${code}${printable(status[2] ?? "")}`), { code: `upstream ${code}` });
}

const SOCKS_REPLIES: Record<number, string> = {
  1: "general failure",
  2: "not allowed by its rules",
  3: "network unreachable",
  4: "host unreachable",
  5: "connection refused",
  6: "TTL expired",
  7: "command not supported",
  8: "address type not supported",
};

async function socks5Connect(socket: Socket, reader: HandshakeReader, proxy: UpstreamProxy, target: { host: string; port: number; address?: string }): Promise<void> {
  const withAuth = proxy.username !== undefined || proxy.password !== undefined;
  socket.write(Buffer.from(withAuth ? [5, 2, 0x00, 0x02] : [5, 1, 0x00]));
  const [version, method] = await reader.bytes(2);
  if (version !== 5) throw new Error("the upstream proxy does not speak SOCKS5");
  if (method === 0x02 && withAuth) {
    const user = Buffer.from(proxy.username ?? "", "utf8");
    const pass = Buffer.from(proxy.password ?? "", "utf8");
    if (user.length > 255 || pass.length > 255) throw new Error("SOCKS5 credentials longer than 255 bytes");
    socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
    const [, status] = await reader.bytes(2);
    if (status !== 0) throw Object.assign(new Error(`the upstream proxy ${proxy.shown} refused the credentials`), { code: "upstream auth" });
  } else if (method !== 0x00) {
    throw new Error(`the upstream proxy ${proxy.shown} wants ${method === 0xff ? "an authentication this proxy cannot offer" : `authentication method ${method}`}`);
  }
  // socks5: the client resolves (the address checked here); socks5h: the upstream does.
  const destination = proxy.protocol === "socks5" ? target.address : target.host;
  if (destination === undefined) throw Object.assign(new Error(`cannot resolve ${target.host} here, and ${proxy.variable} asks for socks5:// (socks5h:// lets the upstream resolve)`), { code: "ENOTFOUND" });
  let address: Buffer;
  if (isIPv4(destination)) address = Buffer.from([1, ...destination.split(".").map(Number)]);
  else if (isIP(destination) === 6) address = Buffer.concat([Buffer.from([4]), ipv6Bytes(destination)]);
  else {
    const name = Buffer.from(destination, "ascii");
    address = Buffer.concat([Buffer.from([3, name.length]), name]);
  }
  const port = Buffer.from([target.port >> 8, target.port & 0xff]);
  socket.write(Buffer.concat([Buffer.from([5, 1, 0]), address, port]));
  const [v, rep, , atyp] = await reader.bytes(4);
  if (v !== 5) throw new Error("the upstream proxy's SOCKS5 reply is malformed");
  if (rep !== 0) throw Object.assign(new Error(`the upstream proxy ${proxy.shown} answered: ${SOCKS_REPLIES[rep ?? 1] ?? `reply ${rep}`}`), { code: `socks ${rep}` });
  const rest = atyp === 1 ? 4 : atyp === 4 ? 16 : atyp === 3 ? ((await reader.bytes(1))[0] ?? 0) : -1;
  if (rest < 0) throw new Error("the upstream proxy's SOCKS5 reply is malformed");
  await reader.bytes(rest + 2);
}

function ipv6Bytes(address: string): Buffer {
  // The WHATWG parser expands and validates; the groups come back compressed, so expand them here.
  const [head = "", tail] = address.split("::") as [string, string | undefined];
  const groups = (s: string) => (s === "" ? [] : s.split(":"));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...new Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return Buffer.from(words.flatMap((w) => [Number.parseInt(w, 16) >> 8, Number.parseInt(w, 16) & 0xff]));
}

function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/gu, "?");
}
