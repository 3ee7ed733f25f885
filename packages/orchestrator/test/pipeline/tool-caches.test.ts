// The pipeline gives sandboxed attempts the sandbox's own tool caches, and never an unsandboxed one.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ExecPipeline } from "../support/internals.js";
import { makeContext, probe, request, scriptedHandler, scriptedLauncher } from "../support/pipeline-fakes.js";

const made: string[] = [];
afterAll(() => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "sg-pipe-caches-")));
  made.push(d);
  return d;
};
const WORKSPACE_WRITE = { mode: "workspace-write" as const, writableRoots: [] as string[], networkAccess: false, excludeTmpdirEnvVar: true, excludeSlashTmp: true, deniedReadPaths: [] as string[] };
const DENIED = "touch: cannot touch 'x': Read-only file system";

describe("tool caches in the pipeline", () => {
  it("the sandboxed attempt gets the cache as a writable root and the variables; the unsandboxed retry keeps the host's", async () => {
    const [cwd, base] = [temp(), temp()];
    const dir = path.join(base, "shellgate-sandbox");
    const { handler } = scriptedHandler(["approved", "approved"]);
    const { ctx, manager } = makeContext({ approvalHandler: handler, sandboxPolicy: { ...WORKSPACE_WRITE }, toolCacheDir: dir, sandboxPolicyCwd: cwd });
    const { launch } = scriptedLauncher([probe(1, DENIED), probe(0)]);
    const hostCache = path.join(base, "host-npm");
    await new ExecPipeline(ctx).run(request({ cwd, env: { PATH: "/usr/bin", npm_config_cache: hostCache } }), launch);
    const [sandboxed, retry] = manager.calls;
    expect(sandboxed?.policy).toMatchObject({ mode: "workspace-write", writableRoots: [dir] });
    expect(sandboxed?.spec.env).toMatchObject({ npm_config_cache: path.join(dir, "npm"), GOCACHE: path.join(dir, "go", "build"), CARGO_HOME: path.join(dir, "cargo") });
    expect(retry?.policy.mode).toBe("danger-full-access");
    expect(retry?.spec.env).toEqual({ PATH: "/usr/bin", npm_config_cache: hostCache });
  });

  it("without a cache directory (or under read-only) the run is unchanged", async () => {
    const cwd = temp();
    const { ctx, manager } = makeContext({ approvalPolicy: "never", sandboxPolicy: { ...WORKSPACE_WRITE }, sandboxPolicyCwd: cwd });
    await new ExecPipeline(ctx).run(request({ cwd }), scriptedLauncher([probe(0)]).launch);
    expect(manager.calls[0]?.policy).toMatchObject({ writableRoots: [] });
    expect(manager.calls[0]?.spec.env).toEqual({ PATH: "/usr/bin" });
    const ro = makeContext({ approvalPolicy: "never", toolCacheDir: path.join(temp(), "c"), sandboxPolicyCwd: cwd });
    await new ExecPipeline(ro.ctx).run(request({ cwd }), scriptedLauncher([probe(0)]).launch);
    expect(ro.manager.calls[0]?.policy.mode).toBe("read-only");
    expect(ro.manager.calls[0]?.spec.env).toEqual({ PATH: "/usr/bin" });
  });
});
