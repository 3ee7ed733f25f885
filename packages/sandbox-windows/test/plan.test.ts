// The plan for every policy shape, on Windows paths, with a described Windows tree: pure, so it
// runs on any host and is what the dry run prints.
import { describe, expect, it } from "vitest";
import { parseSandboxPolicy, SandboxManager, UnpinnableProtectedPathError, InvalidSandboxPathError } from "@shellgate/sandbox";
import { createWindowsSandboxBackend, WindowsSandboxError } from "../src/index.js";
import { onWindows, readOnlyPaths, spec, steps, TEMP, writablePaths, WS, ww } from "./support.js";

const tree = { [WS]: { ".git": {}, src: {} }, [TEMP]: {}, "D:\\cache": {}, "C:\\Program Files\\nodejs": {} };

describe("workspace-write", () => {
  it("without network: the cwd (per-cwd SID) and TEMP writable, metadata read-only, advisory network block", async () => {
    const plan = await onWindows(tree).plan(spec(), ww(), { sandboxPolicyCwd: WS });
    expect(plan).toMatchObject({ backend: "windows", sandboxType: "windows", isolation: "restricted-token+acl; network: advisory (env)" });
    expect(plan.plan["writable"]).toEqual([
      { path: WS, capability: "cwd", source: "cwd", form: "drive", exists: true },
      { path: TEMP, capability: "workspace", source: "temp", form: "drive", exists: true },
    ]);
    expect(readOnlyPaths(plan)).toEqual(expect.arrayContaining([`${WS}\\.git`, `${WS}\\.codex`, `${WS}\\.shellgate`, `${WS}\\.agents`, `${TEMP}\\.git`]));
    expect(plan.plan["network"]).toBe("blocked");
    expect(plan.plan["networkEnforcement"]).toBe("advisory-env");
    expect(plan.env).toMatchObject({ HTTP_PROXY: "http://127.0.0.1:9", HTTPS_PROXY: "http://127.0.0.1:9", NPM_CONFIG_OFFLINE: "true", PIP_NO_INDEX: "1", CARGO_NET_OFFLINE: "true", SBX_NONET_ACTIVE: "1" });
    // PATH is found under its Windows spelling, the deny-bin first; .BAT/.CMD lead PATHEXT
    expect(plan.env["Path"]).toBe("C:\\Users\\me\\AppData\\Local\\shellgate\\sandbox\\denybin;C:\\Windows\\System32");
    expect(plan.env["PATHEXT"]?.startsWith(".BAT;.CMD;")).toBe(true);
    expect(plan.plan["token"]).toEqual({ api: "CreateRestrictedToken", flags: ["DISABLE_MAX_PRIVILEGE", "LUA_TOKEN", "WRITE_RESTRICTED"], restrictingSids: ["workspace", "cwd"] });
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
  });

  it("orders the steps: SIDs, placeholders, grants, denies, NUL, deny-bin, token, job, process, revoke", async () => {
    const plan = await onWindows(tree).plan(spec(), ww(), { sandboxPolicyCwd: WS });
    const kinds = steps(plan).map((s) => s["step"]);
    const first = (k: string) => kinds.indexOf(k);
    expect(kinds[0]).toBe("capability-sids");
    expect(first("create-placeholder")).toBeLessThan(first("grant-ace"));
    expect(first("grant-ace")).toBeLessThan(first("deny-ace"));
    const nul = steps(plan).findIndex((s) => s["path"] === "\\\\.\\NUL");
    expect(nul).toBeGreaterThan(kinds.lastIndexOf("deny-ace"));
    expect(kinds.slice(nul + 1)).toEqual(["write-denybin", "create-restricted-token", "create-job-object", "create-process", "assign-to-job", "resume-thread", "wait-for-exit", "revoke-aces", "remove-placeholders"]);
    expect(steps(plan).find((s) => s["step"] === "create-job-object")).toMatchObject({ limits: expect.arrayContaining(["JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE"]) });
    expect(steps(plan).find((s) => s["step"] === "create-process")).toMatchObject({ api: "CreateProcessAsUserW", flags: expect.arrayContaining(["CREATE_SUSPENDED"]), commandLine: 'cmd.exe /c "echo hi"' });
    // the existing .git is denied in place; the missing .codex is held by a placeholder
    expect(steps(plan).filter((s) => s["step"] === "deny-ace").map((s) => s["path"])).toEqual(expect.arrayContaining([`${WS}\\.git`, `${WS}\\.codex`]));
    expect(steps(plan).filter((s) => s["step"] === "create-placeholder").map((s) => s["path"])).toEqual(expect.arrayContaining([`${WS}\\.codex`, `${WS}\\.agents`, `${WS}\\.shellgate`]));
    expect(steps(plan).filter((s) => s["step"] === "create-placeholder").map((s) => s["path"])).not.toContain(`${WS}\\.git`);
    // a root's own grant has no DELETE, its children's has
    const grants = steps(plan).filter((s) => s["step"] === "grant-ace" && s["path"] === WS);
    expect(grants.map((g) => [g["inheritance"], (g["rights"] as string[]).includes("DELETE")])).toEqual([["this-object-only", false], ["children-only", true]]);
  });

  it("with network: allowed, no proxy variables, no deny-bin", async () => {
    const plan = await onWindows(tree).plan(spec(), ww({ networkAccess: true }), { sandboxPolicyCwd: WS });
    expect(plan.isolation).toBe("restricted-token+acl; network: allowed");
    expect(plan.plan["network"]).toBe("allowed");
    expect(plan.plan["networkEnforcement"]).toBe("none");
    expect(plan.env).toEqual({});
    expect(steps(plan).map((s) => s["step"])).not.toContain("write-denybin");
  });

  it("extra writable roots get the workspace SID; TEMP is left out with excludeTmpdirEnvVar", async () => {
    const plan = await onWindows(tree).plan(spec(), ww({ writableRoots: ["d:/cache"], excludeTmpdirEnvVar: true }), { sandboxPolicyCwd: WS });
    expect(plan.plan["writable"]).toEqual([
      { path: "D:\\cache", capability: "workspace", source: "writableRoots", form: "drive", exists: true },
      { path: WS, capability: "cwd", source: "cwd", form: "drive", exists: true },
    ]);
  });

  it("a missing or file writable root is refused with the field", async () => {
    await expect(onWindows(tree).plan(spec(), ww({ writableRoots: ["E:\\nowhere"] }), { sandboxPolicyCwd: WS })).rejects.toMatchObject({ code: "SANDBOX_INVALID_PATH", field: "writableRoots.0" });
    const withFile = { ...tree, "D:\\file.txt": "x" };
    await expect(onWindows(withFile).plan(spec(), ww({ writableRoots: ["D:\\file.txt"] }), { sandboxPolicyCwd: WS })).rejects.toBeInstanceOf(InvalidSandboxPathError);
  });

  it("carve-outs existing and not: existing ones keep their on-disk case (.GIT), missing ones get a placeholder", async () => {
    const t = { [WS]: { ".GIT": {}, ".Codex": {} }, [TEMP]: {} };
    const plan = await onWindows(t).plan(spec(), ww(), { sandboxPolicyCwd: WS });
    const ro = plan.plan["readOnly"] as Array<{ path: string; exists: boolean; placeholder?: string }>;
    expect(ro.find((c) => c.path === `${WS}\\.GIT`)).toMatchObject({ exists: true });
    expect(ro.find((c) => c.path === `${WS}\\.Codex`)).toMatchObject({ exists: true });
    expect(ro.find((c) => c.path === `${WS}\\.agents`)).toMatchObject({ exists: false, placeholder: `${WS}\\.agents` });
    // a lower-case .git is never planned next to the existing .GIT
    expect(ro.filter((c) => c.path.toLowerCase() === `${WS}\\.git`.toLowerCase())).toHaveLength(1);
  });

  it("a .git file's gitdir target (forward slashes, relative) and its commondir are read-only too", async () => {
    const t = {
      [WS]: { ".git": "gitdir: ../main/.git/worktrees/project\n" },
      "C:\\Users\\me\\main": { ".git": { worktrees: { project: { commondir: "../..\n" } } } },
      [TEMP]: {},
    };
    const plan = await onWindows(t).plan(spec(), ww({ writableRoots: ["C:\\Users\\me\\main"] }), { sandboxPolicyCwd: WS });
    const ro = plan.plan["readOnly"] as Array<{ path: string; reason: string; root: string }>;
    expect(ro).toEqual(expect.arrayContaining([
      expect.objectContaining({ path: "C:\\Users\\me\\main\\.git\\worktrees\\project", reason: "gitdir", root: "C:\\Users\\me\\main" }),
      expect.objectContaining({ path: `${WS}\\.git`, reason: "metadata" }),
    ]));
    // the common dir is C:\Users\me\main\.git itself, already a metadata carve-out of that root
    expect(readOnlyPaths(plan)).toContain("C:\\Users\\me\\main\\.git");
    expect(plan.plan["pinned"]).toEqual(expect.arrayContaining(["C:\\Users\\me\\main\\.git\\worktrees"]));
  });

  it("a gitdir with an absolute drive path outside every root adds nothing writable to protect", async () => {
    const t = { [WS]: { ".git": "gitdir: D:/repos/x/.git/worktrees/ws" }, [TEMP]: {} };
    const plan = await onWindows(t).plan(spec(), ww(), { sandboxPolicyCwd: WS });
    expect(readOnlyPaths(plan).some((p) => p.startsWith("D:"))).toBe(false);
  });

  it("a writable root inside a protected path (mixed-case .GIT\\hooks) is dropped, with the reason", async () => {
    const t = { [WS]: { ".git": { hooks: {} } }, [TEMP]: {} };
    const plan = await onWindows(t).plan(spec(), ww({ writableRoots: [`${WS}\\.GIT\\hooks`] }), { sandboxPolicyCwd: WS });
    expect(writablePaths(plan)).not.toContain(`${WS}\\.git\\hooks`);
    expect(writablePaths(plan)).not.toContain(`${WS}\\.GIT\\hooks`);
    expect(plan.plan["droppedRoots"]).toEqual([expect.objectContaining({ path: `${WS}\\.git\\hooks` })]);
  });

  it("caller's protected paths (policy files) are denied, nested ones pin the directories above them", async () => {
    const t = { [WS]: { config: { rules: {} } }, [TEMP]: {} };
    const plan = await onWindows(t).plan(spec(), ww(), { sandboxPolicyCwd: WS, protectedPaths: [`${WS}\\config\\rules\\default.rules`] });
    expect(plan.plan["readOnly"]).toEqual(expect.arrayContaining([expect.objectContaining({ path: `${WS}\\config\\rules\\default.rules`, reason: "protected", exists: false })]));
    expect(plan.plan["pinned"]).toEqual([`${WS}\\config`, `${WS}\\config\\rules`]);
    expect(steps(plan).filter((s) => s["step"] === "deny-ace" && (s["rights"] as string[]).join() === "DELETE").map((s) => s["path"])).toEqual([`${WS}\\config`, `${WS}\\config\\rules`]);
  });

  it("a protected path reached through a junction in a writable directory is refused", async () => {
    const t = { [WS]: { ".git": { $junction: "D:\\elsewhere\\.git" } }, [TEMP]: {} };
    await expect(onWindows(t).plan(spec(), ww(), { sandboxPolicyCwd: WS })).rejects.toBeInstanceOf(UnpinnableProtectedPathError);
    const viaDir = { [WS]: { cfg: { $symlink: "D:\\cfg" } }, [TEMP]: {} };
    await expect(onWindows(viaDir).plan(spec(), ww(), { sandboxPolicyCwd: WS, protectedPaths: [`${WS}\\cfg\\policy.rules`] })).rejects.toMatchObject({ code: "SANDBOX_UNPINNABLE_PATH", link: `${WS}\\cfg` });
  });

  it("a junction root: the ACEs go on its target, and the plan says so", async () => {
    const t = { "C:\\link": { $junction: "D:\\real" }, "D:\\real": {}, [WS]: {}, [TEMP]: {} };
    const plan = await onWindows(t).plan(spec(), ww({ writableRoots: ["C:\\link"] }), { sandboxPolicyCwd: WS });
    expect(plan.plan["writable"]).toEqual(expect.arrayContaining([expect.objectContaining({ path: "D:\\real", via: "C:\\link" })]));
    expect(steps(plan).some((s) => s["step"] === "grant-ace" && s["path"] === "D:\\real")).toBe(true);
    expect(steps(plan).some((s) => s["path"] === "C:\\link")).toBe(false);
    expect(plan.plan["notes"]).toEqual(expect.arrayContaining([expect.stringContaining("junction")]));
  });

  it("UNC and \\\\?\\ roots are canonical and deduplicated case-insensitively with the cwd", async () => {
    const t = { "\\\\fs01\\team\\proj": {}, [WS]: {}, [TEMP]: {} };
    const plan = await onWindows(t).plan(spec(), ww({ writableRoots: ["\\\\?\\UNC\\fs01\\team\\proj", "//FS01/Team/Proj", `\\\\?\\${WS.toUpperCase()}`] }), { sandboxPolicyCwd: WS });
    expect(plan.plan["writable"]).toEqual([
      expect.objectContaining({ path: "\\\\fs01\\team\\proj", form: "long-unc", capability: "workspace" }),
      expect.objectContaining({ path: WS, source: "cwd", capability: "cwd" }),
      expect.objectContaining({ path: TEMP }),
    ]);
    expect(readOnlyPaths(plan)).toContain("\\\\fs01\\team\\proj\\.git");
  });

  it("paths with spaces and non-ASCII letters; the runner argv carries the command line, quoted", async () => {
    const ws = "C:\\Users\\José Müller\\my project";
    const t = { [ws]: {}, [TEMP]: {} };
    const plan = await onWindows(t).plan(spec(ws, { TEMP }, ["python", "-c", 'print("a b")']), ww(), { sandboxPolicyCwd: ws });
    expect(writablePaths(plan)[0]).toBe(ws);
    expect(plan.argv.slice(0, 3)).toEqual(["C:\\Program Files\\nodejs\\node.exe", "C:\\Program Files\\shellgate\\node_modules\\@shellgate\\sandbox-windows\\dist\\runner.js", "--request"]);
    const request = JSON.parse(plan.argv[3] as string);
    expect(request).toMatchObject({ v: 1, commandLine: 'python -c "print(\\"a b\\")"', cwd: ws, capabilities: [{ role: "workspace", sid: "<capability:workspace>" }, { role: "cwd", sid: "<capability:cwd>" }] });
  });

  it("another spelling of a proxy variable is removed (Windows names are case-insensitive); a set offline flag is kept", async () => {
    const plan = await onWindows(tree).plan(spec(WS, { TEMP, http_proxy: "http://corp:3128", NPM_CONFIG_OFFLINE: "false" }), ww(), { sandboxPolicyCwd: WS });
    expect(plan.unsetEnv).toEqual(["http_proxy"]);
    expect(plan.env["HTTP_PROXY"]).toBe("http://127.0.0.1:9");
    expect(plan.env["NPM_CONFIG_OFFLINE"]).toBeUndefined();
  });

  it("maps /dev/null values to NUL", async () => {
    const plan = await onWindows(tree).plan(spec(WS, { TEMP, GIT_CONFIG_GLOBAL: "/dev/null" }), ww({ networkAccess: true }), { sandboxPolicyCwd: WS });
    expect(plan.env).toEqual({ GIT_CONFIG_GLOBAL: "NUL" });
  });

  it("the backend's own files are read-only when they lie in a root; runner inside a root is refused at transform", async () => {
    const t = { "C:\\tools": { sg: {} }, [WS]: {}, [TEMP]: {} };
    const backend = onWindows(t, { runnerPath: "C:\\tools\\sg\\runner.js" });
    const plan = await backend.plan(spec(), ww({ writableRoots: ["C:\\tools"] }), { sandboxPolicyCwd: WS });
    expect(readOnlyPaths(plan)).toContain("C:\\tools\\sg");
  });
});

describe("workspace-write: what git would run or read", () => {
  const config = [
    "[core]",
    "\thooksPath = .husky/_",
    "\tfsmonitor = ./tools/fsmonitor.cmd",
    "[include]",
    "\tpath = ../team.gitconfig",
    '[filter "x"]',
    "\tclean = node ./tools/clean.js",
  ].join("\n");

  it("holds husky's hooks directory, included config, and the programs config names, with reason git-config", async () => {
    const t = {
      [WS]: { ".git": { config }, ".husky": { _: {} }, tools: { "clean.js": "" }, "team.gitconfig": "[core]\n\tsshCommand = ./tools/ssh.cmd\n" },
      [TEMP]: {},
    };
    const plan = await onWindows(t).plan(spec(), ww(), { sandboxPolicyCwd: WS });
    const ro = plan.plan["readOnly"] as Array<{ path: string; reason: string; exists: boolean; placeholder?: string }>;
    for (const held of [".husky\\_", "tools\\fsmonitor.cmd", "team.gitconfig", "tools\\clean.js", "tools\\ssh.cmd"]) {
      expect(ro, held).toEqual(expect.arrayContaining([expect.objectContaining({ path: `${WS}\\${held}`, reason: "git-config" })]));
    }
    // a missing program is held by a placeholder like any missing carve-out
    expect(ro.find((c) => c.path === `${WS}\\tools\\fsmonitor.cmd`)).toMatchObject({ exists: false, placeholder: `${WS}\\tools\\fsmonitor.cmd` });
  });

  it("the user's global config is read from USERPROFILE, its includes too", async () => {
    const t = {
      [WS]: { ".git": { config: "" } },
      "C:\\Users\\me": { ".gitconfig": `[include]\n\tpath = ${WS.replaceAll("\\", "/")}/shared.gitconfig\n` },
      [TEMP]: {},
    };
    const plan = await onWindows(t).plan(spec(WS, { TEMP, USERPROFILE: "C:\\Users\\me" }), ww(), { sandboxPolicyCwd: WS });
    expect(readOnlyPaths(plan)).toContain(`${WS}\\shared.gitconfig`);
  });

  it("a hooks directory reached through a junction in the workspace refuses the plan, naming key and file", async () => {
    const t = { [WS]: { ".git": { config }, ".husky": { $junction: "D:\\elsewhere" } }, [TEMP]: {} };
    const error = await onWindows(t).plan(spec(), ww(), { sandboxPolicyCwd: WS }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UnpinnableProtectedPathError);
    expect((error as UnpinnableProtectedPathError).gitConfig).toMatchObject({ key: "core.hookspath", line: 2 });
  });

  it("an include reached through a junction is refused before it is read", async () => {
    const t = { [WS]: { ".git": { config: "[include]\n\tpath = ../inc/x.gitconfig\n" }, inc: { $junction: "D:\\elsewhere" } }, [TEMP]: {} };
    const error = await onWindows(t).plan(spec(), ww(), { sandboxPolicyCwd: WS }).then(() => undefined, (e: unknown) => e);
    expect((error as UnpinnableProtectedPathError).gitConfig?.key).toBe("include.path");
  });
});

describe("read-only", () => {
  it("no writable root, only the readonly capability, NUL granted, advisory network", async () => {
    const plan = await onWindows(tree).plan(spec(), parseSandboxPolicy({ mode: "read-only" }), { sandboxPolicyCwd: WS });
    expect(plan.isolation).toBe("restricted-token+acl (read-only); network: advisory (env)");
    expect(plan.plan["writable"]).toEqual([]);
    expect(plan.plan["readOnly"]).toEqual([]);
    expect(plan.plan["token"]).toMatchObject({ restrictingSids: ["readonly"] });
    const aces = steps(plan).filter((s) => s["step"] === "grant-ace" || s["step"] === "deny-ace");
    expect(aces).toEqual([expect.objectContaining({ step: "grant-ace", path: "\\\\.\\NUL", capabilities: ["readonly"] })]);
  });
});

describe("denied reads", () => {
  it("are refused without elevation: a typed error, never a plan with them readable", async () => {
    const policy = ww({ deniedReadPaths: ["C:\\Users\\me\\.ssh"] });
    const error = await onWindows(tree).plan(spec(), policy, { sandboxPolicyCwd: WS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WindowsSandboxError);
    expect(error).toMatchObject({ code: "SANDBOX_TRANSFORM_FAILED", backend: "windows", failure: "not-enforceable" });
    await expect(onWindows(tree).transform(spec(), policy, { sandboxPolicyCwd: WS })).rejects.toMatchObject({ failure: "not-enforceable" });
  });

  it("are planned with the elevated mode (sandbox user, deny-read ACEs, firewall); its transform refuses", async () => {
    const policy = ww({ deniedReadPaths: ["c:/Users/me/.ssh"] });
    const backend = onWindows(tree, { elevated: true });
    const plan = await backend.plan(spec(), policy, { sandboxPolicyCwd: WS });
    expect(plan.isolation).toBe("sandbox-user+acl; network: firewall");
    expect(plan.plan).toMatchObject({ identity: "sandbox-user", networkEnforcement: "firewall", deniedReadPaths: ["C:\\Users\\me\\.ssh"] });
    expect(steps(plan)).toEqual(expect.arrayContaining([
      expect.objectContaining({ step: "deny-ace", path: "C:\\Users\\me\\.ssh", capabilities: ["sandbox-user"], rights: ["GENERIC_READ", "GENERIC_EXECUTE"] }),
      expect.objectContaining({ step: "firewall-block" }),
    ]));
    await expect(backend.transform(spec(), policy, { sandboxPolicyCwd: WS })).rejects.toMatchObject({ failure: "not-implemented" });
  });
});

describe("policies with nothing to enforce", () => {
  it.each(["danger-full-access", "external-sandbox"])("%s: the command as it is", async (mode) => {
    const plan = await onWindows(tree).plan(spec(), parseSandboxPolicy({ mode }), { sandboxPolicyCwd: WS });
    expect(plan).toMatchObject({ sandboxType: "none", isolation: "none", argv: ["cmd.exe", "/c", "echo hi"] });
  });
});

describe("planning off Windows", () => {
  it("POSIX paths are read as rooted paths on the current drive; nothing on disk is read", async () => {
    const backend = createWindowsSandboxBackend();
    const plan = await backend.plan({ argv: ["echo", "hi"], cwd: "/work/main", env: { TMPDIR: "/tmp/x" } }, ww(), { sandboxPolicyCwd: "/work/main", protectedPaths: ["/root/.config/shellgate"] });
    expect(writablePaths(plan)).toEqual(["\\work\\main", "\\tmp\\x"]);
    expect(plan.plan["writable"]).toEqual(expect.arrayContaining([expect.objectContaining({ form: "rooted-no-drive", exists: "unknown" })]));
    expect(plan.plan["readOnly"]).toEqual(expect.arrayContaining([expect.objectContaining({ path: "\\work\\main\\.git", exists: "unknown" })]));
    expect(plan.plan["assumed"]).toMatchObject({ hostPlatform: process.platform, fsView: "unknown" });
    expect(plan.env["PATH"]).toBe("%LOCALAPPDATA%\\shellgate\\sandbox\\denybin");
  });

  it("through a manager on Linux: the markers a run would get", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(createWindowsSandboxBackend());
    // the manager validates the spec with the host's path rules, so a Linux path here
    const plan = await manager.plan({ argv: ["echo"], cwd: "/work/main", env: {} }, ww(), { sandboxPolicyCwd: "/work/main", backend: "windows" });
    expect(plan.env).toMatchObject({ CODEX_SANDBOX: "windows", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
  });

  it("is unavailable off Windows, with the reason", async () => {
    const a = await createWindowsSandboxBackend({ platform: "linux" }).isAvailable();
    expect(a).toEqual({ available: false, reason: expect.stringContaining("Windows only") });
  });
});
