import { SandboxManager, type SandboxBackend } from "@shellgate/sandbox";
import { describe, expect, it } from "vitest";
import { formatDoctorReport } from "../../../src/commands/doctor/format.js";
import { gatherDoctorReport } from "../../../src/commands/doctor/report.js";
import { loadConfig } from "../../../src/index.js";
import { makeScratch } from "../../helpers.js";

function unavailableBackend(): SandboxBackend {
  return {
    name: "fake",
    platform: process.platform,
    sandboxType: "linux",
    isAvailable: async () => ({ available: false, reason: "bwrap: no user namespaces here" }),
    plan: async () => {
      throw new Error("unreachable");
    },
    transform: async () => {
      throw new Error("unreachable");
    },
  };
}

describe("doctor report", () => {
  it("is not ok, and says why, when the configured sandbox cannot be provided", async () => {
    const s = makeScratch();
    try {
      const config = await loadConfig({ cwd: s.project }, s.env);
      const manager = new SandboxManager();
      manager.register(unavailableBackend());
      const report = await gatherDoctorReport(config, "1.2.3", { manager });
      expect(report.ok).toBe(false);
      expect(report.sandbox.ok).toBe(false);
      expect(report.problems.join("\n")).toMatch(/workspace-write/);
      const text = formatDoctorReport(report);
      expect(text).toContain("fake");
      expect(text).toContain("bwrap: no user namespaces here");
      expect(text).toMatch(/FAIL/);
    } finally {
      s.cleanup();
    }
  });

  it("needs no platform sandbox for danger-full-access", async () => {
    const s = makeScratch();
    try {
      const config = await loadConfig({ cwd: s.project, sandboxMode: "danger-full-access" }, s.env);
      const manager = new SandboxManager();
      manager.register(unavailableBackend());
      const report = await gatherDoctorReport(config, "1.2.3", { manager });
      expect(report.sandbox).toMatchObject({ ok: true, backend: null });
      expect(report.ok).toBe(true);
    } finally {
      s.cleanup();
    }
  });

  it("names every rules file that does not load, and only those", async () => {
    const s = makeScratch();
    try {
      const good = s.write("rules/good.rules", 'prefix_rule(pattern=["ls"], match=["ls -la"])\n');
      const bad = s.write("rules/bad.rules", 'prefix_rule(pattern=["ls"], decision="sometimes")\n');
      const missing = s.write("rules/also-bad.rules", 'prefix_rule(pattern=["cat"], not_match=["cat x"])\n');
      const config = await loadConfig({ cwd: s.project, sandboxMode: "danger-full-access", rules: [good, bad, missing] }, s.env);
      const report = await gatherDoctorReport(config, "1.2.3");
      expect(report.rules.map((r) => [r.file, r.ok])).toEqual([
        [good, true],
        [bad, false],
        [missing, false],
      ]);
      expect(report.rules[1]?.error).toContain("sometimes");
      expect(report.ok).toBe(false);
    } finally {
      s.cleanup();
    }
  });
});
