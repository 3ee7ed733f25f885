// A recording sandbox manager and scripted launcher: the pipeline's state machine is tested here
// without processes; pipeline-real.test.ts runs the same paths under the real Linux sandbox.
import type { CommandSpec, ExecEnv, SandboxBackend, SandboxPolicy, TransformOptions } from "@shellgate/sandbox";
import { ApprovalCache, PolicyStore, type ApprovalHandler, type ApprovalRequest, type PolicyIo } from "./internals.js";
import { EventBus, type OrchestratorEvent } from "../../src/events.js";
import type { ExecProbe, ExecRequest, LaunchResult, PipelineContext } from "./internals.js";
import type { PolicyEvaluator } from "./internals.js";
import { fakeDeps, fakePolicy, type FakeRule } from "./admission-fakes.js";

export class RecordingManager {
  readonly calls: Array<{ spec: CommandSpec; policy: SandboxPolicy; options: TransformOptions }> = [];
  cleanups = 0;
  /** How the fake backend reaches a proxy; `undefined`: it cannot. */
  proxyTransport: SandboxBackend["proxyTransport"] = "loopback-tcp";
  async select(policy: SandboxPolicy): Promise<SandboxBackend | null> {
    if (policy.mode !== "read-only" && policy.mode !== "workspace-write") return null;
    return {
      name: "fake",
      platform: process.platform,
      sandboxType: "linux",
      ...(this.proxyTransport ? { proxyTransport: this.proxyTransport } : {}),
      isAvailable: async () => ({ available: true, isolation: "fake" }),
      plan: async () => {
        throw new Error("not planned in these tests");
      },
      transform: async () => {
        throw new Error("the manager's prepare is used");
      },
    };
  }
  async prepare(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions): Promise<ExecEnv> {
    this.calls.push({ spec, policy, options });
    const sandboxed = policy.mode === "read-only" || policy.mode === "workspace-write";
    return {
      argv: sandboxed ? ["fake-sandbox", "--", ...spec.argv] : [...spec.argv],
      cwd: spec.cwd,
      env: { ...spec.env },
      sandboxType: sandboxed ? "linux" : "none",
      isolation: sandboxed ? "fake" : "none",
      cleanup: async () => {
        this.cleanups++;
      },
    };
  }
}

export function probe(exitCode: number, output = ""): ExecProbe {
  return { exitCode, stdout: output, stderr: "", aggregated: output, timedOut: false };
}

/** A launcher answering each attempt with the next scripted probe (`null` = still running). */
export function scriptedLauncher(probes: Array<ExecProbe | null>) {
  const envs: ExecEnv[] = [];
  const launch = async (env: ExecEnv): Promise<LaunchResult<string>> => {
    envs.push(env);
    const p = probes[envs.length - 1];
    if (p === undefined) throw new Error("unexpected extra attempt");
    return p === null ? { value: `attempt ${envs.length}` } : { value: `attempt ${envs.length}`, probe: p };
  };
  return { launch, envs };
}

/** A handler answering each request with the next scripted decision, recording the requests. */
export function scriptedHandler(answers: Array<Awaited<ReturnType<ApprovalHandler>> | unknown>) {
  const requests: ApprovalRequest[] = [];
  const handler: ApprovalHandler = async (request) => {
    requests.push(request);
    if (requests.length > answers.length) throw new Error("unexpected extra approval request");
    return answers[requests.length - 1] as Awaited<ReturnType<ApprovalHandler>>;
  };
  return { handler, requests };
}

export const noIo: PolicyIo<PolicyEvaluator> = {
  loadPolicy: async () => {
    throw new Error("no io in this test");
  },
  appendAllowPrefixRule: async () => {
    throw new Error("no io in this test");
  },
};

export function makeContext(overrides: Partial<PipelineContext> & { rules?: FakeRule[] } = {}) {
  const events: OrchestratorEvent[] = [];
  const bus = new EventBus();
  bus.on((e) => events.push(e));
  const manager = new RecordingManager();
  const { rules, ...rest } = overrides;
  const ctx: PipelineContext = {
    policies: new PolicyStore<PolicyEvaluator>(rules ? fakePolicy(rules) : null, [], noIo),
    approvalPolicy: "untrusted",
    sandboxPolicy: { mode: "read-only", deniedReadPaths: [] },
    sandboxManager: manager,
    approvalCache: new ApprovalCache(),
    events: bus,
    admissionDeps: fakeDeps,
    ...rest,
  };
  return { ctx, events, manager };
}

export function request(overrides: Partial<ExecRequest> = {}): ExecRequest {
  return {
    callId: "call-1",
    tool: "shell",
    argv: ["make", "all"],
    cwd: "/work/project",
    env: { PATH: "/usr/bin" },
    permissions: "use_default",
    ...overrides,
  };
}
