import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeScratch, realSandboxSkip, runBin } from "../helpers.js";

// `node:crypto` costs several ms of a start-up only to be loaded (its module graph). The one-shot
// paths do not need it (ids and cgroup names are not secrets), and this keeps it that way.
const s = makeScratch();
afterAll(() => s.cleanup());
const preload = path.join(s.root, "record-modules.cjs");
writeFileSync(
  preload,
  `process.on("exit", () => require("node:fs").writeFileSync(process.env.SG_TEST_MODULES, process.moduleLoadList.join("\\n")));\n`,
);

/** The built-in modules a run of the built bin (or of `script`) loaded. */
async function builtinsLoaded(args: string[], script?: string): Promise<string[]> {
  const out = path.join(s.root, `modules-${Math.random().toString(16).slice(2)}.txt`);
  const r = await runBin(args, { env: { ...s.env, NODE_OPTIONS: `--require ${preload}`, SG_TEST_MODULES: out }, cwd: s.project, ...(script ? { bin: script } : {}) });
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(out, "utf8").split("\n").filter((l) => l.startsWith("NativeModule ")).map((l) => l.slice("NativeModule ".length));
}

const skip = await realSandboxSkip();

describe("one-shot runs do not load node:crypto (built bin)", () => {
  it("control: the recorder sees a script that loads it", async () => {
    const script = path.join(s.root, "uses-crypto.cjs");
    writeFileSync(script, `require("node:crypto").randomBytes(1);\n`);
    expect(await builtinsLoaded([], script)).toContain("crypto");
  });

  it.skipIf(skip !== undefined)("shellgate sandbox -- /bin/true", async () => {
    expect(await builtinsLoaded(["sandbox", "--", "/bin/true"])).not.toContain("crypto");
  });

  it.skipIf(skip !== undefined)("shellgate exec -- /bin/true", async () => {
    expect(await builtinsLoaded(["exec", "--", "/bin/true"])).not.toContain("crypto");
  });
});
