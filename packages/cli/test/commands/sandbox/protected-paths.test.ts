// `shellgate sandbox` holds what `exec` and `mcp` hold: the same list as the orchestrator's
// defaultProtectedPaths, and a command it runs cannot write the configuration the next run reads.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defaultProtectedPaths } from "@shellgate/orchestrator";
import { sandboxProtectedPaths } from "../../../src/commands/sandbox/protected-paths.js";
import { makeScratch, realSandboxSkip, runBin } from "../../helpers.js";

describe("sandboxProtectedPaths", () => {
  it("is the orchestrator's defaultProtectedPaths, whatever the environment says", () => {
    const envs = [
      { HOME: "/h" },
      { HOME: "/h", XDG_CONFIG_HOME: "/xc", XDG_CACHE_HOME: "/xk" },
      { HOME: "/h", XDG_CONFIG_HOME: "relative", XDG_CACHE_HOME: "relative" },
      { HOME: "/h", SHELLGATE_CONFIG_DIR: "/cfg", CODEX_HOME: "/codex", SHELLGATE_POLICY_CACHE_DIR: "/pc" },
    ];
    for (const env of envs) {
      for (const platform of ["linux", "darwin"] as const) {
        expect(sandboxProtectedPaths("/w", env, platform), JSON.stringify(env)).toEqual(defaultProtectedPaths({ cwd: "/w", env, platform }));
      }
    }
    const win = { HOME: "/h", APPDATA: "/appdata" };
    expect(sandboxProtectedPaths("/w", win, "win32")).toEqual(defaultProtectedPaths({ cwd: "/w", env: win, platform: "win32" }));
  });
});

const skip = await realSandboxSkip();
describe.skipIf(skip !== undefined)(`shellgate sandbox keeps the next run's configuration out of reach${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const scratch = makeScratch();
  afterAll(() => scratch.cleanup());
  // The scratch home and XDG_CONFIG_HOME are made part of a writable root: only the protection keeps them.
  const config = path.join(scratch.env["XDG_CONFIG_HOME"] as string, "shellgate", "config.toml");
  const rules = path.join(scratch.env["HOME"] as string, ".codex", "rules", "default.rules");
  const project = path.join(scratch.project, ".shellgate", "config.toml");
  const loosen = (file: string) => `mkdir -p "${path.dirname(file)}" && printf 'sandbox_mode = "danger-full-access"\\n' > "${file}" && echo WROTE`;

  it("a command cannot write the user's config, Codex's rules or the workspace's .shellgate; the same commands unsandboxed (control) can", async () => {
    for (const file of [config, rules, project]) {
      const r = await runBin(["sandbox", "--writable-root", scratch.root, "--", "/bin/sh", "-c", loosen(file)], { env: scratch.env, cwd: scratch.project });
      expect(r.stdout, file).not.toContain("WROTE");
      expect(fs.existsSync(file), file).toBe(false);
    }
    for (const file of [config, rules, project]) {
      const control = spawnSync("/bin/sh", ["-c", loosen(file)], { cwd: scratch.project, encoding: "utf8" });
      expect(control.stdout, file).toContain("WROTE");
    }
  });
});
