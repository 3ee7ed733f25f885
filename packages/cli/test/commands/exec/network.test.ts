// `shellgate exec --allow-domain` through the built bin and the real Linux sandbox: a loopback server
// stands in for the internet (granted by its literal address, which an explicit grant may reach).
import { execFile } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScratch, realSandboxSkip, runBin, type Scratch } from "../../helpers.js";

const skip = await realSandboxSkip();
const execFileAsync = promisify(execFile);
let s: Scratch;
let server: http.Server;
let port = 0;

beforeAll(async () => {
  s = makeScratch();
  server = http.createServer((req, res) => res.end(`pong ${req.headers.host ?? ""}\n`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  s.cleanup();
});

// `--noproxy ''`: curl would otherwise go direct to 127.0.0.1 (NO_PROXY keeps loopback direct).
const viaProxy = (host: string) => `curl -sS --max-time 10 --noproxy '' http://${host}:${port}/`;
const exec = (...args: string[]) => runBin(["exec", "--no-default-rules", "--approval-policy", "never", ...args], { env: s.env, cwd: s.project });

describe.skipIf(skip !== undefined)(`shellgate exec --allow-domain (real sandbox${skip ? `; skipped: ${skip}` : ""})`, () => {
  it("reaches a granted host through the proxy; without the grant the same command has no network", async () => {
    const granted = await exec("--allow-domain", "127.0.0.1", "--", "bash", "-c", viaProxy("127.0.0.1"));
    expect(granted.stdout).toContain(`pong 127.0.0.1:${port}`);
    expect(granted.code).toBe(0);
    const none = await exec("--", "bash", "-c", viaProxy("127.0.0.1"));
    expect(none.stdout).not.toContain("pong");
    expect(none.code).not.toBe(0);
  });

  it("a host that is not granted gets the proxy's 403 and one stderr line with the flag that grants it", async () => {
    const r = await exec("--allow-domain", "127.0.0.1", "--", "bash", "-c", `${viaProxy("localhost")}; true`);
    expect(r.stdout).toContain(`network access to localhost:${port} refused`);
    expect(r.stderr).toContain(`shellgate exec: network: refused localhost:${port}: no rule or grant allows this host; to allow it: re-run with --allow-domain localhost`);
    const json = await exec("--json", "--allow-domain", "127.0.0.1", "--", "bash", "-c", `${viaProxy("localhost")}; true`);
    expect(JSON.parse(json.stdout).networkRefusals).toEqual([
      { host: "localhost", port, reason: "no rule or grant allows this host", hint: "re-run with --allow-domain localhost (or add it to [network] allow in your config)" },
    ]);
  });

  it("a direct connection bypassing the proxy fails even with the host granted; unsandboxed it works (control)", async () => {
    const direct = `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${port}/`;
    expect((await execFileAsync("bash", ["-c", direct])).stdout).toContain("pong");
    const r = await exec("--allow-domain", "127.0.0.1", "--", "bash", "-c", direct);
    expect(r.stdout).not.toContain("pong");
    expect(r.code).not.toBe(0);
  });

  it("a bad --allow-domain is a usage error naming the value (exit 125: exec keeps 2 for the command's own)", async () => {
    const r = await exec("--allow-domain", "*.example.com", "--", "true");
    expect(r.code).toBe(125);
    expect(r.stderr).toContain('--allow-domain "*.example.com": a host must be a specific host; wildcards are not allowed');
  });
});
