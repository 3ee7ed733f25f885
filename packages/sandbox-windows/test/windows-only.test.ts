// What needs real Windows: the koffi layer and the conformance kit. Skipped elsewhere, saying why.
import { describe, expect, it } from "vitest";
import { runConformance } from "@shellgate/sandbox/conformance";
import { createWindowsSandboxBackend } from "../src/index.js";

const skip = process.platform === "win32" ? undefined : `needs Windows (this is ${process.platform}): restricted tokens, ACLs and job objects exist only there`;

describe("on Windows", () => {
  it.skipIf(skip !== undefined)(`the backend is available${skip ? ` (skipped: ${skip})` : ""}`, async () => {
    expect(await createWindowsSandboxBackend().isAvailable()).toMatchObject({ available: true });
  });

  it.skipIf(skip !== undefined)(`passes the conformance kit${skip ? ` (skipped: ${skip})` : ""}`, async () => {
    // The network cases cannot pass without elevation: the block is advisory (environment only).
    // Windows has no FIFOs in directories (named pipes live in their own namespace, \\.\pipe\).
    const report = await runConformance(createWindowsSandboxBackend(), { lacks: ["special-files"] });
    const failed = report.results.filter((r) => r.status === "failed");
    expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
  }, 120_000);
});
