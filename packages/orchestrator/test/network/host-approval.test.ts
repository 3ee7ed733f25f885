import { describe, expect, it } from "vitest";
import { EventBus, HostApprovals, type ApprovalHandler } from "../support/internals.js";

const verdict = { host: "ask.test", decision: "prompt" as const, source: { kind: "default" as const }, explicit: false };
const req = { protocol: "https" as const, host: "ask.test", port: 443 };
const ctx = { callId: "c1", tool: "shell", argv: ["curl", "https://ask.test"], cwd: "/w" };

function approvals(handler: ApprovalHandler | undefined, approvalPolicy: "never" | "on-request" = "on-request", sessionApprovals = true) {
  return new HostApprovals({ approvalPolicy, sessionApprovals, events: new EventBus(), ...(handler ? { approvalHandler: handler } : {}) });
}

describe("HostApprovals", () => {
  it("refuses without asking when nobody can be asked", async () => {
    expect(await approvals(undefined).forRun(ctx)(req, verdict)).toBe(false);
    let asked = 0;
    const handler: ApprovalHandler = async () => (asked++, "approved");
    expect(await approvals(handler, "never").forRun(ctx)(req, verdict)).toBe(false);
    expect(asked).toBe(0);
  });

  it("asks once for concurrent connections of a run; `approved` lasts for the run only", async () => {
    let asked = 0;
    const a = approvals(async () => (asked++, "approved"));
    const run = a.forRun(ctx);
    expect(await Promise.all([run(req, verdict), run(req, verdict), run(req, verdict)])).toEqual([true, true, true]);
    expect(asked).toBe(1);
    expect(await a.forRun({ ...ctx, callId: "c2" })(req, verdict)).toBe(true);
    expect(asked).toBe(2);
  });

  it("an answer that was not offered or is invalid refuses the host (fail closed)", async () => {
    expect(await approvals(async () => "approved_for_session", "on-request", false).forRun(ctx)(req, verdict)).toBe(false);
    expect(await approvals(async () => "yes please" as never).forRun(ctx)(req, verdict)).toBe(false);
    expect(await approvals(async () => Promise.reject(new Error("handler broke"))).forRun(ctx)(req, verdict)).toBe(false);
  });
});
