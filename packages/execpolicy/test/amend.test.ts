import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AmendError, appendAllowPrefixRule, formatAllowPrefixRule, InvalidArgumentError, loadPolicy, parsePolicy } from "../src/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "execpolicy-amend-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("appendAllowPrefixRule", () => {
  it("creates the rules directory and writes exactly the line plus a newline", async () => {
    const file = join(dir, "fresh", "rules", "default.rules");
    await mkdir(join(dir, "fresh"));
    expect(await appendAllowPrefixRule(file, ["echo", "Hello, world!"])).toEqual({ added: true });
    expect(await readFile(file, "utf8")).toBe('prefix_rule(pattern=["echo", "Hello, world!"], decision="allow")\n');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("skips an identical line, fixes a missing final newline, and keeps other content", async () => {
    const file = join(dir, "existing.rules");
    await writeFile(file, "# mine\nprefix_rule(pattern=[\"ls\"])");
    expect(await appendAllowPrefixRule(file, ["python3"])).toEqual({ added: true });
    expect(await appendAllowPrefixRule(file, ["python3"])).toEqual({ added: false });
    expect(await readFile(file, "utf8")).toBe('# mine\nprefix_rule(pattern=["ls"])\nprefix_rule(pattern=["python3"], decision="allow")\n');
    expect((await loadPolicy([file])).evaluate(["python3", "x"]).decision).toBe("allow");
  });

  it("fails with typed errors for bad input and an impossible directory", async () => {
    await expect(appendAllowPrefixRule(join(dir, "x.rules"), [])).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(appendAllowPrefixRule(join(dir, "x.rules"), ["a", 1 as unknown as string])).rejects.toThrow(/prefix\[1\]/);
    await expect(appendAllowPrefixRule(join(dir, "no", "such", "x.rules"), ["a"])).rejects.toMatchObject({ constructor: AmendError, step: "mkdir" });
  });

  it("breaks a stale lock left by a dead process", async () => {
    const file = join(dir, "stale.rules");
    await writeFile(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import("node:os")).hostname(), time: Date.now() }));
    expect(await appendAllowPrefixRule(file, ["a"], { timeoutMs: 5000 })).toEqual({ added: true });
  });

  it("recovers when a breaker died holding the .break guard (old guard and dead holder)", async () => {
    const file = join(dir, "guard.rules");
    const { hostname } = await import("node:os");
    const { utimes } = await import("node:fs/promises");
    await writeFile(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + 4321, host: hostname(), time: Date.now() }));
    await writeFile(`${file}.lock.break`, "999999");
    const old = new Date(Date.now() - 60_000);
    await utimes(`${file}.lock.break`, old, old);
    expect(await appendAllowPrefixRule(file, ["b"], { timeoutMs: 5000, staleMs: 30_000 })).toEqual({ added: true });
    expect(existsSync(`${file}.lock`) || existsSync(`${file}.lock.break`)).toBe(false);
  });

  it("times out with AMEND_LOCK_TIMEOUT while a live holder keeps the lock", async () => {
    const file = join(dir, "held.rules");
    await writeFile(`${file}.lock`, JSON.stringify({ pid: process.pid, host: (await import("node:os")).hostname(), time: Date.now() }));
    await expect(appendAllowPrefixRule(file, ["a"], { timeoutMs: 200 })).rejects.toMatchObject({ code: "AMEND_LOCK_TIMEOUT" });
    await rm(`${file}.lock`);
  });

  it("quotes tokens so the file reads back to exactly the same tokens (property)", () => {
    const token = fc.oneof(
      fc.string({ unit: "binary", maxLength: 12 }),
      fc.string({ unit: fc.constantFrom("\"", "\\", "\n", "\r", "\t", "\u0000", "\u001f", "\u007f", "\u2028", "é", "😀", "'", "a", " ", "{", "}"), maxLength: 12 }),
    );
    fc.assert(fc.property(fc.array(token, { minLength: 1, maxLength: 6 }), (prefix) => {
      const line = formatAllowPrefixRule(prefix);
      expect(line).not.toMatch(/[\n\r]/);
      const p = parsePolicy([{ path: "amend.rules", source: `${line}\n` }]);
      expect(p.rules).toHaveLength(1);
      const r = p.rules[0]!;
      expect([r.program, ...r.rest.map((a) => a[0])]).toEqual(prefix);
      expect(p.evaluate(prefix).decision).toBe("allow");
    }), { numRuns: 300 });
  });

  const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
  it.skipIf(!existsSync(dist))("16 processes amending one file at once lose and duplicate nothing (needs the built dist)", async () => {
    const file = join(dir, "concurrent", "default.rules");
    await mkdir(join(dir, "concurrent"));
    const worker = fileURLToPath(new URL("./fixtures/amend-worker.mjs", import.meta.url));
    const perWorker = 5;
    const results = await Promise.all(Array.from({ length: 16 }, (_, id) => new Promise<boolean[]>((resolve, reject) => {
      const child = fork(worker, [file, String(id), String(perWorker)], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
      let got: boolean[] | undefined;
      let err = "";
      child.stderr?.on("data", (d) => (err += d));
      child.on("message", (m) => (got = m as boolean[]));
      child.on("exit", (code) => (code === 0 && got ? resolve(got) : reject(new Error(`worker ${id} exited ${code}: ${err}`))));
    })));
    const lines = (await readFile(file, "utf8")).split("\n");
    expect(lines.pop()).toBe("");
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines).toHaveLength(16 * perWorker + 1);
    for (let id = 0; id < 16; id++) for (let i = 0; i < perWorker; i++) {
      expect(lines).toContain(formatAllowPrefixRule(["worker", String(id), `n${i}`, 'quote"back\\slash']));
    }
    expect(results.flat().filter((added) => added)).toHaveLength(16 * perWorker + 1);
    expect((await loadPolicy([file])).rules).toHaveLength(16 * perWorker + 1);
  }, 60_000);
});
