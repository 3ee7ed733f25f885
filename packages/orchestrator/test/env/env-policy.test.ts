import { afterAll, describe, expect, it } from "vitest";
import { call, cleanupAll, orchestrator, outputSection, workspace } from "../support/orchestrator-helpers.js";
import { OrchestratorConfigError } from "../../src/errors.js";
import { buildCommandEnv, describeEnvDropReason, explainEnvScrub, parseShellEnvironmentPolicy, UNIFIED_EXEC_ENV, withUnifiedExecEnv } from "../support/internals.js";

const host = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/me",
  API_KEY: "k",
  SECRET_TOKEN: "s",
  github_token: "t",
  DB_PASSWORD: "p",
  AWS_CREDENTIALS_FILE: "c",
  SSH_AUTH_SOCK: "/tmp/agent",
  EDITOR: "vi",
  UNSET: undefined,
};

describe("buildCommandEnv", () => {
  it("drops secret-looking names by default (unlike Codex), case-insensitively", () => {
    const env = buildCommandEnv({}, host, { platform: "linux" });
    // SSH_AUTH_SOCK is dropped on purpose since the AUTH name part: it is the key to the user's ssh agent.
    expect(env).toEqual({ PATH: "/usr/bin:/bin", HOME: "/home/me", EDITOR: "vi" });
  });

  it("passes them when ignoreDefaultExcludes is set (the Codex default)", () => {
    const env = buildCommandEnv({ ignoreDefaultExcludes: true }, host, { platform: "linux" });
    expect(Object.keys(env).sort()).toEqual(
      ["API_KEY", "AWS_CREDENTIALS_FILE", "DB_PASSWORD", "EDITOR", "HOME", "PATH", "SECRET_TOKEN", "SSH_AUTH_SOCK", "github_token"].sort(),
    );
  });

  it("inherit core keeps only the core variables", () => {
    const env = buildCommandEnv({ inherit: "core" }, { ...host, path: "lower", SHELL: "/bin/bash", TMPDIR: "/tmp" }, { platform: "linux" });
    expect(env).toEqual({ PATH: "/usr/bin:/bin", HOME: "/home/me", path: "lower", SHELL: "/bin/bash", TMPDIR: "/tmp" });
  });

  it("inherit none plus set yields only the set variables", () => {
    expect(buildCommandEnv({ inherit: "none", set: { ONLY_VAR: "yes" } }, host, { platform: "linux" })).toEqual({ ONLY_VAR: "yes" });
  });

  it("exclude takes glob patterns (*, ?) case-insensitively", () => {
    const env = buildCommandEnv({ exclude: ["ssh_*", "EDIT?R"] }, host, { platform: "linux" });
    expect(env).toEqual({ PATH: "/usr/bin:/bin", HOME: "/home/me" });
  });

  it("set overwrites, and a set secret-looking name is kept (explicit beats default)", () => {
    const env = buildCommandEnv({ set: { HOME: "/elsewhere", MY_TOKEN: "given" } }, host, { platform: "linux" });
    expect(env["HOME"]).toBe("/elsewhere");
    expect(env["MY_TOKEN"]).toBe("given");
  });

  it("includeOnly keeps matching names only, and can remove set entries", () => {
    expect(buildCommandEnv({ includeOnly: ["*PATH"], set: { X: "1" } }, host, { platform: "linux" })).toEqual({ PATH: "/usr/bin:/bin" });
  });

  it("pattern metacharacters other than * and ? are literal", () => {
    const env = buildCommandEnv({ inherit: "none", set: { "A.B": "1", AXB: "2" }, includeOnly: ["A.B"] }, {}, { platform: "linux" });
    expect(env).toEqual({ "A.B": "1" });
  });

  it("adds PATHEXT on Windows when absent", () => {
    expect(buildCommandEnv({ inherit: "none" }, {}, { platform: "win32" })).toEqual({ PATHEXT: ".COM;.EXE;.BAT;.CMD" });
    expect(buildCommandEnv({ inherit: "all" }, { pathext: ".EXE" }, { platform: "win32" })).toEqual({ pathext: ".EXE" });
  });

  it("rejects a bad policy naming the field", () => {
    expect(() => parseShellEnvironmentPolicy({ inherit: "some" })).toThrow(OrchestratorConfigError);
    const error = (() => {
      try {
        parseShellEnvironmentPolicy({ exclude: [""] });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(OrchestratorConfigError);
    expect((error as OrchestratorConfigError).field).toBe("shellEnvironmentPolicy.exclude.0");
    expect(() => parseShellEnvironmentPolicy({ unknown: 1 })).toThrow(/shellEnvironmentPolicy/);
  });
});

/** Secrets in ordinary names (no KEY/TOKEN/SECRET in the name), each one a name-based scrub would let through. */
const LEAKED = {
  DATABASE_URL: "postgres://app:hunter2@db.internal:5432/app",
  REDIS_URL: "redis://:s3cret@cache:6379/0",
  MYSQL_PWD: "hunter2",
  GH_PAT: "ghp_0123456789",
  SENTRY_DSN: "https://abc123@o1.ingest.errors.example.com/42",
  SLACK_WEBHOOK_URL: "https://hooks.chat.example.com/services/T0/B0/XYZ",
  DOCKER_AUTH_CONFIG: '{"auths":{"r":{"auth":"dXNlcjpwYXNz"}}}',
  CI_JOB_JWT: "eyJhbGciOi.eyJzdWIi.sig",
};
/** Ordinary variables that look close to the patterns and must survive. */
const ORDINARY = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/me",
  PWD: "/home/me/project",
  OLDPWD: "/home/me",
  MANPATH: "/usr/share/man",
  XAUTHORITY: "/home/me/.Xauthority",
  PATHEXT_LIKE: "x",
  HOMEPAGE_URL: "https://example.com/path",
  UPSTREAM_URL: "https://user@example.com/repo.git",
  DISPLAY: ":0",
};

describe("the default scrub of secrets in ordinary names", () => {
  it("control: with ignoreDefaultExcludes every one of them reaches the command", () => {
    const env = buildCommandEnv({ ignoreDefaultExcludes: true }, { ...LEAKED, ...ORDINARY }, { platform: "linux" });
    expect(env).toEqual({ ...LEAKED, ...ORDINARY });
  });

  it("drops each of them by default, and keeps PWD, OLDPWD, PATH, HOME and look-alikes", () => {
    const env = buildCommandEnv({}, { ...LEAKED, ...ORDINARY }, { platform: "linux" });
    expect(env).toEqual(ORDINARY);
  });

  it("a name listed literally in includeOnly passes the scrub; a wildcard does not", () => {
    const literal = buildCommandEnv({ includeOnly: ["PATH", "GH_PAT", "database_url"] }, { ...LEAKED, ...ORDINARY }, { platform: "linux" });
    expect(literal).toEqual({ PATH: ORDINARY.PATH, GH_PAT: LEAKED.GH_PAT, DATABASE_URL: LEAKED.DATABASE_URL });
    const wildcard = buildCommandEnv({ includeOnly: ["*"] }, { ...LEAKED, ...ORDINARY }, { platform: "linux" });
    expect(wildcard).toEqual(ORDINARY);
  });

  it("matches name parts, not substrings, and PWD only inside a longer name", () => {
    const env = buildCommandEnv(
      {},
      { PATH: "p", PATHS: "p", GH_PAT: "x", pat_token2: "x", X_PWD: "x", PWD_FILE: "x", PWD: "/", OLDPWD: "/", AUTHOR: "me", GIT_AUTHOR_NAME: "me", OAUTH: "x", MY_AUTH: "x" },
      { platform: "linux" },
    );
    expect(env).toEqual({ PATH: "p", PATHS: "p", PWD: "/", OLDPWD: "/", AUTHOR: "me", GIT_AUTHOR_NAME: "me", OAUTH: "x" });
  });

  it("drops any value holding a URL with a password, whatever the name", () => {
    const env = buildCommandEnv(
      {},
      { ANY: "mysql://root:pw@localhost/db", JDBC: "jdbc:postgresql://u:p@h/db", http_proxy: "http://me:pw@proxy:3128", NOPASS: "ssh://git@host/x", EMPTY_PW: "http://me:@host/" },
      { platform: "linux" },
    );
    expect(env).toEqual({ NOPASS: "ssh://git@host/x", EMPTY_PW: "http://me:@host/" });
  });

  it("explainEnvScrub names every dropped variable with its rule, never a value", () => {
    const drops = explainEnvScrub({ exclude: ["DISPLAY"] }, { ...LEAKED, ...ORDINARY, API_KEY: "k" }, { platform: "linux" });
    expect(drops.map((d) => d.name)).toEqual([...Object.keys(LEAKED), "API_KEY", "DISPLAY"].sort());
    const why = Object.fromEntries(drops.map((d) => [d.name, describeEnvDropReason(d.reason)]));
    expect(why).toMatchObject({
      API_KEY: "default scrub: name matches *KEY*",
      GH_PAT: "default scrub: name part PAT",
      MYSQL_PWD: "default scrub: name part PWD",
      SENTRY_DSN: "default scrub: name part DSN",
      SLACK_WEBHOOK_URL: "default scrub: name part WEBHOOK",
      CI_JOB_JWT: "default scrub: name part JWT",
      DOCKER_AUTH_CONFIG: "default scrub: name part AUTH",
      DATABASE_URL: "default scrub: value is a URL with a password",
      REDIS_URL: "default scrub: value is a URL with a password",
      DISPLAY: "exclude: DISPLAY",
    });
    const text = JSON.stringify(drops);
    for (const value of Object.values(LEAKED)) expect(text).not.toContain(value);
    expect(explainEnvScrub({ ignoreDefaultExcludes: true }, LEAKED, { platform: "linux" })).toEqual([]);
  });
});

describe("the scrub reaches real commands", () => {
  afterAll(cleanupAll);
  const printed = async (policy: Record<string, unknown>) => {
    const ws = await workspace();
    const { orch } = orchestrator(ws, { hostEnv: { ...ws.hostEnv, ...LEAKED, PWD: ws.dir }, shellEnvironmentPolicy: policy });
    const response = await call(orch, "shell_command", { command: "env", login: false });
    expect(response.exitCode).toBe(0);
    return outputSection(response.content);
  };

  it("control: with ignoreDefaultExcludes `env` prints every secret", async () => {
    const out = await printed({ ignoreDefaultExcludes: true });
    for (const [name, value] of Object.entries(LEAKED)) expect(out).toContain(`${name}=${value}`);
  });

  it("by default `env` prints none of them", async () => {
    const out = await printed({});
    for (const [name, value] of Object.entries(LEAKED)) {
      expect(out).not.toContain(`${name}=`);
      expect(out).not.toContain(value);
    }
    expect(out).toMatch(/^PATH=/m);
  });
});

describe("unified exec overlay", () => {
  it("adds plain-output variables on top, overwriting", () => {
    const env = withUnifiedExecEnv({ TERM: "xterm-256color", PATH: "/bin" });
    expect(env).toMatchObject({ TERM: "dumb", NO_COLOR: "1", PAGER: "cat", GIT_PAGER: "cat", COLORTERM: "", PATH: "/bin" });
    expect(Object.isFrozen(UNIFIED_EXEC_ENV)).toBe(true);
  });
});
