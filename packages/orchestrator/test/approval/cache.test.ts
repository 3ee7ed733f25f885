import { describe, expect, it } from "vitest";
import { ApprovalCache } from "../support/internals.js";

describe("ApprovalCache", () => {
  const call = { argv: ["cargo", "build"], cwd: "/work/p", permissions: "use_default" as const };

  it("remembers exactly the approved call", () => {
    const cache = new ApprovalCache();
    expect(cache.isApproved(call)).toBe(false);
    cache.approveForSession(call);
    expect(cache.isApproved(call)).toBe(true);
    expect(cache.isApproved({ ...call, cwd: "/work/p/" })).toBe(true); // same directory
    expect(cache.isApproved({ ...call, cwd: "/work/p/sub/.." })).toBe(true);
    expect(cache.size).toBe(1);
  });

  it("does not cover other argv, cwd, sandbox request or extras", () => {
    const cache = new ApprovalCache();
    cache.approveForSession(call);
    expect(cache.isApproved({ ...call, argv: ["cargo", "build", "--release"] })).toBe(false);
    expect(cache.isApproved({ ...call, argv: ["cargo build"] })).toBe(false);
    expect(cache.isApproved({ ...call, cwd: "/work/q" })).toBe(false);
    expect(cache.isApproved({ ...call, permissions: "require_escalated" })).toBe(false);
    expect(cache.isApproved({ ...call, extra: { tty: true } })).toBe(false);
  });

  it("keys are independent of extra-field order and distinguish token boundaries", () => {
    const a = ApprovalCache.keyFor({ ...call, extra: { tty: true, shell: "bash" } });
    const b = ApprovalCache.keyFor({ ...call, extra: { shell: "bash", tty: true } });
    expect(a).toBe(b);
    expect(ApprovalCache.keyFor({ ...call, argv: ["a b", "c"] })).not.toBe(ApprovalCache.keyFor({ ...call, argv: ["a", "b c"] }));
  });

  it("clear forgets everything", () => {
    const cache = new ApprovalCache();
    cache.approveForSession(call);
    cache.clear();
    expect(cache.isApproved(call)).toBe(false);
  });
});
