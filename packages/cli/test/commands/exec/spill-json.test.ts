import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScratch, runBin, type Scratch } from "../../helpers.js";

let s: Scratch;
beforeAll(() => {
  s = makeScratch();
});
afterAll(() => s.cleanup());

/** `seq 1 2000000` as the real program prints it outside shellgate. */
const SEQ = execFileSync("seq", ["1", "2000000"], { maxBuffer: 64 * 1024 * 1024 });

interface JsonResult {
  exitCode: number;
  stdout: string;
  truncated: boolean;
  fullOutputFiles?: { stdout?: string; stderr?: string };
}

describe("shellgate exec --json saves the whole output", () => {
  it("`seq 1 2000000` in the sandbox: the saved file equals seq's own output byte for byte", async () => {
    const r = await runBin(["exec", "--json", "--", "seq", "1", "2000000"], { env: s.env, cwd: s.project });
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as JsonResult;
    expect(result.truncated).toBe(true);
    const file = result.fullOutputFiles?.stdout as string;
    expect(file).toBeDefined();
    try {
      const saved = readFileSync(file);
      expect(saved.byteLength).toBe(SEQ.byteLength);
      expect(saved.equals(SEQ)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // The JSON itself keeps the head and the tail, and says where the rest is.
      expect(result.stdout.startsWith("1\n2\n3\n")).toBe(true);
      expect(result.stdout.endsWith("1999999\n2000000\n")).toBe(true);
      expect(result.stdout).toContain(`the whole stdout (${SEQ.byteLength} bytes) is in ${file}`);
    } finally {
      rmSync(path.dirname(file), { recursive: true, force: true });
    }
  }, 180_000);
});
