import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyEscalationGuard, mapToRequirement, retryAllowed, type SegmentFacts } from "@shellgate/orchestrator/admission";
import { parseSandboxPolicy } from "@shellgate/sandbox";
import { parse } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  approvalAtLeastAsStrict,
  ApprovalPolicyNameSchema,
  BroadWorkspaceError,
  ConfigError,
  loadConfig,
  UntrustedProjectConfigError,
  type ApprovalPolicyName,
} from "../src/index.js";

let root: string;
let env: Record<string, string>;
let ws: string;
let userFile: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "sg-trust-")));
  env = { HOME: path.join(root, "home"), XDG_CONFIG_HOME: path.join(root, "xdg") };
  ws = path.join(root, "ws");
  mkdirSync(path.join(ws, "sub"), { recursive: true });
  mkdirSync(env["HOME"]!, { recursive: true });
  userFile = path.join(root, "xdg", "shellgate", "config.toml");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(file: string, text: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

function writeProject(text: string, dir = ws): string {
  return write(path.join(dir, ".shellgate", "config.toml"), text);
}

function trustLines(dir: string): string {
  return `[projects.${JSON.stringify(dir)}]\ntrust_level = "trusted"\n`;
}

async function refusal(promise: Promise<unknown>): Promise<UntrustedProjectConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UntrustedProjectConfigError);
  return error as UntrustedProjectConfigError;
}

describe("project config: where it is read", () => {
  it("ignores a .shellgate/config.toml above the workspace (the shared-temp-dir attack)", async () => {
    const above = writeProject('sandbox_mode = "danger-full-access"\napproval_policy = "never"\n', root);
    const config = await loadConfig({ cwd: ws }, env);
    expect(config.sandboxPolicy.mode).toBe("workspace-write");
    expect(config.approvalPolicy).toBe("on-request");
    expect(config.configFiles).not.toContain(above);
    expect(config.project).toBeNull();
  });

  it("does not read the workspace's file when --cwd names a subdirectory", async () => {
    writeProject('sandbox_mode = "read-only"\n');
    const config = await loadConfig({ cwd: path.join(ws, "sub") }, env);
    expect(config.sandboxPolicy.mode).toBe("workspace-write");
    expect(config.project).toBeNull();
  });

  it("refuses a `projects` table in a project file, even a trusted one", async () => {
    write(userFile, trustLines(ws));
    const file = writeProject(`${trustLines(ws)}`);
    const error = await loadConfig({ cwd: ws }, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(file);
    expect((error as Error).message).toMatch(/`projects`: project trust is read only from your user config/);
  });
});

describe("untrusted project: may only tighten", () => {
  it("applies settings that are stricter than the user's", async () => {
    write(userFile, 'timeout_ms = 60000\n[shell_environment_policy]\ninherit = "core"\nexclude = ["AWS_*"]\n');
    const file = writeProject(
      [
        'approval_policy = "never"',
        "timeout_ms = 1000",
        'denied_read_paths = ["secrets"]',
        "allow_broad_workspace = false",
        "codex_rules = true",
        "rules = []",
        "[sandbox_workspace_write]",
        "network_access = false",
        "exclude_slash_tmp = true",
        "exclude_tmpdir_env_var = true",
        'writable_roots = ["."]',
        "[shell_environment_policy]",
        'inherit = "none"',
        'exclude = ["AWS_*", "GH_*"]',
        "ignore_default_excludes = false",
      ].join("\n"),
    );
    const config = await loadConfig({ cwd: ws }, env);
    expect(config.project).toEqual({ file, trusted: false });
    expect(config.approvalPolicy).toBe("never");
    expect(config.timeoutMs).toBe(1000);
    expect(config.sandboxPolicy).toMatchObject({
      mode: "workspace-write",
      networkAccess: false,
      excludeSlashTmp: true,
      excludeTmpdirEnvVar: true,
      deniedReadPaths: [path.join(ws, "secrets")],
    });
    expect(config.shellEnvironmentPolicy).toMatchObject({ inherit: "none", exclude: ["AWS_*", "GH_*"] });
  });

  it("may switch to read-only", async () => {
    writeProject('sandbox_mode = "read-only"\n');
    expect((await loadConfig({ cwd: ws }, env)).sandboxPolicy.mode).toBe("read-only");
  });

  it("refuses danger-full-access with a typed error naming the file, the key, what it tried and the trust lines", async () => {
    const file = writeProject('sandbox_mode = "danger-full-access"\n');
    const error = await refusal(loadConfig({ cwd: ws }, env));
    expect(error.code).toBe("CLI_PROJECT_NOT_TRUSTED");
    expect(error.file).toBe(file);
    expect(error.key).toBe("sandbox_mode");
    expect(error.userConfigFile).toBe(userFile);
    expect(error.message).toContain(file);
    expect(error.message).toContain('sandbox_mode = "danger-full-access"');
    expect(error.message).toContain('your configuration gives "workspace-write"');
    expect(error.message).toContain(`[projects.${JSON.stringify(ws)}]\ntrust_level = "trusted"`);
    expect(error.message).toContain(userFile);

    // The lines it names are exactly what trusts the project: appended to the user config, the same load works.
    expect(parse(error.trustSnippet)).toEqual({ projects: { [ws]: { trust_level: "trusted" } } });
    write(userFile, error.trustSnippet);
    const trusted = await loadConfig({ cwd: ws }, env);
    expect(trusted.sandboxPolicy.mode).toBe("danger-full-access");
    expect(trusted.project).toEqual({ file, trusted: true });
  });

  it("lists every loosening key, not only the first", async () => {
    writeProject('sandbox_mode = "external-sandbox"\napproval_policy = "on-failure"\nnetwork_access = true\n');
    const error = await refusal(loadConfig({ cwd: ws }, env));
    expect(error.weakenings.map((w) => w.key)).toEqual(["sandbox_mode", "approval_policy", "network_access"]);
  });

  const outside = () => path.join(root, "elsewhere");
  const cases: Array<{ name: string; user?: string; project: () => string; key: string }> = [
    { name: "danger-full-access", project: () => 'sandbox_mode = "danger-full-access"', key: "sandbox_mode" },
    { name: "workspace-write over the user's read-only", user: 'sandbox_mode = "read-only"', project: () => 'sandbox_mode = "workspace-write"', key: "sandbox_mode" },
    { name: "untrusted over on-request (adds the unsandboxed retry)", project: () => 'approval_policy = "untrusted"', key: "approval_policy" },
    { name: "on-failure over on-request", project: () => 'approval_policy = "on-failure"', key: "approval_policy" },
    { name: "never over untrusted (runs unasked)", user: 'approval_policy = "untrusted"', project: () => 'approval_policy = "never"', key: "approval_policy" },
    { name: "network on", project: () => "[sandbox_workspace_write]\nnetwork_access = true", key: "sandbox_workspace_write.network_access" },
    { name: "a writable root outside the workspace", project: () => `[sandbox_workspace_write]\nwritable_roots = [${JSON.stringify(outside())}]`, key: "sandbox_workspace_write.writable_roots" },
    { name: "the workspace's .git as its own writable root", project: () => '[sandbox_workspace_write]\nwritable_roots = [".git"]', key: "sandbox_workspace_write.writable_roots" },
    { name: "/tmp back after the user excluded it", user: "[sandbox_workspace_write]\nexclude_slash_tmp = true", project: () => "[sandbox_workspace_write]\nexclude_slash_tmp = false", key: "sandbox_workspace_write.exclude_slash_tmp" },
    { name: "$TMPDIR back after the user excluded it", user: "[sandbox_workspace_write]\nexclude_tmpdir_env_var = true", project: () => "[sandbox_workspace_write]\nexclude_tmpdir_env_var = false", key: "sandbox_workspace_write.exclude_tmpdir_env_var" },
    { name: "inherit all over core", user: '[shell_environment_policy]\ninherit = "core"', project: () => '[shell_environment_policy]\ninherit = "all"', key: "shell_environment_policy.inherit" },
    { name: "secret-looking variables passed through", project: () => "[shell_environment_policy]\nignore_default_excludes = true", key: "shell_environment_policy.ignore_default_excludes" },
    { name: "dropping the user's excludes", user: '[shell_environment_policy]\nexclude = ["AWS_*"]', project: () => "[shell_environment_policy]\nexclude = []", key: "shell_environment_policy.exclude" },
    { name: "include_only", project: () => '[shell_environment_policy]\ninclude_only = ["PATH"]', key: "shell_environment_policy.include_only" },
    { name: "set PATH", project: () => '[shell_environment_policy]\nset = { PATH = "./evil:/usr/bin" }', key: "shell_environment_policy.set" },
    { name: "no timeout over the default", project: () => "timeout_ms = 0", key: "timeout_ms" },
    { name: "a longer timeout", user: "timeout_ms = 1000", project: () => "timeout_ms = 2000", key: "timeout_ms" },
    { name: "a longer timeout in words", user: 'timeout = "1m"', project: () => 'timeout = "1h"', key: "timeout" },
    { name: "a longer timeout under the other name", user: 'timeout = "1m"', project: () => "timeout_ms = 120000", key: "timeout_ms" },
    { name: "no process limit", project: () => 'process_limit = "off"', key: "process_limit" },
    { name: "a process limit over the default", project: () => "process_limit = 5000", key: "process_limit" },
    { name: "a process limit over the user's", user: "process_limit = 100", project: () => "process_limit = 200", key: "process_limit" },
    { name: "codex_rules = false (drops forbidden rules)", project: () => "codex_rules = false", key: "codex_rules" },
    { name: "codex_rules = true over the user's false (adds allow rules)", user: "codex_rules = false", project: () => "codex_rules = true", key: "codex_rules" },
    { name: "a rules file (its allow rules run unsandboxed)", project: () => 'rules = ["team.rules"]', key: "rules" },
    { name: "allow_broad_workspace", project: () => "allow_broad_workspace = true", key: "allow_broad_workspace" },
    { name: "the login shell back on over the user's false (the profile runs unsandboxed for allow rules)", user: "allow_login_shell = false", project: () => "allow_login_shell = true", key: "allow_login_shell" },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}; the same file loads once the project is trusted`, async () => {
      if (c.user) write(userFile, `${c.user}\n`);
      mkdirSync(outside(), { recursive: true });
      mkdirSync(path.join(ws, ".git"), { recursive: true });
      write(path.join(ws, "team.rules"), "");
      writeProject(`${c.project()}\n`);
      const error = await refusal(loadConfig({ cwd: ws }, env));
      expect(error.weakenings.map((w) => w.key)).toEqual([c.key]);
      // Control: the same project file is accepted from a trusted project, so the refusal is about trust.
      write(userFile, `${c.user ? `${c.user}\n` : ""}${trustLines(ws)}`);
      await expect(loadConfig({ cwd: ws }, env)).resolves.toMatchObject({ project: { trusted: true } });
    });
  }

  it("lets an untrusted project lower the process limit, and a flag decide it (control: the user's own value applies without either)", async () => {
    write(userFile, "process_limit = 300\n");
    await expect(loadConfig({ cwd: ws }, env)).resolves.toMatchObject({ processLimit: 300 });
    writeProject("process_limit = 64\n");
    await expect(loadConfig({ cwd: ws }, env)).resolves.toMatchObject({ processLimit: 64, project: { trusted: false } });
    writeProject('process_limit = "off"\n');
    await expect(loadConfig({ cwd: ws, processLimit: 32 }, env)).resolves.toMatchObject({ processLimit: 32 });
  });

  it("lets an untrusted project turn the login shell off, or repeat the default; a flag decides over it", async () => {
    await expect(loadConfig({ cwd: ws }, env)).resolves.toMatchObject({ allowLoginShell: true });
    writeProject("allow_login_shell = false\n");
    await expect(loadConfig({ cwd: ws }, env)).resolves.toMatchObject({ allowLoginShell: false, project: { trusted: false } });
    writeProject("allow_login_shell = true\n");
    await expect(loadConfig({ cwd: ws }, env)).resolves.toMatchObject({ allowLoginShell: true });
    write(userFile, "allow_login_shell = false\n");
    await expect(loadConfig({ cwd: ws, loginShell: false }, env)).resolves.toMatchObject({ allowLoginShell: false });
    await expect(loadConfig({ cwd: ws, loginShell: true }, env)).resolves.toMatchObject({ allowLoginShell: true });
  });

  it("does not judge a key a flag decides (it takes no effect)", async () => {
    writeProject('sandbox_mode = "danger-full-access"\napproval_policy = "never"\ntimeout_ms = 0\n[sandbox_workspace_write]\nnetwork_access = true\n');
    const config = await loadConfig({ cwd: ws, sandboxMode: "read-only", approvalPolicy: "untrusted", timeoutMs: 5 }, env);
    expect(config.sandboxPolicy.mode).toBe("read-only");
    expect(config.approvalPolicy).toBe("untrusted");
    expect(config.timeoutMs).toBe(5);
  });

  it("judges against what the user's flags give: a root the user named on the command line may be repeated", async () => {
    mkdirSync(path.join(root, "cache"));
    writeProject(`[sandbox_workspace_write]\nwritable_roots = [${JSON.stringify(path.join(root, "cache"))}]\n`);
    await expect(loadConfig({ cwd: ws }, env)).rejects.toThrow(UntrustedProjectConfigError);
    const config = await loadConfig({ cwd: ws, writableRoots: [path.join(root, "cache")] }, env);
    expect(config.sandboxPolicy).toMatchObject({ writableRoots: [path.join(root, "cache"), path.join(root, "cache")] });
  });

  it("--no-default-rules ignores the project's rules, so they are not judged", async () => {
    writeProject('rules = ["team.rules"]\ncodex_rules = false\n');
    const config = await loadConfig({ cwd: ws, noDefaultRules: true }, env);
    expect(config.rules).toEqual([]);
  });
});

describe("project trust", () => {
  it("trusts exactly the listed directory: trusting a parent does not trust a subdirectory", async () => {
    const sub = path.join(ws, "sub");
    write(userFile, trustLines(ws));
    writeProject('sandbox_mode = "danger-full-access"\n', sub);
    await expect(loadConfig({ cwd: sub }, env)).rejects.toThrow(UntrustedProjectConfigError);
  });

  it("matches by real path, so a symlinked name of the workspace is the same project", async () => {
    const link = path.join(root, "link");
    symlinkSync(ws, link);
    write(userFile, trustLines(link));
    writeProject('sandbox_mode = "danger-full-access"\n');
    expect((await loadConfig({ cwd: ws }, env)).project).toMatchObject({ trusted: true });
    expect((await loadConfig({ cwd: link }, env)).sandboxPolicy.mode).toBe("danger-full-access");
  });

  it('treats trust_level = "untrusted" as not trusted', async () => {
    write(userFile, `[projects.${JSON.stringify(ws)}]\ntrust_level = "untrusted"\n`);
    writeProject('sandbox_mode = "danger-full-access"\n');
    await expect(loadConfig({ cwd: ws }, env)).rejects.toThrow(UntrustedProjectConfigError);
  });

  it("rejects a relative project path in the user config", async () => {
    write(userFile, '[projects."ws"]\ntrust_level = "trusted"\n');
    writeProject('sandbox_mode = "read-only"\n');
    await expect(loadConfig({ cwd: ws }, env)).rejects.toThrow(/absolute path/);
  });
});

describe("approval policy strictness", () => {
  // Derived here from the orchestrator's own admission, not from the table in strictness.ts: which
  // commands run with nobody asked, which can run once a person approves, whether a likely denial
  // leads to an unsandboxed retry.
  const sandboxPolicy = parseSandboxPolicy({ mode: "workspace-write" });
  const kinds = [
    { knownSafe: true, dangerous: false },
    { knownSafe: false, dangerous: false },
    { knownSafe: false, dangerous: true },
  ];
  function facets(approvalPolicy: ApprovalPolicyName) {
    const unasked = new Set<string>();
    const reachable = new Set<string>();
    kinds.forEach((k, i) => {
      for (const permissions of ["use_default", "require_escalated"] as const) {
        const facts: SegmentFacts = { segment: ["cmd"], evaluation: { matchedRules: [] }, ...k };
        const ctx = { argv: ["cmd"], approvalPolicy, sandboxPolicy, permissions };
        const requirement = applyEscalationGuard(mapToRequirement([facts], ctx), ctx);
        const id = `${i}/${permissions}`;
        if (requirement.kind === "skip") unasked.add(id);
        if (requirement.kind !== "forbidden") reachable.add(id);
      }
    });
    return { unasked, reachable, retry: retryAllowed(approvalPolicy, sandboxPolicy) };
  }
  const subset = (a: Set<string>, b: Set<string>) => [...a].every((x) => b.has(x));
  for (const candidate of ApprovalPolicyNameSchema.options) {
    for (const baseline of ApprovalPolicyNameSchema.options) {
      it(`${candidate} vs ${baseline}`, () => {
        const c = facets(candidate);
        const b = facets(baseline);
        const derived = subset(c.unasked, b.unasked) && subset(c.reachable, b.reachable) && (!c.retry || b.retry);
        expect(approvalAtLeastAsStrict(candidate, baseline)).toBe(derived);
      });
    }
  }
});

describe("broad workspace", () => {
  it("refuses the home directory and / as the workspace under workspace-write, naming the flag", async () => {
    for (const cwd of [env["HOME"]!, "/"]) {
      const error = await loadConfig({ cwd }, env).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BroadWorkspaceError);
      expect((error as BroadWorkspaceError).code).toBe("CLI_BROAD_WORKSPACE");
      expect((error as Error).message).toContain("--allow-broad-workspace");
      expect((error as Error).message).toContain("allow_broad_workspace = true");
    }
    // Control: a project directory is fine.
    await expect(loadConfig({ cwd: ws }, env)).resolves.toMatchObject({ workspaceCheck: { broadRoots: [], allowed: true } });
  });

  it("refuses a writable root that is the home directory, an ancestor of it, or / (by real path)", async () => {
    const link = path.join(root, "home-link");
    symlinkSync(env["HOME"]!, link);
    for (const [r, reason] of [
      [link, "home"],
      [root, "home-ancestor"],
      ["/", "filesystem-root"],
    ] as const) {
      const error = await loadConfig({ cwd: ws, writableRoots: [r] }, env).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BroadWorkspaceError);
      expect((error as BroadWorkspaceError).roots).toMatchObject([{ path: r, source: "writable-root", reason }]);
    }
  });

  it("runs a broad workspace when the flag or the user config allows it, and says by what", async () => {
    const byFlag = await loadConfig({ cwd: env["HOME"]!, allowBroadWorkspace: true }, env);
    expect(byFlag.workspaceCheck).toMatchObject({ allowed: true, allowedBy: "flag", broadRoots: [{ reason: "home" }] });
    write(userFile, "allow_broad_workspace = true\n");
    const byConfig = await loadConfig({ cwd: "/" }, env);
    expect(byConfig.workspaceCheck).toMatchObject({ allowed: true, allowedBy: "config", broadRoots: [{ reason: "filesystem-root" }] });
  });

  it("never takes allow_broad_workspace from an untrusted project", async () => {
    writeProject("allow_broad_workspace = true\n", env["HOME"]!);
    await expect(loadConfig({ cwd: env["HOME"]! }, env)).rejects.toThrow(UntrustedProjectConfigError);
  });

  it("does not apply when nothing is writable (read-only) or nothing is enforced anyway", async () => {
    await expect(loadConfig({ cwd: "/", sandboxMode: "read-only" }, env)).resolves.toBeDefined();
    await expect(loadConfig({ cwd: "/", sandboxMode: "danger-full-access" }, env)).resolves.toBeDefined();
  });

  it("reports instead of refusing when asked to (doctor)", async () => {
    const config = await loadConfig({ cwd: "/" }, env, { broadWorkspace: "report" });
    expect(config.workspaceCheck).toMatchObject({ allowed: false, broadRoots: [{ path: "/", source: "cwd", reason: "filesystem-root" }] });
  });
});

describe("protected paths", () => {
  it("holds every configuration and rules location, existing or not", async () => {
    const rulesDir = path.join(root, "team-rules");
    write(path.join(rulesDir, "a.rules"), "");
    write(path.join(ws, "local.rules"), "");
    const config = await loadConfig({ cwd: ws, rules: [path.join(rulesDir, "a.rules"), "local.rules"] }, env);
    expect(config.protectedPaths).toEqual(
      expect.arrayContaining([
        path.join(root, "xdg", "shellgate"),
        path.join(env["HOME"]!, ".codex", "rules"),
        path.join(env["HOME"]!, ".cache", "shellgate", "execpolicy"),
        path.join(ws, ".shellgate"),
        rulesDir,
      ]),
    );
    // A rules file in the workspace itself protects the file (the orchestrator holds each loaded file),
    // not its directory: holding the directory would make the whole workspace read-only.
    expect(config.protectedPaths).not.toContain(ws);
  });

  it("does not hold /tmp itself for a rules file directly in it (that would make all of /tmp read-only)", async () => {
    // The workspace must lie outside /tmp here: a directory containing the workspace is never held.
    const outsideWs = mkdtempSync("/var/tmp/sg-trust-ws-");
    const file = write(path.join("/tmp", `sg-trust-${process.pid}.rules`), "");
    try {
      const config = await loadConfig({ cwd: outsideWs, rules: [file] }, { ...env, TMPDIR: "" });
      expect(config.protectedPaths).not.toContain("/tmp");
      // Control: with /tmp not writable, its directory is held like any other rules directory.
      write(userFile, "[sandbox_workspace_write]\nexclude_slash_tmp = true\n");
      const strict = await loadConfig({ cwd: outsideWs, rules: [file] }, { ...env, TMPDIR: "" });
      expect(strict.protectedPaths).toContain("/tmp");
    } finally {
      rmSync(file, { force: true });
      rmSync(outsideWs, { recursive: true, force: true });
    }
  });
});

describe("writable roots named through symlinks", () => {
  it("refuses a project root that is, or is reached through, a symlink: at its file:line:col, trusted or not", async () => {
    symlinkSync(".", path.join(ws, "link"));
    symlinkSync(path.join(ws, "sub"), path.join(ws, "via"));
    mkdirSync(path.join(ws, "sub", "deep"));
    for (const [entry, message] of [
      ["link", /writable_roots\[1\]`: "link" is a symlink \(-> "\."\)/],
      ["via/deep", /writable_roots\[1\]`: "via\/deep" is reached through the symlink ".*\/via"/],
    ] as const) {
      const file = writeProject(`[sandbox_workspace_write]\nwritable_roots = [\n  "sub",\n  ${JSON.stringify(entry)},\n]\n`);
      for (const trusted of [false, true]) {
        write(userFile, trusted ? trustLines(ws) : "");
        const error = (await loadConfig({ cwd: ws }, env).catch((e: unknown) => e)) as ConfigError;
        expect(error).toBeInstanceOf(ConfigError);
        expect(error.code).toBe("CLI_CONFIG");
        expect(error.message).toContain(`${file}:4:3`);
        expect(error.message).toMatch(message);
      }
    }
  });

  it("control: the same entries naming real directories load (in a trusted project)", async () => {
    mkdirSync(path.join(ws, "sub", "deep"));
    write(userFile, trustLines(ws));
    writeProject('[sandbox_workspace_write]\nwritable_roots = ["sub", "sub/deep"]\n');
    const config = await loadConfig({ cwd: ws }, env);
    expect(config.sandboxPolicy).toMatchObject({ writableRoots: [path.join(ws, "sub"), path.join(ws, "sub", "deep")] });
  });

  it("passes roots from flags and the user config on as real paths, never the link (links outside every writable directory)", async () => {
    const real = path.join(root, "real");
    mkdirSync(real);
    symlinkSync(real, path.join(root, "flag-link"));
    symlinkSync(real, path.join(root, "user-link"));
    // `root` is in /tmp: left out of the writable directories here, so nothing a command runs can re-point these links.
    write(userFile, `[sandbox_workspace_write]\nexclude_slash_tmp = true\nwritable_roots = [${JSON.stringify(path.join(root, "user-link"))}]\n`);
    const config = await loadConfig({ cwd: ws, writableRoots: [path.join(root, "flag-link")] }, env);
    expect(config.sandboxPolicy).toMatchObject({ writableRoots: [real, real] });
  });

  it("refuses a root from the user config or a flag reached through a link in a directory commands can write", async () => {
    const real = path.join(root, "real");
    mkdirSync(real);
    symlinkSync(real, path.join(ws, "link"));
    const file = write(userFile, `[sandbox_workspace_write]\nwritable_roots = [${JSON.stringify(path.join(ws, "link"))}]\n`);
    const error = (await loadConfig({ cwd: ws }, env).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(`${file}:2:19`);
    expect(error.message).toMatch(/reached through the symlink ".*\/ws\/link" .*in ".*\/ws", which sandboxed commands can write/);
    write(userFile, "");
    await expect(loadConfig({ cwd: ws, writableRoots: ["link"] }, env)).rejects.toThrow(/--writable-root link: .*which sandboxed commands can write/);
    // /tmp is writable too (unless excluded): a link there is just as replaceable.
    symlinkSync(real, path.join(root, "tmp-link"));
    await expect(loadConfig({ cwd: ws, writableRoots: [path.join(root, "tmp-link")] }, env)).rejects.toThrow(/which sandboxed commands can write/);
  });
});
