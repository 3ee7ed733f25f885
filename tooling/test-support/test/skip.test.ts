// skipUnless and failInCi as a test file sees them: a real vitest run of a fixture, with and without CI=true.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { skipTitle, whyBwrapCannotRun } from "../src/index.js";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
// The workspace root's vitest (its package exports no path to the bin itself).
const vitest = fileURLToPath(new URL("../../../node_modules/vitest/vitest.mjs", import.meta.url));

function runFixture(env: Record<string, string>): { code: number | null; output: string } {
  const r = spawnSync(process.execPath, [vitest, "run", "--reporter=verbose", "--configLoader", "runner"], {
    cwd: fixtures,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", NO_COLOR: "1", ...env },
    encoding: "utf8",
  });
  return { code: r.status, output: r.stdout + r.stderr };
}

describe("skipUnless", () => {
  it("skips with the reason in the title, and runs under the plain title when nothing is missing", () => {
    const skipped = runFixture({ FIXTURE_REASON: "no frobnicator here" });
    expect(skipped.code, skipped.output).toBe(0);
    expect(skipped.output).toContain("needs the missing tool (skipped: no frobnicator here)");
    expect(skipped.output).toMatch(/1 skipped/);
    const ran = runFixture({});
    expect(ran.code, ran.output).toBe(0);
    expect(ran.output).toMatch(/needs the missing tool > runs/);
    expect(ran.output).not.toContain("skipped:");
  });

  it("under CI=true a missing CI dependency is a failing test naming the reason, not a skip", () => {
    const r = runFixture({ FIXTURE_REASON: "no frobnicator here", CI: "true" });
    expect(r.code, r.output).toBe(1);
    expect(r.output).toContain("what these tests need is here (CI=true)");
    expect(r.output).toContain("CI=true, but tests of this file cannot run: no frobnicator here");
  });

  it("under CI=true with nothing missing there is nothing to fail", () => {
    const r = runFixture({ CI: "true" });
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain("(CI=true)");
  });

  it("skipTitle adds the reason only when there is one", () => {
    expect(skipTitle("t", undefined)).toBe("t");
    expect(skipTitle("t", "why")).toBe("t (skipped: why)");
  });
});

describe("whyBwrapCannotRun", () => {
  it("agrees with bwrap itself", () => {
    const r = spawnSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "true"]);
    expect(whyBwrapCannotRun() === undefined).toBe(process.platform === "linux" && r.status === 0);
  });
});
