// transform's sequence through a fake Win32 layer: capability SIDs → ACL grants/denies (NUL
// included) → placeholders → runner (token → job with kill-on-close → process → job → resume →
// wait) → revoke after the run unless kept. Proves order and arguments, not Windows' behaviour.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fileSidStore, memorySidStore, WindowsSandboxError, type AceRecord } from "../src/index.js";
import { accessMask, createFakeWin32Api, parseRunnerRequest, runRestricted } from "../src/testing.js";
import { onWindows, spec, TEMP, WS, ww } from "./support.js";

const tree = { [WS]: { ".git": {} }, [TEMP]: {} };

describe("transform with the fake Win32 layer", () => {
  it("sets up ACLs, hands the runner a request with real SIDs, and revokes every ACE afterwards", async () => {
    const api = createFakeWin32Api({ exitCode: 3 });
    const backend = onWindows(tree, { win32Api: api });
    const env = await backend.transform(spec(), ww(), { sandboxPolicyCwd: WS });
    expect(env).toMatchObject({ sandboxType: "windows", isolation: "restricted-token+acl; network: advisory (env)", cwd: WS });
    expect(env.env).toMatchObject({ CODEX_SANDBOX: "windows", CODEX_SANDBOX_NETWORK_DISABLED: "1", HTTPS_PROXY: "http://127.0.0.1:9", TEMP });
    expect(env.argv.slice(0, 3)).toEqual(["C:\\Program Files\\nodejs\\node.exe", expect.stringMatching(/runner\.js$/), "--request"]);

    const request = parseRunnerRequest(env.argv.slice(2));
    const sids = request.capabilities.map((c) => c.sid);
    expect(request.capabilities.map((c) => c.role)).toEqual(["workspace", "cwd"]);
    for (const sid of sids) expect(sid).toMatch(/^S-1-5-21-\d+-\d+-\d+-\d+$/);
    const [workspaceSid, cwdSid] = sids as [string, string];

    const host = api.calls.map((c) => c.call);
    expect(host[0]).toBe("createDirectory"); // placeholders first
    const aces = api.calls.filter((c) => c.call === "addAce").map((c) => c.args[0] as AceRecord);
    // the cwd root gets the per-cwd SID, TEMP the workspace SID
    expect(aces.filter((a) => a.mode === "grant" && a.path === `\\\\?\\${WS}`).map((a) => a.sid)).toEqual([cwdSid, cwdSid]);
    expect(aces.filter((a) => a.mode === "grant" && a.path === `\\\\?\\${TEMP}`).map((a) => a.sid)).toEqual([workspaceSid, workspaceSid]);
    // every protected path denied for both SIDs, the NUL device granted last
    const gitDenies = aces.filter((a) => a.mode === "deny" && a.path === `\\\\?\\${WS}\\.git`);
    expect(gitDenies.map((a) => a.sid)).toEqual([workspaceSid, cwdSid]);
    expect(gitDenies[0]?.mask).toBe(accessMask(["FILE_WRITE_DATA", "FILE_APPEND_DATA", "FILE_WRITE_EA", "FILE_WRITE_ATTRIBUTES", "DELETE", "FILE_DELETE_CHILD", "WRITE_DAC", "WRITE_OWNER"]));
    expect(aces.slice(-2)).toEqual([
      expect.objectContaining({ path: "\\\\.\\NUL", mode: "grant", sid: workspaceSid }),
      expect.objectContaining({ path: "\\\\.\\NUL", mode: "grant", sid: cwdSid }),
    ]);
    const lastDeny = host.lastIndexOf("addAce");
    expect(host.slice(lastDeny + 1).filter((c) => c === "writeFile")).toHaveLength(4); // ssh/scp .cmd/.bat after the ACEs

    // the runner's part, against the same fake
    const before = api.calls.length;
    const code = await runRestricted(request, api, env.env);
    expect(code).toBe(3);
    const runner = api.calls.slice(before);
    expect(runner.map((c) => c.call)).toEqual([
      "createRestrictedToken", "createJobObject", "createProcessAsUser", "assignProcessToJob", "resumeThread", "waitForExit",
      "closeHandle", "closeHandle", "closeHandle", "closeHandle",
    ]);
    expect(runner[0]?.args).toEqual([["DISABLE_MAX_PRIVILEGE", "LUA_TOKEN", "WRITE_RESTRICTED"], sids]);
    expect(runner[1]?.args[0]).toContain("JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE");
    expect(runner[2]?.args[0]).toMatchObject({ commandLine: 'cmd.exe /c "echo hi"', cwd: WS, flags: expect.arrayContaining(["CREATE_SUSPENDED"]) });
    expect(api.closed.at(-1)?.kind).toBe("job"); // the job closes last: whatever is left of the tree dies

    expect(api.aces.length).toBeGreaterThan(0);
    await env.cleanup?.();
    await env.cleanup?.(); // safe twice
    expect(api.aces).toEqual([]);
    expect([...api.created].filter((p) => !p.includes("denybin"))).toEqual([]);
    expect(api.calls.filter((c) => c.call === "removeAce")).toHaveLength(aces.length);
  });

  it("keeps the ACEs on the roots for the workspace when told to; placeholders still go", async () => {
    const api = createFakeWin32Api();
    const env = await onWindows(tree, { win32Api: api, keepAcls: true }).transform(spec(), ww(), { sandboxPolicyCwd: WS });
    const count = api.aces.length;
    await env.cleanup?.();
    expect(api.aces.length).toBeGreaterThan(0);
    expect(api.aces.length).toBeLessThan(count);
    expect(api.aces.some((a) => a.path.endsWith("\\.codex"))).toBe(false);
    expect(api.aces.some((a) => a.path.endsWith("\\.git"))).toBe(true);
    expect([...api.created].filter((p) => p.endsWith(".codex"))).toEqual([]);
  });

  it("concurrent runs share ACEs and placeholders: only the last one takes them off", async () => {
    const api = createFakeWin32Api();
    const backend = onWindows(tree, { win32Api: api });
    const a = await backend.transform(spec(), ww(), { sandboxPolicyCwd: WS });
    const b = await backend.transform(spec(), ww(), { sandboxPolicyCwd: WS });
    expect(api.calls.filter((c) => c.call === "createDirectory" && c.args[0] === `\\\\?\\${WS}\\.codex`)).toHaveLength(1);
    await a.cleanup?.();
    expect(api.aces.length).toBeGreaterThan(0);
    await b.cleanup?.();
    expect(api.aces).toEqual([]);
  });

  it("a failing ACL step rolls back what was added and throws a typed error; nothing is returned to run", async () => {
    const api = createFakeWin32Api({ failOn: { call: "addAce", path: `\\\\?\\${WS}\\.git` } });
    const error = await onWindows(tree, { win32Api: api }).transform(spec(), ww(), { sandboxPolicyCwd: WS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WindowsSandboxError);
    expect(error).toMatchObject({ code: "SANDBOX_TRANSFORM_FAILED", failure: "setup-failed" });
    expect(api.aces).toEqual([]);
    expect(api.created.size).toBe(0);
  });

  it("refuses a runner that lies inside a writable root", async () => {
    const t = { ...tree, "C:\\tools": { sg: {} } };
    const backend = onWindows(t, { win32Api: createFakeWin32Api(), runnerPath: "C:\\tools\\sg\\runner.js" });
    await expect(backend.transform(spec(), ww({ writableRoots: ["C:\\tools"] }), { sandboxPolicyCwd: WS })).rejects.toMatchObject({ failure: "untrusted-binary" });
  });

  it("read-only: one readonly SID, granted on NUL only", async () => {
    const api = createFakeWin32Api();
    const env = await onWindows(tree, { win32Api: api }).transform(spec(), { mode: "read-only", deniedReadPaths: [] } as never, { sandboxPolicyCwd: WS });
    const req = parseRunnerRequest(env.argv.slice(2));
    expect(req.capabilities.map((c) => c.role)).toEqual(["readonly"]);
    expect(api.aces.map((a) => a.path)).toEqual(["\\\\.\\NUL"]);
    await env.cleanup?.();
  });

  it("off Windows without an injected layer: unavailable, typed", async () => {
    const { createWindowsSandboxBackend } = await import("../src/index.js");
    await expect(createWindowsSandboxBackend({ platform: "linux" }).transform({ argv: ["x"], cwd: "/w", env: {} }, ww(), { sandboxPolicyCwd: "/w" })).rejects.toMatchObject({ failure: "unavailable" });
  });
});

describe("the runner", () => {
  it("refuses a plan's placeholder SIDs: a token that restricts nothing is never made", () => {
    const req = JSON.stringify({ v: 1, commandLine: "x", cwd: "C:\\", capabilities: [{ role: "cwd", sid: "<capability:cwd>" }], tokenFlags: [], jobLimits: [], processFlags: [] });
    expect(() => parseRunnerRequest(["--request", req])).toThrow(/placeholders/);
    expect(() => parseRunnerRequest([])).toThrow(/missing/);
  });

  it("closes the job even when the process cannot be created", async () => {
    const api = createFakeWin32Api({ failOn: { call: "createProcessAsUser" } });
    const req = parseRunnerRequest(["--request", JSON.stringify({ v: 1, commandLine: "x", cwd: "C:\\", capabilities: [{ role: "cwd", sid: "S-1-5-21-1-2-3-4" }], tokenFlags: [], jobLimits: [], processFlags: [] })]);
    await expect(runRestricted(req, api, {})).rejects.toThrow(/simulated/);
    expect(api.closed.map((h) => h.kind)).toEqual(["token", "job"]);
  });
});

describe("capability SID store", () => {
  it("one SID per workspace and per cwd, stable across store instances (a JSON file), case-insensitive keys", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sg-sids-"));
    try {
      const file = path.join(dir, "nested", "capability-sids.json");
      const a = await fileSidStore(file).sidsFor(WS, WS);
      const b = await fileSidStore(file).sidsFor(WS.toUpperCase(), `${WS}\\SRC`);
      expect(b.workspace).toBe(a.workspace);
      expect(b.cwd).not.toBe(a.cwd);
      expect(b.readonly).toBe(a.readonly);
      expect((await fileSidStore(file).sidsFor(WS, WS)).cwd).toBe(a.cwd);
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ version: 1 });
      fs.writeFileSync(file, "{}");
      await expect(fileSidStore(file).sidsFor(WS, WS)).rejects.toThrow(/not a shellgate capability SID store/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the memory store keeps SIDs for the backend's life", async () => {
    const s = memorySidStore();
    expect((await s.sidsFor("C:\\a", "C:\\a")).workspace).toBe((await s.sidsFor("c:\\A", "C:\\a\\b")).workspace);
  });
});
