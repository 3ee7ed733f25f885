// The conformance kit judged against backends whose behaviour is known: one that confines nothing
// (every escape must be caught), one that refuses everything (every must-work case must fail).
import { describe, expect, it } from "vitest";
import { SandboxTransformError, type CommandSpec, type ExecEnv, type SandboxBackend } from "../src/index.js";
import { CONFORMANCE_CASES, runConformance, runConformanceCase, skipReason } from "../src/conformance/index.js";

function fake(name: string, transform: (spec: CommandSpec) => Promise<ExecEnv>): SandboxBackend {
  return {
    name,
    platform: process.platform,
    sandboxType: "fake",
    isAvailable: async () => ({ available: true, isolation: "fake" }),
    plan: async (spec) => ({ backend: name, sandboxType: "fake", isolation: "fake", argv: [...spec.argv], cwd: spec.cwd, env: {}, unsetEnv: [], plan: {} }),
    transform,
  };
}

/** Claims to sandbox, runs the command as it is: what the kit exists to catch. */
const leaky = fake("leaky", async (spec) => ({ argv: [...spec.argv], cwd: spec.cwd, env: { ...spec.env }, sandboxType: "fake", isolation: "none really" }));
/** Refuses every command. */
const refusing = fake("refusing", async () => {
  throw new SandboxTransformError("refusing", "refuses everything");
});

describe("conformance kit", () => {
  it("has stable, unique ids and both kinds of case", () => {
    const ids = CONFORMANCE_CASES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(CONFORMANCE_CASES.some((c) => c.expect === "allowed")).toBe(true);
    expect(CONFORMANCE_CASES.filter((c) => c.expect === "blocked").length).toBeGreaterThanOrEqual(10);
  });

  it("catches every escape of a backend that confines nothing, after a control that got through", async () => {
    const report = await runConformance(leaky, { skip: process.platform === "win32" ? { "host-unix-socket": "no unix sockets" } : {} });
    expect(report.passed).toBe(false);
    for (const r of report.results) {
      if (r.status === "skipped") continue;
      if (r.expect === "blocked") {
        expect(r.status, `${r.id}: ${r.reason}`).toBe("failed");
        expect(r.reason, r.id).toMatch(/^ESCAPE: /);
      } else {
        expect(r.status, `${r.id}: ${r.reason}`).toBe("passed");
      }
    }
  }, 120_000);

  it("fails the must-work cases of a backend that refuses everything, and counts its refusals as blocks", async () => {
    const allowed = CONFORMANCE_CASES.filter((c) => c.expect === "allowed");
    for (const c of allowed) {
      const r = await runConformanceCase(refusing, c);
      expect(r.status, c.id).toBe("failed");
      expect(r.reason).toContain("refuses everything");
    }
    const write = CONFORMANCE_CASES.find((c) => c.id === "write-outside-roots")!;
    expect(await runConformanceCase(refusing, write)).toMatchObject({ status: "passed", reason: expect.stringContaining("refused to run") });
  }, 60_000);

  it("skips what a backend says it lacks, and everything for a backend of another platform", async () => {
    const carve = CONFORMANCE_CASES.find((c) => c.id === "write-git-hooks")!;
    expect(skipReason(carve, { lacks: ["carve-outs"] })).toBe("the backend lacks carve-outs");
    expect(skipReason(carve, { skip: { "write-git-hooks": "not yet" } })).toBe("not yet");
    expect(skipReason(carve, {})).toBeUndefined();
    const other = { ...leaky, name: "elsewhere", platform: (process.platform === "darwin" ? "win32" : "darwin") as NodeJS.Platform };
    const report = await runConformance(other);
    expect(report.available).toBe(false);
    expect(report.passed).toBe(true);
    expect(report.results.every((r) => r.status === "skipped" && r.reason.startsWith("backend unavailable: built for"))).toBe(true);
  });
});
