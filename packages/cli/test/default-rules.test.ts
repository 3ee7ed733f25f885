import { fileURLToPath } from "node:url";
import { loadPolicy } from "@shellgate/execpolicy";
import { describe, expect, it } from "vitest";

const RULES = fileURLToPath(new URL("../../../examples/default.rules", import.meta.url));

describe("examples/default.rules", () => {
  it("loads, so every rule's match / not_match examples hold", async () => {
    await expect(loadPolicy([RULES])).resolves.toBeDefined();
  });

  it.each([
    [["git", "push", "--force"], "forbidden"],
    [["rm", "-rf", "/"], "forbidden"],
    [["sudo", "apt-get", "install", "jq"], "forbidden"],
    [["git", "push", "origin", "main"], "prompt"],
    [["git", "reset", "--hard", "HEAD~1"], "prompt"],
    [["npm", "publish"], "prompt"],
    [["ls", "-la"], undefined],
    [["npm", "test"], undefined],
  ] as const)("%j → %s", async (argv, decision) => {
    const policy = await loadPolicy([RULES]);
    expect(policy.evaluate(argv).decision).toBe(decision);
  });
});
