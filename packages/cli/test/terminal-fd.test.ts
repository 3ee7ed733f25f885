import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isatty } from "node:tty";
import { fileURLToPath } from "node:url";
import { spawnPty } from "@shellgate/pty";
import { afterAll, describe, expect, it } from "vitest";
import { isTerminal } from "../src/terminal-fd.js";

// The built module, run in a child whose descriptors 0–2 are what each test gives it. It prints
// isTerminal's answers and, as the control, node:tty's for the same descriptors.
const MODULE = fileURLToPath(new URL("../dist/terminal-fd.js", import.meta.url));
const PROBE = `import { writeSync } from "node:fs"; import { isatty } from "node:tty";
const { isTerminal } = await import(${JSON.stringify(MODULE)});
const fds = [0, 1, 2];
writeSync(3, JSON.stringify({ ours: fds.map(isTerminal), tty: fds.map((fd) => isatty(fd)) }));`;

const dir = mkdtempSync(path.join(os.tmpdir(), "sg-terminal-fd-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run the probe with `stdio` for 0–2 and a pipe on fd 3 for its answer. */
function probe(stdio: Array<"pipe" | "ignore" | number>): { ours: boolean[]; tty: boolean[] } {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", PROBE], { stdio: [...stdio, "pipe"], encoding: "utf8" });
  expect(r.status, String(r.stderr ?? "")).toBe(0);
  return JSON.parse(String(r.output[3]));
}

// Skipped on Windows: there isTerminal is node:tty's own answer, and /dev/null, pipes made this way
// and a PTY from node-pty's POSIX path are what the fstat shortcut is about.
describe.skipIf(process.platform === "win32")("isTerminal (POSIX: the fstat shortcut against node:tty)", () => {
  it("is false for pipes, as node:tty says", () => {
    const r = probe(["pipe", "pipe", "pipe"]);
    expect(r.tty).toEqual([false, false, false]);
    expect(r.ours).toEqual(r.tty);
  });

  it("is false for /dev/null (an ignored stdin), a character device that is no terminal", () => {
    const r = probe(["ignore", "ignore", "ignore"]);
    expect(r.tty).toEqual([false, false, false]);
    expect(r.ours).toEqual(r.tty);
  });

  it("is false for a regular file and for a closed descriptor", () => {
    const file = path.join(dir, "plain.txt");
    const fd = openSync(file, "w");
    try {
      expect(isatty(fd)).toBe(false);
      expect(isTerminal(fd)).toBe(false);
    } finally {
      closeSync(fd);
    }
    expect(isTerminal(fd)).toBe(isatty(fd));
    expect(isTerminal(fd)).toBe(false);
  });

  it("is true on a real pseudo-terminal, as node:tty says", async () => {
    const script = `import { isatty } from "node:tty"; const { isTerminal } = await import(${JSON.stringify(MODULE)});
console.log("ANSWER " + JSON.stringify({ ours: [0, 1, 2].map(isTerminal), tty: [0, 1, 2].map((fd) => isatty(fd)) }));`;
    const handle = spawnPty({ argv: [process.execPath, "--input-type=module", "-e", script], cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeoutMs: 20_000 });
    let screen = "";
    handle.onOutput((chunk) => {
      screen += Buffer.from(chunk.data).toString("utf8");
    });
    const result = await handle.result();
    expect(result.exitCode).toBe(0);
    const answer = /ANSWER (\{.*\})/.exec(screen);
    expect(answer, screen).not.toBeNull();
    const r = JSON.parse(answer![1]!);
    expect(r.tty).toEqual([true, true, true]);
    expect(r.ours).toEqual(r.tty);
  });
});
