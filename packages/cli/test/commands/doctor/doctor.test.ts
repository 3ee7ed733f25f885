import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DoctorReport } from "../../../src/commands/doctor/report.js";
import { makeScratch, runBin, type Scratch, realSandboxSkip } from "../../helpers.js";

let s: Scratch;
beforeAll(() => {
  s = makeScratch();
});
afterAll(() => s.cleanup());

const skip = await realSandboxSkip();
const doctor = (...args: string[]) => runBin(["doctor", ...args], { env: s.env, cwd: s.project });

describe("shellgate doctor (built bin)", () => {
  it.skipIf(skip !== undefined)("reports shell, the Linux backend and the configured sandbox as JSON (needs bubblewrap)", async () => {
    const ok = s.write("xdg/shellgate/rules/default.rules", 'prefix_rule(pattern=["ls"], match=["ls -la"])\n');
    const r = await doctor("--json");
    const report = JSON.parse(r.stdout) as DoctorReport;
    expect(r.code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.shell).toMatchObject({ ok: true, type: "bash" });
    expect(report.backends.map((b) => b.name)).toContain("linux");
    expect(report.sandbox).toMatchObject({ ok: true, backend: "linux" });
    expect(report.sandboxPolicy.mode).toBe("workspace-write");
    expect(report.approvalPolicy).toBe("on-request");
    expect(report.rules).toEqual([{ file: ok, origin: "user", ok: true }]);
  });

  it("fails with the rendered diagnostic when a rules file does not parse", async () => {
    const bad = s.write("bad.rules", 'prefix_rule(pattern=["ls"], decision="sometimes")\n');
    const r = await doctor("--json", "--rules", bad, "--sandbox", "danger-full-access");
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as DoctorReport;
    const entry = report.rules.find((x) => x.file === bad);
    expect(entry?.ok).toBe(false);
    expect(entry?.error).toContain("sometimes");
    expect(report.sandbox).toMatchObject({ ok: true, backend: null });
  });

  it("prints a readable report without --json", async () => {
    const r = await doctor("--sandbox", "danger-full-access");
    expect(r.stdout).toContain("sandbox backends");
    expect(r.stdout).toContain("rules files");
    expect(r.stdout).toContain("danger-full-access");
  });

  it("exits 2 on a bad flag", async () => {
    const r = await doctor("--sandbox", "none");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--sandbox/);
  });
});
