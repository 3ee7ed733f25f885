// The pipeline with real processes under the real Linux sandbox (bubblewrap + seccomp through
// @shellgate/sandbox-linux, spawned by @shellgate/pty). Skipped, with the reason, where it cannot run.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { spawnPipe } from "@shellgate/pty";
import { SandboxManager, type ExecEnv, type SandboxPolicy } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, probeLinuxSandbox } from "@shellgate/sandbox-linux";
import { ApprovalCache, EventBus, ExecPipeline, PolicyStore, type ExecRequest, type LaunchResult, type PipelineContext } from "@shellgate/orchestrator";
import { describeWithSandbox, scriptedHandler } from "./support/sandbox.js";

// The full sandbox (bubblewrap with its namespaces), not the Landlock fallback: these tests count on it.
const report = process.platform === "linux" ? await probeLinuxSandbox() : undefined;
const full = report?.level === "full";
const availability = {
  available: full,
  reason: full ? "bubblewrap with user namespaces" : report ? `Linux sandbox not fully available: ${report.reasons.join("; ")}` : "not Linux",
};

async function launch(env: ExecEnv): Promise<LaunchResult<{ stdout: string; exitCode: number }>> {
  const result = await spawnPipe({ argv: env.argv, cwd: env.cwd, env: { ...env.env }, timeoutMs: 15_000 }).result();
  return {
    value: { stdout: result.stdout, exitCode: result.exitCode },
    probe: { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, aggregated: result.aggregated, timedOut: result.timedOut },
  };
}

describeWithSandbox("pipeline under the real Linux sandbox (needs bwrap + user namespaces)", availability, () => {
  let dir: string;
  let manager: SandboxManager;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "shellgate-f2-real-"));
    manager = new SandboxManager();
    manager.register(createLinuxSandboxBackend());
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const readOnly: SandboxPolicy = { mode: "read-only", deniedReadPaths: [] };
  const baseEnv = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: os.tmpdir() };

  async function context(over: Partial<PipelineContext> & { rules?: string } = {}): Promise<PipelineContext> {
    const { rules, ...rest } = over;
    let policies = await PolicyStore.load([]);
    if (rules !== undefined) {
      const file = path.join(dir, `rules-${Math.random().toString(36).slice(2)}.rules`);
      await writeFile(file, rules);
      policies = await PolicyStore.load([file]);
    }
    return {
      policies,
      approvalPolicy: "untrusted",
      sandboxPolicy: readOnly,
      sandboxManager: manager,
      approvalCache: new ApprovalCache(),
      events: new EventBus(),
      ...rest,
    };
  }

  function req(script: string, over: Partial<ExecRequest> = {}): ExecRequest {
    return { callId: "c", tool: "shell_command", argv: ["bash", "-c", script], cwd: dir, env: baseEnv, permissions: "use_default", ...over };
  }

  it("a write the sandbox refuses → fresh approval → unsandboxed retry succeeds", async () => {
    const target = path.join(dir, "written-on-retry.txt");
    const { handler, requests } = scriptedHandler(["approved", "approved"]);
    const pipeline = new ExecPipeline(await context({ approvalHandler: handler }));
    const out = await pipeline.run(req(`touch ${target}`), launch);
    expect(requests.map((r) => r.retryAfterDenial)).toEqual([false, true]);
    expect(out.trace).toMatchObject({ initialSandbox: "linux", attempts: 2, outcome: "success", sandboxOverride: "none" });
    expect(out.retried).toBe(true);
    expect(out.sandboxType).toBe("none");
    expect(existsSync(target)).toBe(true);
  });

  it("approved + use_default: the first attempt really is sandboxed (the write fails), and on-request does not retry", async () => {
    const target = path.join(dir, "never-written.txt");
    const { handler, requests } = scriptedHandler(["approved"]);
    const pipeline = new ExecPipeline(await context({ approvalHandler: handler, approvalPolicy: "on-request", rules: 'prefix_rule(pattern=["touch"], decision="prompt")\n' }));
    const out = await pipeline.run(req(`touch ${target}`), launch);
    expect(requests).toHaveLength(1);
    expect(out).toMatchObject({ retried: false, sandboxDenied: true, sandboxType: "linux" });
    expect(out.value.exitCode).not.toBe(0);
    expect(existsSync(target)).toBe(false);
  });

  it("an explicit allow rule for every segment runs outside the sandbox from the start", async () => {
    const target = path.join(dir, "written-by-rule.txt");
    const pipeline = new ExecPipeline(await context({ rules: 'prefix_rule(pattern=["touch"], decision="allow")\n' }));
    const out = await pipeline.run(req(`touch ${target}`), launch);
    expect(out.trace).toMatchObject({ approvalRequirement: "skip", sandboxOverride: "bypass_by_rule", initialSandbox: "none", attempts: 1, outcome: "success" });
    expect(existsSync(target)).toBe(true);
  });

  it("denied-read paths keep the sandbox even for an explicit allow: the secret stays unreadable", async () => {
    const secret = path.join(dir, "secret.txt");
    await writeFile(secret, "s3cr3t-value\n");
    const pipeline = new ExecPipeline(
      await context({ sandboxPolicy: { mode: "read-only", deniedReadPaths: [secret] }, rules: 'prefix_rule(pattern=["cat"], decision="allow")\n' }),
    );
    const out = await pipeline.run(req(`cat ${secret}`), launch);
    expect(out.trace.sandboxOverride).toBe("none");
    expect(out.trace.initialSandbox).toBe("linux");
    expect(out.value.stdout).not.toContain("s3cr3t-value");
    expect(await readFile(secret, "utf8")).toBe("s3cr3t-value\n");
  });

  it("a plain non-zero exit in the sandbox is a result: no retry, no prompt (untrusted would allow one)", async () => {
    const { handler, requests } = scriptedHandler([]);
    const pipeline = new ExecPipeline(await context({ approvalHandler: handler }));
    for (const [script, code] of [["ls /definitely-not-here-f2", 2], ["grep -q no-such-text-f2 /etc/hostname", 1]] as const) {
      const out = await pipeline.run(req(script), launch);
      expect(out.value.exitCode).toBe(code);
      expect(out).toMatchObject({ retried: false, sandboxDenied: false, sandboxType: "linux" });
      expect(out.trace).toMatchObject({ approvalRequirement: "skip", outcome: "nonzero_exit", attempts: 1 });
    }
    expect(requests).toHaveLength(0);
  });

  it("an approved escalation request runs the first attempt outside the sandbox", async () => {
    const target = path.join(dir, "written-escalated.txt");
    const { handler, requests } = scriptedHandler(["approved"]);
    const pipeline = new ExecPipeline(await context({ approvalHandler: handler, approvalPolicy: "on-request" }));
    const out = await pipeline.run(req(`touch ${target}`, { permissions: "require_escalated", justification: "write outside?" }), launch);
    expect(requests[0]).toMatchObject({ sandboxPermissions: "require_escalated", justification: "write outside?", retryAfterDenial: false });
    expect(out.trace).toMatchObject({ sandboxOverride: "escalation_approved", initialSandbox: "none", attempts: 1, outcome: "success" });
    expect(existsSync(target)).toBe(true);
  });

  it("a refused retry leaves the sandboxed result alone, marked declined", async () => {
    const target = path.join(dir, "refused-retry.txt");
    const { handler } = scriptedHandler(["denied"]);
    const pipeline = new ExecPipeline(await context({ approvalHandler: handler, approvalPolicy: "on-failure" }));
    await expect(pipeline.run(req(`touch ${target}`), launch)).resolves.toMatchObject({ sandboxDenied: true, retried: false, sandboxRetry: "declined" });
    expect(existsSync(target)).toBe(false);
  });

  it("traces of real runs hold no command, path or output", async () => {
    const events = new EventBus();
    const seen: string[] = [];
    events.on((e) => {
      if (e.type === "trace") seen.push(JSON.stringify(e.trace));
    });
    const { handler } = scriptedHandler(["approved", "approved", "approved"]);
    const pipeline = new ExecPipeline(await context({ approvalHandler: handler, events }));
    await pipeline.run(req(`echo trace-marker-out; touch ${path.join(dir, "trace-marker-file")}`), launch);
    await pipeline.run(req("cat /etc/hostname"), launch);
    expect(seen).toHaveLength(2);
    for (const t of seen) {
      expect(t).not.toContain("trace-marker");
      expect(t).not.toContain(dir);
      expect(t).not.toContain("touch");
      expect(t).not.toContain("hostname");
    }
  });

  it("the sandboxed child sees the sandbox markers", async () => {
    const pipeline = new ExecPipeline(await context({ approvalPolicy: "never" }));
    const out = await pipeline.run(req('echo "sandbox=$CODEX_SANDBOX net=$CODEX_SANDBOX_NETWORK_DISABLED"'), launch);
    expect(out.value.stdout.trim()).toBe("sandbox=linux net=1");
  });
});
