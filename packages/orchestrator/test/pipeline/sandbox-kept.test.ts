// What the pipeline does with an allow rule whose command would run what a sandboxed command could
// have written: real rules, real writable roots and real files; a recording sandbox manager.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SandboxPolicy } from "@shellgate/sandbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_ADMISSION_DEPS, ExecPipeline, PolicyStore, type PolicyEvaluator } from "../support/internals.js";
import { makeContext, probe, request, scriptedHandler, scriptedLauncher } from "../support/pipeline-fakes.js";

const POLICY: SandboxPolicy = {
  mode: "workspace-write",
  writableRoots: [],
  networkAccess: false,
  excludeTmpdirEnvVar: true,
  excludeSlashTmp: true,
  deniedReadPaths: [],
};

let base: string;
let ws: string;
let hostBin: string;

beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-kept-")));
  ws = path.join(base, "ws");
  hostBin = path.join(base, "host", "bin");
  fs.mkdirSync(path.join(ws, ".git", "objects"), { recursive: true });
  fs.mkdirSync(path.join(ws, ".git", "refs"));
  fs.writeFileSync(path.join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
  fs.mkdirSync(hostBin, { recursive: true });
  for (const name of ["git", "npm", "bash"]) plant(path.join(hostBin, name));
});

afterEach(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

function plant(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
}

async function context(rules: string, overrides: Parameters<typeof makeContext>[0] = {}) {
  const file = path.join(base, "default.rules");
  fs.writeFileSync(file, rules);
  const store = (await PolicyStore.load([file])) as unknown as PolicyStore<PolicyEvaluator>;
  return makeContext({ policies: store, sandboxPolicy: POLICY, admissionDeps: DEFAULT_ADMISSION_DEPS, sandboxPolicyCwd: ws, ...overrides });
}

const run = (argv: string[], extra: Partial<ReturnType<typeof request>> = {}) => request({ argv, cwd: ws, env: { PATH: hostBin, HOME: base }, ...extra });
const GIT_COMMIT = 'prefix_rule(pattern=["git", "commit"], decision="allow")\n';

describe("an allow rule never runs a program the sandbox could have written outside it", () => {
  it("CONTROL: the rule's own program, found on a host PATH, runs outside the sandbox", async () => {
    const { ctx, manager } = await context(GIT_COMMIT, { approvalPolicy: "on-request" });
    const { launch } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(run(["git", "commit", "-m", "x"]), launch);
    expect(manager.calls[0]?.policy.mode).toBe("danger-full-access");
    expect(out.trace.sandboxOverride).toBe("bypass_by_rule");
    expect(out.sandboxKept).toBeUndefined();
  });

  it("on-request: `./git commit` (the workspace's git) runs in the sandbox, and says why with the path", async () => {
    plant(path.join(ws, "git"));
    const { ctx, manager } = await context(GIT_COMMIT, { approvalPolicy: "on-request" });
    const { launch, envs } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(run(["./git", "commit", "-m", "x"]), launch);
    expect(manager.calls[0]?.policy.mode).toBe("workspace-write");
    expect(envs[0]?.sandboxType).toBe("linux");
    expect(out.trace).toMatchObject({ approvalRequirement: "skip", sandboxOverride: "none", sandboxKept: ["program"] });
    expect(JSON.stringify(out.trace)).not.toContain(ws);
    expect(out.sandboxKept?.found).toEqual([expect.objectContaining({ kind: "program", path: path.join(ws, "git") })]);
    expect(out.sandboxKept?.reason).toContain(path.join(ws, "git"));
  });

  it("untrusted: a person is asked, the reason names the path, and once approved it still runs sandboxed", async () => {
    plant(path.join(ws, "git"));
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx, manager } = await context(GIT_COMMIT, { approvalHandler: handler });
    const { launch } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(run(["./git", "commit", "-m", "x"]), launch);
    expect(requests[0]?.why.kind).toBe("sandbox_kept");
    expect(requests[0]?.reason).toContain(path.join(ws, "git"));
    expect(requests[0]?.why.sandboxWritten?.[0]?.path).toBe(path.join(ws, "git"));
    expect(manager.calls[0]?.policy.mode).toBe("workspace-write");
    expect(out.trace).toMatchObject({ approvalRequirement: "needs_approval", sandboxOverride: "none" });
  });

  it("a script's commands count: `bash -lc './git commit'` runs in the sandbox", async () => {
    plant(path.join(ws, "git"));
    const { ctx, manager } = await context(GIT_COMMIT, { approvalPolicy: "never" });
    const { launch } = scriptedLauncher([probe(0)]);
    await new ExecPipeline(ctx).run(run(["bash", "-lc", "./git commit -m x"]), launch);
    expect(manager.calls[0]?.policy.mode).toBe("workspace-write");
  });

  it("a PATH entry in the workspace ahead of the host's (node_modules/.bin) keeps the sandbox", async () => {
    fs.mkdirSync(path.join(ws, "node_modules", ".bin"), { recursive: true });
    const { ctx, manager } = await context('prefix_rule(pattern=["npm", "test"], decision="allow")\n', { approvalPolicy: "on-request" });
    const { launch } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(run(["npm", "test"], { env: { PATH: `${path.join(ws, "node_modules", ".bin")}:${hostBin}` } }), launch);
    expect(manager.calls[0]?.policy.mode).toBe("workspace-write");
    expect(out.trace.sandboxKept).toEqual(["path_entry"]);
  });

  it("a rule that names its own sandbox is not affected (it never lifted the sandbox)", async () => {
    plant(path.join(ws, "git"));
    const { ctx, manager } = await context('prefix_rule(pattern=["git", "commit"], decision="allow", sandbox="workspace-write")\n', { approvalPolicy: "on-request" });
    const { launch } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(run(["./git", "commit"]), launch);
    expect(out.trace.sandboxOverride).toBe("rule_sandbox");
    expect(out.trace.sandboxKept).toBeUndefined();
    expect(manager.calls[0]?.policy.mode).toBe("workspace-write");
  });
});

describe("an allow rule for git in a repository the sandbox could write", () => {
  const GIT_STATUS = 'prefix_rule(pattern=["git", "status"], decision="allow")\n';

  it("CONTROL: in the workspace's own repository (held read-only) it runs outside the sandbox", async () => {
    const { ctx, manager } = await context(GIT_STATUS, { approvalPolicy: "on-request" });
    const { launch } = scriptedLauncher([probe(0)]);
    await new ExecPipeline(ctx).run(run(["git", "status"]), launch);
    expect(manager.calls[0]?.policy.mode).toBe("danger-full-access");
  });

  it("in a nested repository the sandbox created it runs in the sandbox, with the reason", async () => {
    fs.mkdirSync(path.join(ws, "sub", ".git"), { recursive: true });
    const { ctx, manager } = await context(GIT_STATUS, { approvalPolicy: "on-request" });
    const { launch } = scriptedLauncher([probe(0)]);
    const out = await new ExecPipeline(ctx).run(run(["git", "status"], { cwd: path.join(ws, "sub") }), launch);
    expect(manager.calls[0]?.policy.mode).toBe("workspace-write");
    expect(out.sandboxKept?.found).toEqual([expect.objectContaining({ kind: "git_dir", path: path.join(ws, "sub", ".git") })]);
    expect(out.sandboxKept?.reason).toMatch(/can write/);
  });
});

describe("approval reasons name what a run outside the sandbox would execute", () => {
  it("an escalation request: the reason says the program is one the sandbox can write", async () => {
    plant(path.join(ws, "build"));
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = await context("", { approvalPolicy: "on-request", approvalHandler: handler });
    const { launch } = scriptedLauncher([probe(0)]);
    await new ExecPipeline(ctx).run(run(["./build"], { permissions: "require_escalated" }), launch);
    expect(requests[0]?.why.kind).toBe("escalation");
    expect(requests[0]?.reason).toContain(path.join(ws, "build"));
  });

  it("a retry outside the sandbox after a denial: the reason names it too", async () => {
    plant(path.join(ws, "build"));
    const { handler, requests } = scriptedHandler(["approved", "denied"]);
    const { ctx } = await context("", { approvalHandler: handler });
    const { launch } = scriptedLauncher([probe(1, "touch: cannot touch '/etc/x': Read-only file system")]);
    await new ExecPipeline(ctx).run(run(["./build"]), launch);
    expect(requests[1]?.retryAfterDenial).toBe(true);
    expect(requests[1]?.reason).toContain(path.join(ws, "build"));
  });

  it("\"always allow\" for `npm test` is not offered for `./npm test`", async () => {
    plant(path.join(ws, "npm"));
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = await context("", { approvalHandler: handler, userRulesFile: path.join(base, "user.rules") });
    const { launch } = scriptedLauncher([probe(0)]);
    await new ExecPipeline(ctx).run(run(["./npm", "test"], { prefixRule: ["npm", "test"] }), launch);
    expect(requests[0]?.proposedAmendment).toBeUndefined();
    expect(requests[0]?.offeredDecisions).not.toContain("approved_with_amendment");
  });

  it("CONTROL: for `npm test` itself it is offered", async () => {
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = await context("", { approvalHandler: handler, userRulesFile: path.join(base, "user.rules") });
    const { launch } = scriptedLauncher([probe(0)]);
    await new ExecPipeline(ctx).run(run(["npm", "test"], { prefixRule: ["npm", "test"] }), launch);
    expect(requests[0]?.proposedAmendment).toEqual(["npm", "test"]);
  });

  it("a workspace program named by its absolute path is not offered as its own amendment", async () => {
    plant(path.join(ws, "tool"));
    const { handler, requests } = scriptedHandler(["approved"]);
    const { ctx } = await context("", { approvalHandler: handler, userRulesFile: path.join(base, "user.rules") });
    const { launch } = scriptedLauncher([probe(0)]);
    await new ExecPipeline(ctx).run(run([path.join(ws, "tool"), "x"]), launch);
    expect(requests[0]?.proposedAmendment).toBeUndefined();
  });
});
