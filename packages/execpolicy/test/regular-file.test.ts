// Files the policy code reads that a sandboxed command may have replaced with a FIFO, a socket or a
// directory: refused unread, with the path and what was found. The control shows that a plain
// read does not finish on the same FIFO.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AmendError, appendAllowPrefixRule, NotRegularFileError, PolicyReadError, readPolicySources } from "../src/index.js";
import { cacheInputs, cacheKey, readCache } from "../src/policy/cache.js";
import { readRegularFileSync } from "../src/policy/regular-file.js";

const posix = process.platform !== "win32";
let dir: string;
let server: net.Server | undefined;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "execpolicy-regular-"));
});
afterAll(() => {
  server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function mkfifo(p: string): void {
  const r = spawnSync("mkfifo", [p]);
  if (r.status !== 0) throw new Error(`mkfifo ${p}: ${String(r.stderr)}`);
}

describe.skipIf(!posix)(`readRegularFileSync${posix ? "" : " (skipped: no FIFOs or unix sockets on Windows)"}`, () => {
  it("the control: a plain blocking read of a FIFO does not finish within a second", () => {
    const fifo = path.join(dir, "control.fifo");
    mkfifo(fifo);
    const r = spawnSync(process.execPath, ["-e", `require("node:fs").readFileSync(${JSON.stringify(fifo)})`], { timeout: 1000 });
    expect(r.signal).toBe("SIGTERM");
  });

  it("refuses a FIFO, naming the path and the kind", () => {
    const fifo = path.join(dir, "default.rules");
    mkfifo(fifo);
    expect(() => readRegularFileSync(fifo)).toThrow(NotRegularFileError);
    expect(() => readRegularFileSync(fifo)).toThrow(`${fifo}: found a FIFO where a regular file was expected`);
  });

  it("refuses a unix socket, a directory and (when asked) a symbolic link; reads a regular file", async () => {
    const sock = path.join(dir, "s.sock");
    server = net.createServer();
    await new Promise<void>((resolve) => server?.listen(sock, resolve));
    expect(() => readRegularFileSync(sock)).toThrow(/found a socket/);
    expect(() => readRegularFileSync(dir)).toThrow(/found a directory/);
    const file = path.join(dir, "ok.rules");
    fs.writeFileSync(file, "prefix_rule(pattern=[\"ls\"], decision=\"allow\")\n");
    fs.symlinkSync(file, path.join(dir, "link.rules"));
    expect(() => readRegularFileSync(path.join(dir, "link.rules"), { followLinks: false })).toThrow(/found a symbolic link/);
    expect(readRegularFileSync(path.join(dir, "link.rules")).toString()).toContain("prefix_rule");
    expect(() => readRegularFileSync(path.join(dir, "missing.rules"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });

  it("readPolicySources refuses a FIFO rules file with a PolicyReadError that says why", async () => {
    const fifo = path.join(dir, "planted.rules");
    mkfifo(fifo);
    const error = await readPolicySources([fifo]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyReadError);
    expect((error as PolicyReadError).message).toBe(`failed to read policy at ${fifo}: it is a FIFO, not a regular file; refusing to read it`);
    expect((error as PolicyReadError).cause).toBeInstanceOf(NotRegularFileError);
  });

  it("a FIFO in a policy cache entry's place is a miss, not a wait", async () => {
    const cacheDir = path.join(dir, "cache");
    fs.mkdirSync(cacheDir);
    const inputs = cacheInputs([{ path: "/x.rules", source: "" }]);
    const entry = path.join(cacheDir, `${cacheKey(inputs)}.json`);
    mkfifo(entry);
    expect(await readCache(cacheDir, inputs)).toBeUndefined();
  });

  it("amending a FIFO rules file is refused, and a FIFO lock file fails the lock instead of hanging", async () => {
    const fifo = path.join(dir, "amend.rules");
    mkfifo(fifo);
    await expect(appendAllowPrefixRule(fifo, ["ls"])).rejects.toThrow(AmendError);
    await expect(appendAllowPrefixRule(fifo, ["ls"])).rejects.toThrow(/not a regular file/);
    const rules = path.join(dir, "locked.rules");
    fs.writeFileSync(rules, "");
    mkfifo(`${rules}.lock`);
    await expect(appendAllowPrefixRule(rules, ["ls"], { timeoutMs: 60_000 })).rejects.toThrow(/found a FIFO/);
    expect(fs.readFileSync(rules, "utf8")).toBe("");
  });
});
