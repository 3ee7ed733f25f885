// The conformance kit itself, case by case, as evaluator queries: the kit's own layout (from
// openLayout, with its host listeners), the kit's own policy per case (casePolicy), the kit's
// expectation. The real runs of the same cases are in runtime.darwin.test.ts (macOS only).
import { CONFORMANCE_CASES, casePolicy, openLayout, skipReason } from "@shellgate/sandbox/conformance";
import { describe, expect, it } from "vitest";
import { CASE_STEPS, FULL_ACCESS, plannedProfile, runSteps, SEATBELT_LACKS, STARTUP_STEPS, type Layout } from "./support.js";

describe("conformance kit cases as SBPL queries (kit layout, kit policy, kit expectation)", () => {
  for (const c of CONFORMANCE_CASES) {
    const skip = skipReason(c, { lacks: SEATBELT_LACKS });
    it.skipIf(skip !== undefined)(`${c.id}: ${c.expect}${skip ? ` (skipped: ${skip})` : ""}`, async () => {
      const { layout, close } = await openLayout();
      try {
        const { profile } = await plannedProfile(casePolicy(c, layout), layout.workspace);
        const steps = CASE_STEPS[c.id]?.({ ...layout, base: layout.workspace, extra: layout.outside } as Layout);
        expect(steps, `no steps for ${c.id}`).toBeDefined();
        expect(runSteps(profile, STARTUP_STEPS)).toEqual({ verdict: "allowed" });
        const result = runSteps(profile, steps ?? []);
        expect(result.verdict, JSON.stringify(result.refused)).toBe(c.expect);
        // control: unsandboxed (full access) every step goes through
        expect(runSteps(FULL_ACCESS, steps ?? [])).toEqual({ verdict: "allowed" });
      } finally {
        await close();
      }
    });
  }
});
