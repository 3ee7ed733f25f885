import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PolicyDiagnosticError } from "@shellgate/execpolicy";
import { PolicyStore } from "../support/internals.js";
import { ExecPipeline } from "../support/internals.js";
import { makeContext, probe, request, scriptedHandler, scriptedLauncher } from "../support/pipeline-fakes.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "shellgate-f2-rules-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("PolicyStore with real rules files", () => {
  it("amendAndReload appends an allow rule and the next evaluation sees it", async () => {
    const file = path.join(dir, "default.rules");
    await writeFile(file, 'prefix_rule(pattern=["ls"], decision="allow")\n');
    const store = await PolicyStore.load([file]);
    expect(store.policy?.evaluate(["cargo", "build"]).decision).toBeUndefined();
    expect(await store.amendAndReload(file, ["cargo", "build"])).toEqual({ added: true });
    expect(store.policy?.evaluate(["cargo", "build", "--release"]).decision).toBe("allow");
    expect(await readFile(file, "utf8")).toContain('prefix_rule(pattern=["cargo", "build"], decision="allow")');
    expect(await store.amendAndReload(file, ["cargo", "build"])).toEqual({ added: false });
  });

  it("a user rules file not yet loaded (nor existing) is created and joins the list last", async () => {
    const project = path.join(dir, "project.rules");
    await writeFile(project, 'prefix_rule(pattern=["make"], decision="prompt")\n');
    const user = path.join(dir, "rules", "default.rules");
    const store = await PolicyStore.load([project]);
    await store.amendAndReload(user, ["npm", "test"]);
    expect(store.files).toEqual([project, user]);
    expect(store.policy?.evaluate(["npm", "test"]).decision).toBe("allow");
    expect(store.policy?.evaluate(["make"]).decision).toBe("prompt");
  });

  it("a reload that fails to parse keeps the previous rules and names file:line", async () => {
    const file = path.join(dir, "default.rules");
    await writeFile(file, 'prefix_rule(pattern=["ls"], decision="allow")\n');
    const store = await PolicyStore.load([file]);
    await writeFile(file, 'prefix_rule(pattern=["ls"], decision="allow")\nprefix_rule(pattern=[], decision="allow")\n');
    const error = await store.reload().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyDiagnosticError);
    expect((error as PolicyDiagnosticError).file).toBe(file);
    expect((error as PolicyDiagnosticError).line).toBe(2);
    expect(store.policy?.evaluate(["ls"]).decision).toBe("allow");
  });

  it("no files means no rules", async () => {
    const store = await PolicyStore.load([]);
    expect(store.policy).toBeNull();
    await store.reload();
    expect(store.policy).toBeNull();
  });

  it("concurrent amendments are serialised and both land", async () => {
    const file = path.join(dir, "default.rules");
    const store = await PolicyStore.load([]);
    await Promise.all([store.amendAndReload(file, ["a1"]), store.amendAndReload(file, ["b2"]), store.amendAndReload(file, ["c3"])]);
    const text = await readFile(file, "utf8");
    expect(text.trim().split("\n")).toHaveLength(3);
    for (const p of ["a1", "b2", "c3"]) expect(store.policy?.evaluate([p]).decision).toBe("allow");
  });
});

describe("amendment round trip through the pipeline", () => {
  it("approve with amendment writes a sandboxed rule by default; the next identical call runs unasked, still in the sandbox", async () => {
    const userRules = path.join(dir, "rules", "default.rules");
    const store = await PolicyStore.load([]);
    const { handler, requests } = scriptedHandler(["approved_with_amendment"]);
    const { ctx, manager } = makeContext({ approvalHandler: handler, userRulesFile: userRules });
    const pipeline = new ExecPipeline({ ...ctx, policies: store });

    const first = await pipeline.run(request({ argv: ["cargo", "build"] }), scriptedLauncher([probe(0)]).launch);
    expect(first.admission.requirement).toEqual({ kind: "needs_approval", proposedAmendment: ["cargo", "build"] });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ amendmentSandbox: "read-only", amendmentBypassesSandbox: true });
    expect(await readFile(userRules, "utf8")).toBe('prefix_rule(pattern=["cargo", "build"], decision="allow", sandbox="read-only")\n');
    // This call ran in the sandbox: approval never lifts it.
    expect(manager.calls[0]?.policy.mode).toBe("read-only");

    const second = await pipeline.run(request({ callId: "call-2", argv: ["cargo", "build"] }), scriptedLauncher([probe(0)]).launch);
    expect(requests).toHaveLength(1);
    expect(second.admission.requirement).toEqual({ kind: "skip", bypassSandbox: true });
    expect(second.admission.matchedRules[0]?.source.file).toBe(userRules);
    // The rule allows without asking, but its sandbox keeps the command confined.
    expect(second.trace).toMatchObject({ approvalRequirement: "skip", reviewed: false, sandboxOverride: "rule_sandbox", initialSandbox: "linux" });
    expect(manager.calls[1]?.policy.mode).toBe("read-only");
  });

  it("sandboxed: false writes the plain Codex rule, whose commands then run outside the sandbox", async () => {
    const userRules = path.join(dir, "rules", "default.rules");
    const store = await PolicyStore.load([]);
    const { handler } = scriptedHandler([{ decision: "approved_with_amendment", amendment: ["cargo", "build"], sandboxed: false }]);
    const { ctx, manager } = makeContext({ approvalHandler: handler, userRulesFile: userRules });
    const pipeline = new ExecPipeline({ ...ctx, policies: store });
    await pipeline.run(request({ argv: ["cargo", "build"] }), scriptedLauncher([probe(0)]).launch);
    expect(await readFile(userRules, "utf8")).toBe('prefix_rule(pattern=["cargo", "build"], decision="allow")\n');
    const second = await pipeline.run(request({ callId: "call-2", argv: ["cargo", "build"] }), scriptedLauncher([probe(0)]).launch);
    expect(second.trace).toMatchObject({ sandboxOverride: "bypass_by_rule", initialSandbox: "none" });
    expect(manager.calls[1]?.policy.mode).toBe("danger-full-access");
  });

  it("a rules file that cannot be written is a configuration error naming userRulesFile; nothing runs", async () => {
    const userRules = path.join(dir, "missing", "deeper", "default.rules");
    const { handler } = scriptedHandler(["approved_with_amendment"]);
    const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: userRules });
    const { launch, envs } = scriptedLauncher([]);
    const pipeline = new ExecPipeline({ ...ctx, policies: await PolicyStore.load([]) });
    await expect(pipeline.run(request({ argv: ["cargo", "build"] }), launch)).rejects.toThrow(/userRulesFile: cannot add the approved rule: failed to create policy directory/);
    expect(envs).toHaveLength(0);
  });

  it("the handler may name its own amendment", async () => {
    const userRules = path.join(dir, "default.rules");
    const store = await PolicyStore.load([]);
    // Not bare `cargo`: it reaches `cargo --config …` and every subcommand, so it is refused as an amendment.
    const { handler } = scriptedHandler([{ decision: "approved_with_amendment", amendment: ["cargo", "test"] }]);
    const { ctx } = makeContext({ approvalHandler: handler, userRulesFile: userRules });
    const pipeline = new ExecPipeline({ ...ctx, policies: store });
    await pipeline.run(request({ argv: ["cargo", "build"] }), scriptedLauncher([probe(0)]).launch);
    const next = await pipeline.run(request({ argv: ["cargo", "test"] }), scriptedLauncher([probe(0)]).launch);
    expect(next.admission.requirement.kind).toBe("skip");
  });
});
