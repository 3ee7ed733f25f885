// The names of each entry point are pinned for every package in tooling/repo-checks (public-api/*.txt);
// this checks what only loading the entries can show.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const LISTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../tooling/repo-checks/public-api");
const ROOT = readFileSync(path.join(LISTS, "orchestrator.txt"), "utf8").split("\n").filter((n) => n !== "");

describe("public API", () => {
  it("keeps internals out of the root entry", () => {
    expect(ROOT).toContain("Orchestrator");
    for (const internal of ["DEFAULT_ADMISSION_DEPS", "EXECPOLICY_IO", "judgeProbe", "assessWith", "writeStdin", "UnifiedExecManagerOptions"]) {
      expect(ROOT).not.toContain(internal);
    }
  });

  it("runs: every listed value is defined once the entries load (no import cycle left one undefined)", async () => {
    const root: Record<string, unknown> = await import("../src/index.js");
    const admission: Record<string, unknown> = await import("../src/admission/index.js");
    const env: Record<string, unknown> = await import("../src/env/index.js");
    for (const [name, value] of [...Object.entries(root), ...Object.entries(admission), ...Object.entries(env)]) expect(value, name).toBeDefined();
    expect(Object.keys(root).every((n) => ROOT.includes(n))).toBe(true);
  });
});
