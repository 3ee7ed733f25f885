// Plain-HTTP forwarding: what reaches the destination, bodies byte-exact (parsed, passed through in
// JS, passed through by the native splicer), keep-alive after each, and failures that stay visible.
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { forwardedFields, passThroughLength } from "../src/forward-http.js";
import type { NetworkProxy } from "../src/index.js";
import type { TunnelSplicer } from "../src/splice.js";
import { kSplicer } from "../src/start-proxy.js";
import { nativeSplicer, nativeSplicerSkip, proxyWith, recordingSplicer, stopAll, tableResolver } from "./helpers.js";

const helper = nativeSplicer;
const noSplicer = nativeSplicerSkip;

const BIG = 8 * 1024 * 1024;
const PAYLOAD = randomBytes(BIG);
const digest = (b: Buffer) => createHash("sha256").update(b).digest("hex");

// A well-behaved origin: /len/N (a body of known length), /chunked/N, /host (the Host it was sent),
// /headers (the names it was sent), /echo (length and digest of the request body).
let origin: http.Server;
let port = 0;
// A misbehaving one, answering from a table of raw responses by path.
let raw: net.Server;
let rawPort = 0;
const rawAnswers: Record<string, Buffer> = {};
const rawSockets = new Set<net.Socket>();
beforeAll(async () => {
  origin = http.createServer((req, res) => {
    const [, what, n] = (req.url ?? "").split("/");
    if (what === "len") return void res.writeHead(200, { "content-length": n }).end(PAYLOAD.subarray(0, Number(n)));
    if (what === "chunked") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      for (let i = 0; i < Number(n); i += 100_000) res.write(PAYLOAD.subarray(i, Math.min(Number(n), i + 100_000)));
      return void res.end();
    }
    if (what === "host") return void res.end(String(req.headers.host));
    if (what === "headers") return void res.end(req.rawHeaders.filter((_, i) => i % 2 === 0).map((h) => h.toLowerCase()).join(","));
    const hash = createHash("sha256");
    let got = 0;
    req.on("data", (d: Buffer) => (hash.update(d), (got += d.length)));
    req.on("end", () => res.end(`${got} ${hash.digest("hex")}`));
  });
  raw = net.createServer((socket) => {
    rawSockets.add(socket);
    socket.once("close", () => rawSockets.delete(socket));
    socket.on("error", () => {});
    socket.once("data", (d: Buffer) => {
      const path = d.toString("latin1").split(" ")[1] ?? "";
      const answer = rawAnswers[path];
      if (answer === undefined) return void socket.destroy();
      // "/hold…": the answer, and the connection left open (a body still on its way).
      if (path.startsWith("/hold")) socket.write(answer);
      else socket.end(answer);
    });
  });
  await Promise.all([
    new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", () => resolve())),
    new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", () => resolve())),
  ]);
  port = (origin.address() as net.AddressInfo).port;
  rawPort = (raw.address() as net.AddressInfo).port;
});
afterAll(async () => {
  origin.closeAllConnections();
  for (const socket of rawSockets) socket.destroy();
  await Promise.all([new Promise((resolve) => origin.close(resolve)), new Promise((resolve) => raw.close(resolve))]);
});
afterEach(stopAll);

const decide = () => ({ decision: "allow" as const, allowPrivate: true });
const resolver = () => tableResolver({ "origin.test": ["127.0.0.1"] });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  complete: boolean;
  reused: boolean;
}
/** One request through the proxy (the URL in absolute form, as a client of a proxy sends it). */
function via(proxy: NetworkProxy, url: string, options: { agent?: http.Agent; method?: string; headers?: Record<string, string>; body?: Buffer; chunked?: boolean } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: proxy.endpoints.http.port, path: url, method: options.method ?? "GET", agent: options.agent ?? false, headers: { host: new URL(url).host, ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), complete: res.complete, reused: req.reusedSocket });
        res.on("end", done);
        res.on("error", done);
      },
    );
    req.on("error", reject);
    if (options.body !== undefined && options.chunked === true) {
      for (let i = 0; i < options.body.length; i += 300_000) req.write(options.body.subarray(i, i + 300_000));
    } else if (options.body !== undefined) {
      req.setHeader("content-length", options.body.length);
      req.write(options.body);
    }
    req.end();
  });
}

describe("forwardedFields", () => {
  it("drops hop-by-hop fields and those the message's Connection names", () => {
    const fields = forwardedFields(["Connection", "keep-alive, X-Hop", "X-Hop", "1", "Keep-Alive", "timeout=5", "TE", "trailers", "Proxy-Authorization", "Basic eA==", "Proxy-Connection", "keep-alive", "Accept", "*/*"]);
    expect(fields).toEqual(["Accept", "*/*"]);
  });
  it("puts the request-target's authority in place of every Host the client sent", () => {
    expect(forwardedFields(["Host", "evil.test", "Accept", "*/*", "host", "other.test"], "origin.test:8080")).toEqual(["Host", "origin.test:8080", "Accept", "*/*"]);
  });
});

describe("passThroughLength", () => {
  const res = (statusCode: number, rawHeaders: string[]) => {
    const headers: Record<string, string> = {};
    for (let i = 0; i < rawHeaders.length; i += 2) headers[(rawHeaders[i] as string).toLowerCase()] = rawHeaders[i + 1] as string;
    return { statusCode, rawHeaders, headers } as unknown as http.IncomingMessage;
  };
  it("is the length of a body the head promises exactly", () => {
    expect(passThroughLength("GET", res(200, ["Content-Length", "1234"]))).toBe(1234);
    expect(passThroughLength("GET", res(404, ["Content-Length", "0"]))).toBe(0);
  });
  it("is undefined where the parser must frame the body, or there is none", () => {
    expect(passThroughLength("GET", res(200, []))).toBeUndefined();
    expect(passThroughLength("GET", res(200, ["Transfer-Encoding", "chunked", "Content-Length", "10"]))).toBeUndefined();
    expect(passThroughLength("GET", res(200, ["Content-Length", "10", "Content-Length", "10"]))).toBeUndefined();
    expect(passThroughLength("GET", res(200, ["Content-Length", "1e3"]))).toBeUndefined();
    expect(passThroughLength("HEAD", res(200, ["Content-Length", "10"]))).toBeUndefined();
    expect(passThroughLength("GET", res(304, ["Content-Length", "10"]))).toBeUndefined();
    expect(passThroughLength("GET", res(204, ["Content-Length", "10"]))).toBeUndefined();
  });
});

describe("plain HTTP through the proxy", () => {
  it("sends the URL's host, not the client's Host (control: the origin reports the Host it gets)", async () => {
    const direct = await new Promise<string>((resolve, reject) => {
      http.get({ host: "127.0.0.1", port, path: "/host", headers: { host: "evil.test" }, agent: false }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d)).on("end", () => resolve(body));
      }).on("error", reject);
    });
    expect(direct).toBe("evil.test");
    const { proxy } = await proxyWith({ decide, resolver: resolver() });
    const answer = await via(proxy, `http://origin.test:${port}/host`, { headers: { host: "evil.test" } });
    expect(answer.body.toString()).toBe(`origin.test:${port}`);
  });

  it("does not pass on hop-by-hop fields or the proxy's credentials", async () => {
    const { proxy } = await proxyWith({ decide, resolver: resolver() });
    const answer = await via(proxy, `http://origin.test:${port}/headers`, {
      headers: { connection: "keep-alive, x-hop", "x-hop": "1", te: "trailers", "proxy-authorization": "Basic eDp5", "x-kept": "1" },
    });
    const names = answer.body.toString().split(",");
    expect(names).toContain("x-kept");
    for (const name of ["x-hop", "te", "proxy-authorization", "keep-alive"]) expect(names).not.toContain(name);
    // One request per destination connection, so each is decided on its own.
    expect(names.filter((n) => n === "connection")).toHaveLength(1);
  });

  it("carries request bodies byte-exact, with a length and chunked", async () => {
    const { proxy } = await proxyWith({ decide, resolver: resolver() });
    for (const chunked of [false, true]) {
      const answer = await via(proxy, `http://origin.test:${port}/echo`, { method: "POST", body: PAYLOAD, chunked });
      expect(answer.body.toString()).toBe(`${BIG} ${digest(PAYLOAD)}`);
    }
  });

  it("answers 502 with a readable body when the destination closes before answering", async () => {
    const { proxy, events } = await proxyWith({ decide, resolver: resolver() });
    const answer = await via(proxy, `http://origin.test:${rawPort}/nothing`);
    expect(answer.status).toBe(502);
    expect(answer.body.toString()).toMatch(new RegExp(`^shellgate: network access to origin\\.test:${rawPort} failed: `));
    expect(events).toHaveLength(1);
  });

  it("hands the client only the promised body: bytes after it never reach the client (response smuggling)", async () => {
    rawAnswers["/smuggle"] = Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil");
    const { proxy, events } = await proxyWith({ decide, resolver: resolver() });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await via(proxy, `http://origin.test:${rawPort}/smuggle`, { agent });
      const second = await via(proxy, `http://origin.test:${port}/len/3`, { agent });
      expect(first.body.toString()).toBe("hello");
      expect(second.reused).toBe(true);
      expect(second.body).toEqual(PAYLOAD.subarray(0, 3));
      expect(events).toHaveLength(2);
    } finally {
      agent.destroy();
    }
  });

  // Each mode: the proxy with no splicer (JS throughout), and with the native one where it is built.
  const modes: [string, string | undefined][] = [["JS", undefined]];
  const recorder = recordingSplicer("np-forward-");
  const { dir, runCount } = recorder;
  const recording = recorder.path;
  if (noSplicer === undefined) modes.push(["splicer", recording]);
  afterEach(recorder.reset);
  afterAll(recorder.remove);
  it.skipIf(noSplicer !== undefined)(`(the splicer modes below${noSplicer ? ` are skipped: ${noSplicer}` : " run"})`, () => {
    expect(modes).toHaveLength(2);
  });

  for (const [mode, tunnelSplicer] of modes) {
    const options = () => ({ decide, resolver: resolver(), ...(tunnelSplicer !== undefined ? { tunnelSplicer } : {}) });

    it(`${mode}: bodies of every framing arrive byte-exact, and the client's connection is used on after each`, async () => {
      const { proxy, events } = await proxyWith(options());
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const answers = [];
        for (const path of [`/len/${BIG}`, "/len/1000", `/chunked/${BIG}`, `/len/${BIG}`, "/len/0"]) answers.push(await via(proxy, `http://origin.test:${port}${path}`, { agent }));
        const head = await via(proxy, `http://origin.test:${port}/len/${BIG}`, { agent, method: "HEAD" });
        for (const [i, size] of [BIG, 1000, BIG, BIG, 0].entries()) {
          const answer = answers[i] as Answer;
          expect(answer.status).toBe(200);
          expect(answer.complete).toBe(true);
          expect(answer.body.length).toBe(size);
          expect(digest(answer.body)).toBe(digest(PAYLOAD.subarray(0, size)));
        }
        expect(answers[0]?.headers["content-length"]).toBe(String(BIG));
        expect(answers[2]?.headers["transfer-encoding"]).toBe("chunked");
        expect(head.headers["content-length"]).toBe(String(BIG));
        expect(head.body.length).toBe(0);
        // One client connection for all six, and each request decided on its own.
        expect(answers.slice(1).every((a) => a.reused) && head.reused).toBe(true);
        expect(events).toHaveLength(6);
        // The two large bodies of a known length, and nothing else, went through the splicer.
        expect(runCount()).toBe(tunnelSplicer === undefined ? 0 : 2);
      } finally {
        agent.destroy();
      }
    });

    it(`${mode}: a body cut short by the destination is an error for the client, never a short success`, async () => {
      // The head promises BIG; 2 MB follow, then the connection ends.
      rawAnswers["/short"] = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${BIG}\r\n\r\n`), PAYLOAD.subarray(0, 2 * 1024 * 1024)]);
      const { proxy } = await proxyWith(options());
      const answer = await via(proxy, `http://origin.test:${rawPort}/short`);
      expect(answer.status).toBe(200);
      expect(answer.complete).toBe(false);
      expect(answer.body.length).toBeLessThan(BIG);
      expect(digest(answer.body)).toBe(digest(PAYLOAD.subarray(0, answer.body.length)));
    });

    it(`${mode}: a chunked body cut short by the destination is an error for the client too`, async () => {
      rawAnswers["/short-chunked"] = Buffer.concat([Buffer.from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n"), PAYLOAD.subarray(0, 1024 * 1024)]);
      const { proxy } = await proxyWith(options());
      const answer = await via(proxy, `http://origin.test:${rawPort}/short-chunked`);
      expect(answer.status).toBe(200);
      expect(answer.complete).toBe(false);
    });

    it(`${mode}: a close-delimited body (no length) arrives whole`, async () => {
      rawAnswers["/until-close"] = Buffer.concat([Buffer.from("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"), PAYLOAD.subarray(0, 3 * 1024 * 1024)]);
      const { proxy } = await proxyWith(options());
      const answer = await via(proxy, `http://origin.test:${rawPort}/until-close`);
      expect(answer.complete).toBe(true);
      expect(digest(answer.body)).toBe(digest(PAYLOAD.subarray(0, 3 * 1024 * 1024)));
    });
  }

  it.skipIf(noSplicer !== undefined)("stop() during a spliced body kills its splicer and closes the client's connection", async () => {
    rawAnswers["/hold-body"] = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${BIG}\r\n\r\n`), PAYLOAD.subarray(0, 4 * 1024 * 1024)]);
    const { proxy } = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: helper });
    const splicer = (proxy as unknown as Record<symbol, TunnelSplicer>)[kSplicer] as TunnelSplicer;
    const answer = via(proxy, `http://origin.test:${rawPort}/hold-body`);
    for (let i = 0; i < 100 && splicer.running === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(splicer.running).toBe(1);
    await proxy.stop();
    const { complete, body } = await answer;
    expect(complete).toBe(false);
    expect(body.length).toBeLessThan(BIG);
    // Killed; its exit may reach this process after the client saw the connection close.
    for (let i = 0; i < 100 && splicer.running > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(splicer.running).toBe(0);
  });

  it.skipIf(noSplicer !== undefined)("carries the body in JS, intact, when the splicer cannot start", async () => {
    // Executable, but its interpreter does not exist: the exec fails.
    const broken = join(dir, "broken");
    writeFileSync(broken, "#!/nonexistent/interpreter\n");
    chmodSync(broken, 0o755);
    const { proxy } = await proxyWith({ decide, resolver: resolver(), tunnelSplicer: broken });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await via(proxy, `http://origin.test:${port}/len/${BIG}`, { agent });
      const second = await via(proxy, `http://origin.test:${port}/len/${BIG}`, { agent });
      for (const answer of [first, second]) expect(digest(answer.body)).toBe(digest(PAYLOAD));
      expect(second.reused).toBe(true);
    } finally {
      agent.destroy();
    }
  });
});
