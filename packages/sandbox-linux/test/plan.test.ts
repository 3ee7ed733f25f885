// Planning: what a run would spawn, computed without running, probing or creating anything, and
// the same argv a real run gets.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isLikelySandboxDenied, parseSandboxPolicy, SandboxManager } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, LINUX_DENIAL_SIGNALS } from "../src/index.js";
import { baseEnv, bwrapMissing, bwrapPart, makeDirs, run, sh, withoutCgroup } from "./support.js";

const bwrapSkip = await bwrapMissing();

describe("plan", () => {
  const dirs = makeDirs("plan");
  afterAll(() => dirs.remove());
  const policy = parseSandboxPolicy({ mode: "workspace-write", writableRoots: [dirs.outside], deniedReadPaths: [] });
  const spec = () => ({ argv: sh("touch made-by-command"), cwd: dirs.ws, env: { ...baseEnv(), LD_PRELOAD: "/nonexistent/evil.so" } });

  it("creates nothing and probes nothing: a missing carve-out gets no placeholder, a made-up bubblewrap path is kept", async () => {
    const backend = createLinuxSandboxBackend({ bwrapPath: "/opt/nowhere/bwrap" });
    const plan = await backend.plan(spec(), policy, { sandboxPolicyCwd: dirs.ws });
    expect(bwrapPart(plan.argv)[0]).toBe("/opt/nowhere/bwrap");
    expect(plan.plan["placeholders"]).toContain(path.join(dirs.ws, ".codex"));
    // the helper that starts bwrap would make it, under its lock
    const at = plan.argv.indexOf(path.join(dirs.ws, ".codex"));
    expect(plan.argv.slice(at - 2, at + 1)).toEqual(["--placeholder", expect.stringMatching(/\.lock$/), path.join(dirs.ws, ".codex")]);
    expect(fs.existsSync(path.join(dirs.ws, ".codex"))).toBe(false);
    expect(fs.existsSync(path.join(dirs.ws, "made-by-command"))).toBe(false);
    // the writable roots are binds of their own; the loader variable leaves the environment and
    // reaches the command through the helper, after confinement
    const binds = plan.argv.flatMap((a, i) => (a === "--bind" ? [plan.argv[i + 1]] : []));
    expect(binds).toEqual(expect.arrayContaining([dirs.ws, dirs.outside]));
    expect(plan.unsetEnv).toEqual(["LD_PRELOAD"]);
    expect(plan.argv).toContain("LD_PRELOAD=/nonexistent/evil.so");
    expect(plan.argv.slice(-4)).toEqual(["--", ...sh("touch made-by-command")]);
    expect(plan).toMatchObject({ backend: "linux", sandboxType: "linux", isolation: "bwrap+seccomp", cwd: dirs.ws, env: {} });
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  it("shows the markers a run gets when planned through a manager, on a platform that is not Linux", async () => {
    const manager = new SandboxManager({ platform: "darwin" });
    manager.register(createLinuxSandboxBackend());
    const plan = await manager.plan(spec(), policy, { sandboxPolicyCwd: dirs.ws, backend: "linux" });
    expect(plan.env).toEqual({ CODEX_SANDBOX: "linux", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    expect(plan.argv).toContain("--unshare-all");
    expect(plan.argv).not.toContain("--share-net");
    const bwrap = bwrapPart(plan.argv);
    expect(bwrap.slice(bwrap.indexOf("--") + 1, bwrap.indexOf("--") + 4)).toEqual([plan.plan["assumed"] && (plan.plan["assumed"] as { helperPath: string }).helperPath, "--net", "off"]);
  });

  it.skipIf(bwrapSkip !== undefined)(`is the argv a real run spawns${bwrapSkip ? ` (skipped: ${bwrapSkip})` : ""}`, async () => {
    const backend = createLinuxSandboxBackend();
    const plan = await backend.plan(spec(), policy, { sandboxPolicyCwd: dirs.ws });
    const env = await backend.transform(spec(), policy, { sandboxPolicyCwd: dirs.ws });
    try {
      expect(withoutCgroup(env.argv)).toEqual(plan.argv);
      expect(env.denialSignals).toEqual(LINUX_DENIAL_SIGNALS.bwrap);
      // neither the plan nor the transform makes the placeholder: the run's helper does, when it starts
      expect(fs.existsSync(path.join(dirs.ws, ".codex"))).toBe(false);
      const r = await run([...env.argv.slice(0, -3), ...sh("touch made-by-command; test -d .codex && echo HELD")], { cwd: env.cwd, env: { ...env.env } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe("HELD\n");
      expect(fs.existsSync(path.join(dirs.ws, "made-by-command"))).toBe(true);
    } finally {
      await env.cleanup?.();
    }
  });
});

describe("denial signals", () => {
  const dirs = makeDirs("signals");
  afterAll(() => dirs.remove());

  it("are the backend's, so the shared heuristic knows nothing of Linux", () => {
    const backend = createLinuxSandboxBackend();
    expect(backend.denialSignals).toEqual(LINUX_DENIAL_SIGNALS.bwrap);
    expect(backend.envMarkers).toEqual({ CODEX_SANDBOX: "linux" });
    const sigsys = { exitCode: 159, stdout: "", stderr: "" };
    expect(isLikelySandboxDenied(sigsys, { sandboxType: "linux", denialSignals: backend.denialSignals })).toBe(true);
    // control: the same exit under a backend that names no such signal
    expect(isLikelySandboxDenied(sigsys, { sandboxType: "linux" })).toBe(false);
  });

  it.skipIf(bwrapSkip !== undefined)(`a command killed by SIGSYS, as the seccomp filter kills, is judged a denial through the run's env${bwrapSkip ? ` (skipped: ${bwrapSkip})` : ""}`, async () => {
    const manager = new SandboxManager();
    manager.register(createLinuxSandboxBackend());
    const policy = parseSandboxPolicy({ mode: "workspace-write" });
    // The filter's own kills are tested in escapes.test.ts; here only the judging matters, so the
    // shell sends itself the same signal.
    const argv = sh("kill -SYS $$");
    const env = await manager.prepare({ argv, cwd: dirs.ws, env: baseEnv() }, policy, { sandboxPolicyCwd: dirs.ws });
    try {
      const r = await run(env.argv, { cwd: env.cwd, env: { ...env.env } });
      const exitCode = r.code ?? 128 + 31;
      expect(exitCode).toBe(159);
      expect(isLikelySandboxDenied({ exitCode, stdout: r.stdout, stderr: r.stderr }, env)).toBe(true);
    } finally {
      await env.cleanup?.();
    }
  });
});
