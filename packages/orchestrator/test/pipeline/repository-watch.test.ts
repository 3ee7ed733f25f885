// The pipeline looks for repositories a sandboxed run that could write left in its workspace. The
// fake manager here wraps nothing, so the launcher's own writes stand for what a sandboxed command
// could do; the search itself reads the real filesystem.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseSandboxPolicy, type ExecEnv } from "@shellgate/sandbox";
import type { OrchestratorEvent } from "../../src/events.js";
import { ExecPipeline } from "../support/internals.js";
import { makeContext, probe, request } from "../support/pipeline-fakes.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function workspace(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-orch-repos-")));
  dirs.push(dir);
  return dir;
}

const writePolicy = parseSandboxPolicy({ mode: "workspace-write", excludeSlashTmp: true, excludeTmpdirEnvVar: true });
const repositoryEvents = (events: OrchestratorEvent[]) => events.filter((e) => e.type === "exec.repositories");

describe("repositories a sandboxed run leaves behind", () => {
  it("a run that makes a repository: the exec.repositories event and runRepositories name it", async () => {
    const ws = workspace();
    const { ctx, events } = makeContext({ sandboxPolicy: writePolicy, approvalPolicy: "never", sandboxPolicyCwd: ws });
    const launch = async (_env: ExecEnv) => {
      fs.mkdirSync(path.join(ws, "pkg", "sub", ".git", "hooks"), { recursive: true });
      return { value: "done", probe: probe(0) };
    };
    const out = await new ExecPipeline(ctx).run(request({ cwd: ws }), launch);
    const sub = path.join(ws, "pkg", "sub");
    const expected = { repositories: [{ path: sub, gitPath: path.join(sub, ".git"), change: "created" }], complete: true };
    expect(out.runRepositories).toMatchObject(expected);
    expect(repositoryEvents(events)).toEqual([expect.objectContaining({ type: "exec.repositories", callId: "call-1", ...expected })]);
  });

  it("a run that makes none: no event, nothing in the outcome", async () => {
    const ws = workspace();
    const { ctx, events } = makeContext({ sandboxPolicy: writePolicy, approvalPolicy: "never", sandboxPolicyCwd: ws });
    const out = await new ExecPipeline(ctx).run(request({ cwd: ws }), async () => {
      fs.mkdirSync(path.join(ws, "plain"));
      return { value: "done", probe: probe(0) };
    });
    expect(out.runRepositories).toBeUndefined();
    expect(repositoryEvents(events)).toEqual([]);
  });

  it("a read-only run is not searched: it could not have written", async () => {
    const ws = workspace();
    const { ctx, events } = makeContext({ approvalPolicy: "never", sandboxPolicyCwd: ws });
    const out = await new ExecPipeline(ctx).run(request({ cwd: ws }), async () => {
      fs.mkdirSync(path.join(ws, "sub", ".git"), { recursive: true });
      return { value: "done", probe: probe(0) };
    });
    expect(out.runRepositories).toBeUndefined();
    expect(repositoryEvents(events)).toEqual([]);
  });

  it("a known-safe command is not searched: it cannot make a repository (control: the same run as `make` is)", async () => {
    const ws = workspace();
    const { ctx, events } = makeContext({ sandboxPolicy: writePolicy, approvalPolicy: "never", sandboxPolicyCwd: ws });
    const launch = (name: string) => async () => {
      fs.mkdirSync(path.join(ws, name, ".git"), { recursive: true });
      return { value: "done", probe: probe(0) };
    };
    for (const argv of [["ls", "-la"], ["bash", "-lc", "ls -la && cat README.md"]]) {
      const out = await new ExecPipeline(ctx).run(request({ cwd: ws, argv }), launch(argv[0]!));
      expect(out.runRepositories, argv.join(" ")).toBeUndefined();
    }
    expect(repositoryEvents(events)).toEqual([]);
    const out = await new ExecPipeline(ctx).run(request({ cwd: ws, argv: ["make", "all"] }), launch("made"));
    expect(out.runRepositories?.repositories.map((r) => path.basename(r.path))).toEqual(expect.arrayContaining(["made"]));
  });
});
