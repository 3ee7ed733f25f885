// The native helper on its own: argument handling, fail-closed exits, descriptors, reaping.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { locateHelper } from "../src/index.js";
import { run } from "./support.js";

const helper = locateHelper();
const skip = process.platform !== "linux" ? "not Linux" : helper ? undefined : "helper not built (run the package build)";

describe.skipIf(skip !== undefined)(`shellgate-sandbox-helper${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const h = helper as string;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-helper-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("fails closed (125) on bad arguments, naming the problem", async () => {
    for (const args of [["--", "true"], ["--net", "maybe", "--", "true"], ["--net", "off"], ["--net", "off", "--bogus", "--", "true"], ["--net", "off", "--rw", "/tmp", "--", "true"]]) {
      const r = await run([h, ...args]);
      expect(r.code).toBe(125);
      expect(r.stderr).toMatch(/shellgate-sandbox-helper/);
    }
    const rel = await run([h, "--net", "off", "--landlock", "--rw", "relative", "--", "true"]);
    expect(rel.code).toBe(125);
    expect(rel.stderr).toMatch(/absolute/);
    // where special files may be made: a directory without a Landlock mode, a second mode for the
    // Landlock layer, an unknown mode, a relative directory
    const special: Array<[string[], RegExp]> = [
      [["--special-dir", "/tmp"], /--special-dir needs --landlock or --special-files landlock/],
      [["--special-files", "refuse", "--special-dir", "/tmp"], /--special-dir needs/],
      [["--landlock", "--special-files", "landlock"], /--special-files is for bubblewrap runs/],
      [["--special-files", "sometimes"], /usage/],
      [["--special-files", "landlock", "--special-dir", "tmp"], /absolute/],
    ];
    for (const [args, message] of special) {
      const r = await run([h, "--net", "off", ...args, "--", "true"]);
      expect(r.code, args.join(" ")).toBe(125);
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
  });

  it("exits 127 for a missing command and 126 for a non-executable one", async () => {
    const missing = await run([h, "--net", "off", "--", "no-such-command-xyz"]);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toBe("no-such-command-xyz: command not found\n");
    const file = path.join(dir, "not-exec");
    fs.writeFileSync(file, "#!/bin/sh\n");
    fs.chmodSync(file, 0o644);
    expect((await run([h, "--net", "off", "--", file])).code).toBe(126);
  });

  it("closes inherited descriptors above 2", async () => {
    const list = (argv: string[]) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(argv[0] as string, argv.slice(1), { stdio: ["ignore", "pipe", "ignore", "pipe", "pipe"] });
        let out = "";
        child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
        child.on("error", reject);
        child.on("close", () => resolve(out.trim().split(/\s+/).sort().join(" ")));
      });
    expect(await list(["ls", "/proc/self/fd"])).toContain("4");
    expect(await list([h, "--net", "on", "--", "ls", "/proc/self/fd"])).toBe("0 1 2 3");
  });

  it("passes exit codes and signals through, also as a reaper", async () => {
    expect((await run([h, "--net", "off", "--", "sh", "-c", "exit 9"])).code).toBe(9);
    expect((await run([h, "--net", "off", "--reap", "--", "sh", "-c", "exit 9"])).code).toBe(9);
    const killed = await run([h, "--net", "off", "--reap", "--", "sh", "-c", "kill -TERM $$"]);
    expect(killed.signal).toBe("SIGTERM");
  });

  it("forwards a termination signal to the command when reaping", async () => {
    const child = spawn(h, ["--net", "off", "--reap", "--", "sleep", "30"], { stdio: "ignore" });
    await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGTERM");
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on("close", (c, s) => resolve([c, s])));
    expect(code === null ? signal : code).toBe("SIGTERM");
  });

  it("reports the Landlock ABI and a verified seccomp filter with --probe", async () => {
    const r = await run([h, "--probe"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^landlock_abi=\d+\nseccomp=ok\n$/);
  });
});
