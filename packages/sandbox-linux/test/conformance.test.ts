// The shared conformance kit (@shellgate/sandbox/conformance) through both layers of the Linux
// backend: every escape case with its unsandboxed control, as any backend author would run it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
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

// A workspace whose path holds a backslash, a quote and a space: on POSIX a backslash is part of a
// name, and once split as a separator it made the carve-outs vanish (writable .git under bwrap).
describe.skipIf(layers[0]!.skip !== undefined)(`conformance kit with an odd workspace path (bwrap)${layers[0]!.skip ? ` (skipped: ${layers[0]!.skip})` : ""}`, () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "sg-odd-"));
  const odd = path.join(parent, "back\\slash 'quoted' dir");
  fs.mkdirSync(odd);
  afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));
  const backend = createLinuxSandboxBackend();
  for (const c of CONFORMANCE_CASES.filter((k) => k.needs.includes("carve-outs") || k.id === "write-outside-roots" || k.expect === "allowed")) {
    it(`${c.expect === "blocked" ? "blocks" : "allows"} ${c.title}`, async () => {
      const result = await runConformanceCase(backend, c, { workspaceParent: odd });
      expect(result.status, result.reason).toBe("passed");
    });
  }
});
