import { describe, expect, it } from "vitest";
import { InvalidProcessSpecError, MAX_TIMEOUT_MS, spawnPipe, spawnPty, SpawnError } from "../src/index.js";
import { cwd, env } from "./helpers.js";

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidProcessSpecError);
    expect((e as InvalidProcessSpecError).code).toBe("PTY_INVALID_SPEC");
    return (e as InvalidProcessSpecError).field;
  }
  throw new Error("did not throw");
}

describe("spec validation", () => {
  it("names the offending field", () => {
    expect(fieldOf(() => spawnPipe({ argv: [], cwd, env }))).toBe("argv");
    expect(fieldOf(() => spawnPipe({ argv: ["a\0b"], cwd, env }))).toBe("argv.0");
    expect(fieldOf(() => spawnPipe({ argv: ["true"], cwd: "relative", env }))).toBe("cwd");
    expect(fieldOf(() => spawnPipe({ argv: ["true"], cwd, env: { "A=B": "x" } }))).toBe("env.A=B");
    expect(fieldOf(() => spawnPipe({ argv: ["true"], cwd, env, timeoutMs: -1 }))).toBe("timeoutMs");
    expect(fieldOf(() => spawnPipe({ argv: ["true"], cwd, env, outputCapBytes: 1 }))).toBe("outputCapBytes");
    expect(fieldOf(() => spawnPipe({ argv: ["true"], cwd, env, stdin: "inherit" as never }))).toBe("stdin");
    expect(fieldOf(() => spawnPty({ argv: ["true"], cwd, env, cols: 0 }))).toBe("cols");
  });

  it("reports a missing program or cwd as a SpawnError saying which", () => {
    expect(() => spawnPipe({ argv: ["definitely-not-a-program-xyz"], cwd, env })).toThrow(/not found on PATH/);
    expect(() => spawnPty({ argv: ["/nonexistent/prog"], cwd, env })).toThrow(SpawnError);
    expect(() => spawnPipe({ argv: ["true"], cwd: "/nonexistent-dir-xyz", env })).toThrow(/working directory/);
  });
});

describe("timeouts beyond what a timer holds", () => {
  // Node fires a timer above 2^31-1 ms at once: uncapped, these commands would be killed as they start.
  it.each([["a pipe", spawnPipe], ["a PTY", spawnPty]] as const)("%s with a timeout of 2^40 ms runs to its own end (control: a short timeout kills it)", async (_kind, spawn) => {
    const long = await spawn({ argv: ["sh", "-c", "sleep 0.3; echo done"], cwd, env, timeoutMs: 2 ** 40 }).result();
    expect(long).toMatchObject({ exitCode: 0, timedOut: false });
    expect(long.aggregated).toContain("done");
    expect(MAX_TIMEOUT_MS).toBe(2_147_483_647);
    const short = await spawn({ argv: ["sh", "-c", "sleep 5; echo done"], cwd, env, timeoutMs: 100 }).result();
    expect(short.timedOut).toBe(true);
  });
});
