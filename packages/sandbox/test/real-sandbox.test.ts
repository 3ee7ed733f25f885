import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { failInCi, skipUnless, whyBwrapCannotRun } from "@shellgate/test-support";
import { expect, it } from "vitest";
import { computeWritableRoots, isLikelySandboxDenied, type WritableRoot } from "../src/index.js";
import { layout, tempDir, workspaceWrite } from "./helpers.js";

// The model is enforced by the backends; this check drives the computed roots through a minimal
// bubblewrap view so the carve-outs and the denial heuristic meet a real kernel refusal.
const noBwrap = whyBwrapCannotRun();
// Without this, a CI machine that lost bubblewrap would turn the real-kernel checks below into skips
// and stay green (CI runs on Linux only).
failInCi(process.platform === "linux" ? noBwrap : undefined, "bubblewrap works here, so the real-kernel checks ran (CI=true)");

async function bwrapArgs(roots: WritableRoot[]): Promise<string[]> {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev"];
  for (const { root } of roots) args.push("--bind", root, root);
  for (const { readOnlySubpaths } of roots) {
    for (const sub of readOnlySubpaths) {
      // Missing carve-outs need a placeholder mount, which is the backend's business; skip them here.
      if (await fs.lstat(sub).then(() => true, () => false)) args.push("--ro-bind", sub, sub);
    }
  }
  return args;
}

function run(args: string[], script: string, cwd: string) {
  const r = spawnSync("bwrap", [...args, "--chdir", cwd, "--", "sh", "-c", script], { encoding: "utf8" });
  return { exitCode: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

skipUnless(noBwrap).describe("computed roots under a real bubblewrap view", () => {
  it("allows writes in the workspace, refuses them in .git and a policy dir, and the refusal reads as a denial", async () => {
    const cwd = await tempDir();
    await layout(cwd, { ".git/hooks/": "", "rules/default.rules": "" });
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: {}, protectedPaths: [path.join(cwd, "rules")] });
    const args = await bwrapArgs(roots);

    const ok = run(args, "echo built > out.txt", cwd);
    expect(ok.exitCode).toBe(0);
    expect(await fs.readFile(path.join(cwd, "out.txt"), "utf8")).toBe("built\n");

    for (const target of [".git/hooks/pre-commit", "rules/default.rules"]) {
      const denied = run(args, `echo pwned > ${target}`, cwd);
      expect(denied.exitCode, target).not.toBe(0);
      expect(isLikelySandboxDenied(denied, { sandboxType: "linux" }), denied.stderr).toBe(true);
      expect(isLikelySandboxDenied(denied, { sandboxType: "none" })).toBe(false);
    }
    expect(await fs.readFile(path.join(cwd, "rules", "default.rules"), "utf8")).toBe("");
    await expect(fs.access(path.join(cwd, ".git", "hooks", "pre-commit"))).rejects.toThrow();

    // Outside every root the whole filesystem is read-only too.
    const outside = run(args, "echo x > /etc/shellgate-test", cwd);
    expect(isLikelySandboxDenied(outside, { sandboxType: "linux" })).toBe(true);

    // A program's own failure under the same sandbox is not a denial.
    const ordinary = run(args, "echo 'tests failed' >&2; exit 1", cwd);
    expect(ordinary.exitCode).toBe(1);
    expect(isLikelySandboxDenied(ordinary, { sandboxType: "linux" })).toBe(false);
  });
});
