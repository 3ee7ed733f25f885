// The helper's --splice and --splice-body modes on their own: two real sockets as fd 0 and fd 1.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { locateHelper } from "../src/index.js";
import { run } from "./support.js";

const helper = locateHelper();
const skip = process.platform !== "linux" ? "not Linux" : helper ? undefined : "helper not built (run the package build)";

const MB = 1024 * 1024;
const bytes = (seed: number) => Buffer.from(Array.from({ length: MB }, (_, i) => (i * 7919 + seed) % 251));
const digest = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/** Everything a socket receives until its peer ends it. */
function collect(socket: net.Socket): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.once("end", () => resolve(Buffer.concat(chunks)));
    socket.once("error", reject);
  });
}

const exitOf = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));

/** A process is gone when it has no /proc entry, or is a zombie nobody has reaped yet. */
function gone(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/su.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

describe.skipIf(skip !== undefined)(`shellgate-sandbox-helper --splice${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const h = helper as string;
  let server: net.Server;
  const accepted: net.Socket[] = [];
  beforeAll(async () => {
    server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (s) => accepted.push(s));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A connected pair: `near` stays in the test, `far` (its accepted end) goes to the helper. */
  async function pair(): Promise<{ near: net.Socket; far: net.Socket }> {
    const near = net.connect({ port: (server.address() as net.AddressInfo).port, host: "127.0.0.1", allowHalfOpen: true });
    await new Promise<void>((resolve, reject) => near.once("connect", resolve).once("error", reject));
    while (accepted.length === 0) await new Promise((resolve) => setImmediate(resolve));
    return { near, far: accepted.shift() as net.Socket };
  }

  /** The client's and the destination's test ends, with the helper joining their far ends. */
  async function tunnel(spawnIt: (client: net.Socket, dest: net.Socket) => ChildProcess) {
    const client = await pair();
    const dest = await pair();
    const child = spawnIt(client.far, dest.far);
    // The test's copies go: only the helper holds the far ends now, as in the proxy after a handoff.
    client.far.destroy();
    dest.far.destroy();
    return { client: client.near, dest: dest.near, child };
  }

  it("moves 1 MB each way byte-exact, passes half-closes, and exits 0 when both directions are done", async () => {
    const { client, dest, child } = await tunnel((c, d) => spawn(h, ["--splice"], { stdio: [c, d, "ignore"] }));
    const exited = exitOf(child);
    const up = bytes(1);
    const down = bytes(2);
    const atDest = collect(dest);
    const atClient = collect(client);
    // The client ends first and must still get the whole answer: a half-close, not a close.
    client.end(up);
    expect(digest(await atDest)).toBe(digest(up));
    let early = false;
    void exited.then(() => (early = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(early).toBe(false);
    dest.end(down);
    const got = await atClient;
    expect(got.length).toBe(MB);
    expect(digest(got)).toBe(digest(down));
    expect(await exited).toEqual({ code: 0, signal: null });
  });

  it("exits non-zero when a side is reset", async () => {
    const { client, dest, child } = await tunnel((c, d) => spawn(h, ["--splice"], { stdio: [c, d, "ignore"] }));
    const exited = exitOf(child);
    dest.on("error", () => {});
    client.write("x");
    client.resetAndDestroy();
    const r = await exited;
    expect(r.code).not.toBe(0);
    dest.destroy();
  });

  it("dies with its parent (PR_SET_PDEATHSIG), closing the tunnel", async () => {
    // A parent of its own, killed with SIGKILL: it can do nothing about its child on the way out.
    const parent = `const c = require("node:child_process").spawn(process.argv[1], ["--splice"], { stdio: [0, 1, "ignore"] });
c.once("spawn", () => process.stderr.write(c.pid + "\\n"));
setInterval(() => {}, 1e6);`;
    const { client, dest, child } = await tunnel((c, d) => spawn(process.execPath, ["-e", parent, h], { stdio: [c, d, "pipe"] }));
    const pid = await new Promise<number>((resolve) => child.stderr?.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
    expect(pid).toBeGreaterThan(0);
    // The tunnel works through the grandchild...
    const first = new Promise<Buffer>((resolve) => dest.once("data", resolve));
    client.write("ping");
    expect((await first).toString()).toBe("ping");
    // ...until its parent dies: then it dies too, and with it the last copy of each socket.
    // Read to the end: the half-open test sockets see the peer's close only as an end.
    const closed = Promise.all([client, dest].map((s) => new Promise((resolve) => s.once("end", resolve).once("close", resolve).resume())));
    client.on("error", () => {});
    dest.on("error", () => {});
    child.kill("SIGKILL");
    await closed;
    for (let i = 0; i < 100 && !gone(pid); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gone(pid)).toBe(true);
  });

  it("refuses other arguments and descriptors that are not stream sockets (125, naming the problem)", async () => {
    for (const args of [["--splice", "--net", "off"], ["--net", "off", "--splice"], ["--splice", "--", "true"]]) {
      const r = await run([h, ...args]);
      expect(r.code, args.join(" ")).toBe(125);
      expect(r.stderr).toMatch(/--splice takes no other arguments/);
    }
    // `run` gives it /dev/null and pipes, not sockets.
    const r = await run([h, "--splice"]);
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(/stream socket on fd 0/);
  });

  describe("--splice-body N", () => {
    /** Like `tunnel`, but the test keeps its copies of the far ends, as the proxy does around a body. */
    async function held() {
      const client = await pair();
      const dest = await pair();
      return { client, dest };
    }

    it("moves exactly N bytes from fd 1 to fd 0, reads nothing past them, and leaves both connections open", async () => {
      const { client, dest } = await held();
      const body = Buffer.concat([bytes(3), bytes(4), bytes(5)]);
      const after = Buffer.from("the next response");
      dest.near.write(Buffer.concat([body, after]));
      const child = spawn(h, ["--splice-body", String(body.length)], { stdio: [client.far, dest.far, "ignore"] });
      expect(await exitOf(child)).toEqual({ code: 0, signal: null });
      // The body reached the client; then the client's connection still works both ways.
      client.far.resume();
      const atClient: Buffer[] = [];
      client.near.on("data", (d: Buffer) => atClient.push(d));
      for (let i = 0; i < 200 && Buffer.concat(atClient).length < body.length; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(digest(Buffer.concat(atClient))).toBe(digest(body));
      const echoed = new Promise<Buffer>((resolve) => client.far.once("data", resolve));
      client.near.write("ping");
      expect((await echoed).toString()).toBe("ping");
      // What followed the body is still in the destination socket, for its owner to read.
      dest.far.resume();
      const rest = await new Promise<Buffer>((resolve) => dest.far.once("data", resolve));
      expect(rest.toString()).toBe(after.toString());
      for (const s of [client.near, client.far, dest.near, dest.far]) s.destroy();
    });

    it("exits 3 when fd 1 ends before the N bytes, having moved what came", async () => {
      const { client, dest } = await held();
      const child = spawn(h, ["--splice-body", String(2 * MB)], { stdio: [client.far, dest.far, "ignore"] });
      const atClient = collect(client.near);
      dest.near.end(bytes(6));
      expect(await exitOf(child)).toEqual({ code: 3, signal: null });
      client.far.end();
      expect(digest(await atClient)).toBe(digest(bytes(6)));
      for (const s of [client.near, client.far, dest.near, dest.far]) s.destroy();
    });

    it("refuses a count that is not 1 to 2^62 in digits, and any other argument (125)", async () => {
      for (const args of [["--splice-body"], ["--splice-body", "0"], ["--splice-body", "-1"], ["--splice-body", " 5"], ["--splice-body", "5x"], ["--splice-body", String(2n ** 62n + 1n)], ["--splice-body", "5", "6"]]) {
        const r = await run([h, ...args]);
        expect(r.code, args.join(" ")).toBe(125);
        expect(r.stderr, args.join(" ")).toMatch(/--splice-body (needs a byte count from 1 to 2\^62|takes a byte count and no other arguments)/);
      }
      const r = await run([h, "--splice-body", "5"]);
      expect(r.code).toBe(125);
      expect(r.stderr).toMatch(/stream socket on fd 0/);
    });
  });
});
