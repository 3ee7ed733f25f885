// `shellgate check` end to end through the built bin.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeScratch, runBin, type Scratch } from "../../helpers.js";

let s: Scratch;
let rules: string;
beforeAll(() => {
  s = makeScratch();
  rules = s.write("rules/check.rules", 'prefix_rule(pattern=["rm"], decision="forbidden")\n');
});
afterAll(() => s.cleanup());

describe("shellgate check (built bin)", () => {
  it("prints the JSON object and runs nothing", async () => {
    const r = await runBin(["check", "--json", "--rules", rules, "--", "bash", "-lc", "rm -rf /some/important/folder"], { env: s.env, cwd: s.project });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      requirement: "forbidden",
      reason: "`bash -lc 'rm -rf /some/important/folder'` rejected: policy forbids commands starting with `rm`",
      segments: [["rm", "-rf", "/some/important/folder"]],
    });
  });

  it("prints the human explanation", async () => {
    const r = await runBin(["check", "--approval-policy", "never", "--", "touch", "created-if-run"], { env: s.env, cwd: s.project });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("requirement: skip — runs without asking, inside the sandbox");
    expect(existsSync(path.join(s.project, "created-if-run"))).toBe(false);
  });
});
