// Invariants of the requirement mapping over generated rule sets, scripts and policies.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SandboxPolicy } from "@shellgate/sandbox";
import { APPROVAL_POLICIES, assessWith, isRefusedAmendmentPrefix, type Admission } from "../support/internals.js";
import { fakeDeps, fakePolicy, type FakeRule } from "../support/admission-fakes.js";

const programs = ["cat", "ls", "rm", "make", "cargo", "python3", "bash", "git", "/usr/bin/cargo"];
const word = fc.constantFrom("-rf", "-f", "build", "all", "x", "status", "-c");
const segment = fc.tuple(fc.constantFrom(...programs), fc.array(word, { maxLength: 3 })).map(([p, a]) => [p, ...a]);
const rule: fc.Arbitrary<FakeRule> = fc.record({
  prefix: fc.tuple(fc.constantFrom("cat", "ls", "rm", "make", "cargo", "python3", "bash", "git"), fc.array(word, { maxLength: 1 })).map(([p, a]) => [p, ...a]),
  decision: fc.constantFrom("allow" as const, "prompt" as const, "forbidden" as const),
});
const sandboxes: SandboxPolicy[] = [
  { mode: "read-only", deniedReadPaths: [] },
  { mode: "read-only", deniedReadPaths: ["/secret"] },
  { mode: "danger-full-access" },
  { mode: "external-sandbox", networkAccess: false },
];
const input = fc.record({
  segments: fc.array(segment, { minLength: 1, maxLength: 4 }),
  wrap: fc.boolean(),
  rules: fc.array(rule, { maxLength: 4 }),
  approvalPolicy: fc.constantFrom(...APPROVAL_POLICIES),
  sandboxPolicy: fc.constantFrom(...sandboxes),
  escalated: fc.boolean(),
  prefixRule: fc.option(segment, { nil: undefined }),
});

type Input = typeof input extends fc.Arbitrary<infer T> ? T : never;

async function admit(i: Input): Promise<Admission> {
  const argv = i.wrap ? ["bash", "-lc", i.segments.map((s) => s.join(" ")).join(" && ")] : i.segments[0]!;
  return assessWith(fakeDeps, {
    argv,
    policy: fakePolicy(i.rules),
    approvalPolicy: i.approvalPolicy,
    sandboxPolicy: i.sandboxPolicy,
    permissions: i.escalated ? "require_escalated" : "use_default",
    ...(i.prefixRule ? { prefixRule: i.prefixRule } : {}),
  });
}

describe("requirement invariants", () => {
  it("never asks under `never`; forbidden carries no amendment; bypass needs an allow rule on every segment; no bare interpreter is ever proposed", async () => {
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        const a = await admit(i);
        const r = a.requirement;
        if (i.approvalPolicy === "never") expect(r.kind).not.toBe("needs_approval");
        if (r.kind === "forbidden") expect(r).not.toHaveProperty("proposedAmendment");
        if (r.kind === "skip" && r.bypassSandbox) {
          expect(a.details.every((d) => d.source === "rule" && d.decision === "allow")).toBe(true);
        }
        if (r.kind !== "forbidden" && r.proposedAmendment) {
          expect(r.proposedAmendment.length).toBeGreaterThan(0);
          expect(isRefusedAmendmentPrefix(r.proposedAmendment)).toBe(false);
        }
        // An escalation request never runs unsandboxed without a person or an explicit rule.
        const restricted = i.sandboxPolicy.mode === "read-only" && i.sandboxPolicy.deniedReadPaths.length === 0;
        if (i.escalated && restricted && r.kind === "skip") expect(r.bypassSandbox).toBe(true);
        // Any forbidden rule match forbids the whole command.
        if (a.matchedRules.some((m) => m.decision === "forbidden")) expect(r.kind).toBe("forbidden");
      }),
      { numRuns: 300 },
    );
  });

  it("is deterministic", async () => {
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        expect(await admit(i)).toEqual(await admit(i));
      }),
      { numRuns: 100 },
    );
  });
});
