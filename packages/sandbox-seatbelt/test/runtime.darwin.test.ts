// What only macOS can show: the profile run by the real /usr/bin/sandbox-exec. Skipped elsewhere
// with the reason; on macOS it runs the shared conformance kit and the escapes the evaluator cannot
// rule out on its own (hard links, whose Seatbelt operation it only assumes).
import { execFile, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { parseSandboxPolicy } from "@shellgate/sandbox";
import { CONFORMANCE_CASES, runConformanceCase, skipReason } from "@shellgate/sandbox/conformance";
import { afterAll, describe, expect, it } from "vitest";
import { createSeatbeltSandboxBackend, seatbeltAvailability } from "../src/index.js";
import { makeLayout, removeLayout, SEATBELT_LACKS } from "./support.js";

const availability = seatbeltAvailability(process.platform, fs.existsSync("/usr/bin/sandbox-exec"));
const skip = availability.available ? undefined : availability.reason;
const title = (t: string) => `${t}${skip ? ` (skipped: ${skip})` : ""}`;

describe.skipIf(skip !== undefined)(title("conformance kit through the real sandbox-exec"), () => {
  const backend = createSeatbeltSandboxBackend();
  for (const c of CONFORMANCE_CASES) {
    const lacking = skipReason(c, { lacks: SEATBELT_LACKS });
    it.skipIf(lacking !== undefined)(`${c.expect === "blocked" ? "blocks" : "allows"} ${c.title}${lacking ? ` (skipped: ${lacking})` : ""}`, async () => {
      const result = await runConformanceCase(backend, c);
      expect(result.status, result.reason).toBe("passed");
      expect(result.control?.verdict === "reached" || result.control?.hostEffect === true).toBe(true);
    });
  }
});

describe.skipIf(skip !== undefined)(title("escapes a path-based profile must also hold on macOS"), () => {
  const L = skip ? undefined : makeLayout();
  afterAll(() => L && removeLayout(L));
  const run = async (script: string, policy = parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true, deniedReadPaths: [L!.deniedFile] })) => {
    const exec = await createSeatbeltSandboxBackend().transform({ argv: [process.execPath, "-e", script], cwd: L!.workspace, env: { PATH: "/usr/bin:/bin" } }, policy, { sandboxPolicyCwd: L!.workspace });
    const [file, ...args] = exec.argv;
    return spawnSync(file as string, args, { cwd: exec.cwd, env: exec.env as NodeJS.ProcessEnv, encoding: "utf8" });
  };

  it("a hard link of .git/HEAD into the workspace is refused (else writing it would change .git)", async () => {
    const r = await run(`require("fs").linkSync(".git/HEAD", "head-link")`);
    expect(r.status, r.stderr).not.toBe(0);
    expect(fs.existsSync(path.join(L!.workspace, "head-link"))).toBe(false);
    // control: unsandboxed, the link is made
    fs.linkSync(path.join(L!.workspace, ".git", "HEAD"), path.join(L!.base, "control-link"));
  });

  it("a hard link of a denied file into the workspace is refused (else it could be read there)", async () => {
    const r = await run(`require("fs").linkSync(${JSON.stringify(L!.deniedFile)}, "denied-link")`);
    expect(r.status, r.stderr).not.toBe(0);
    expect(fs.existsSync(path.join(L!.workspace, "denied-link"))).toBe(false);
  });

  it("the command sees CODEX_SANDBOX=seatbelt and the network marker", async () => {
    const r = await run(`process.stdout.write(process.env.CODEX_SANDBOX + " " + process.env.CODEX_SANDBOX_NETWORK_DISABLED)`);
    expect(r.stdout).toBe("seatbelt 1");
  });
});

describe.skipIf(skip !== undefined)(title("proxy-routed network through the real sandbox-exec"), () => {
  const L = skip ? undefined : makeLayout();
  const servers: net.Server[] = [];
  const listen = () =>
    new Promise<number>((resolve, reject) => {
      const server = net.createServer((socket) => socket.end("hello"));
      servers.push(server);
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
    });
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    if (L) removeLayout(L);
  });

  // Each probe prints "ok" or the error code; the script runs inside the sandbox.
  const probes = `
    const net = require("net"), dns = require("dns"), dgram = require("dgram");
    const tcp = (host, port) => new Promise((r) => { const s = net.connect({ host, port }); s.setTimeout(3000, () => { s.destroy(); r("timeout"); }); s.on("connect", () => { s.destroy(); r("ok"); }); s.on("error", (e) => r(e.code)); });
    const lookup = () => new Promise((r) => dns.lookup("example.com", (e) => r(e ? e.code : "ok")));
    const udp53 = () => new Promise((r) => { const s = dgram.createSocket("udp4"); s.on("error", (e) => { s.close(); r(e.code); }); s.send(Buffer.from("x"), 53, "127.0.0.1", (e) => { s.close(); r(e ? e.code : "ok"); }); });
    (async () => {
      const [http, socks, other] = process.argv.slice(-3).map(Number);
      const out = { http: await tcp("127.0.0.1", http), socks: await tcp("127.0.0.1", socks), other: await tcp("127.0.0.1", other),
        remote: await tcp("1.1.1.1", 443), dns: await lookup(), udp53: await udp53(), env: process.env.HTTPS_PROXY + " " + process.env.ALL_PROXY };
      process.stdout.write(JSON.stringify(out));
    })();`;

  it("reaches the two proxy ports and nothing else: not another loopback port, not a remote address, not DNS", async () => {
    const [httpPort, socksPort, otherPort] = [await listen(), await listen(), await listen()];
    const exec = await createSeatbeltSandboxBackend().transform(
      { argv: [process.execPath, "-e", probes, "--", String(httpPort), String(socksPort), String(otherPort)], cwd: L!.workspace, env: { PATH: "/usr/bin:/bin" } },
      parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true }),
      { sandboxPolicyCwd: L!.workspace, networkProxy: { transport: "loopback-tcp", httpPort, socksPort } },
    );
    expect(exec.networkMode).toBe("proxy");
    const [file, ...args] = exec.argv;
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(file as string, args, { cwd: exec.cwd, env: exec.env as NodeJS.ProcessEnv, encoding: "utf8", timeout: 30_000 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
      ),
    );
    const r = JSON.parse(stdout) as Record<string, string>;
    expect(r).toMatchObject({ http: "ok", socks: "ok", env: `http://127.0.0.1:${httpPort} socks5h://127.0.0.1:${socksPort}` });
    // EPERM is Seatbelt's answer; a machine without internet would answer the remote one otherwise
    expect(r["other"]).toBe("EPERM");
    expect(r["remote"]).toBe("EPERM");
    expect(r["dns"]).not.toBe("ok");
    expect(r["udp53"]).not.toBe("ok");
    // control: unsandboxed, the other loopback port answers
    const control = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: "127.0.0.1", port: otherPort }, () => { s.destroy(); resolve(true); });
      s.on("error", () => resolve(false));
    });
    expect(control).toBe(true);
  });
});

it.skipIf(skip === undefined)(`the runtime tests are skipped here: ${skip ?? ""}`, () => {
  expect(process.platform === "darwin" && fs.existsSync("/usr/bin/sandbox-exec")).toBe(false);
});
