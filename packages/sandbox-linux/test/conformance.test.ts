// The shared conformance kit (@shellgate/sandbox/conformance) through both layers of the Linux
// backend: every escape case with its unsandboxed control, as any backend author would run it.
import { describe, expect, it } from "vitest";
import type { SandboxBackend } from "@shellgate/sandbox";
import { CONFORMANCE_CASES, runConformanceCase, skipReason, type ConformanceFeature } from "@shellgate/sandbox/conformance";
import { createLinuxSandboxBackend } from "../src/index.js";
import { bwrapMissing, landlockMissing } from "./support.js";

const layers: Array<{ name: string; skip: string | undefined; backend: () => SandboxBackend; lacks: ConformanceFeature[] }> = [
  { name: "bwrap+seccomp", skip: await bwrapMissing(), backend: () => createLinuxSandboxBackend(), lacks: [] },
  {
    name: "landlock+seccomp",
    skip: await landlockMissing(),
    // a bwrap that does not exist forces the fallback, as on a host without user namespaces;
    // it says of itself that it pins no carve-outs inside writable roots
    backend: () => createLinuxSandboxBackend({ bwrapPath: "/nonexistent/bwrap", allowWeakerIsolation: true }),
    lacks: ["carve-outs"],
  },
];

for (const layer of layers) {
  describe.skipIf(layer.skip !== undefined)(`conformance kit: ${layer.name}${layer.skip ? ` (skipped: ${layer.skip})` : ""}`, () => {
    const backend = layer.backend();
    for (const c of CONFORMANCE_CASES) {
      const skip = skipReason(c, { lacks: layer.lacks });
      it.skipIf(skip !== undefined)(`${c.expect === "blocked" ? "blocks" : "allows"} ${c.title}${skip ? ` (skipped: ${skip})` : ""}`, async () => {
        const result = await runConformanceCase(backend, c);
        expect(result.status, result.reason).toBe("passed");
        // the control got through on the host: the case was not impossible anyway
        expect(result.control?.verdict === "reached" || result.control?.hostEffect === true).toBe(true);
      });
    }
  });
}
