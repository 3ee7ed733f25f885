import { describe, expect, it } from "vitest";
import { OrchestratorConfigError } from "../src/errors.js";
import { buildCommandEnv, parseShellEnvironmentPolicy, UNIFIED_EXEC_ENV, withUnifiedExecEnv } from "../src/env/index.js";

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
    expect(env).toEqual({ PATH: "/usr/bin:/bin", HOME: "/home/me", SSH_AUTH_SOCK: "/tmp/agent", EDITOR: "vi" });
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

describe("unified exec overlay", () => {
  it("adds plain-output variables on top, overwriting", () => {
    const env = withUnifiedExecEnv({ TERM: "xterm-256color", PATH: "/bin" });
    expect(env).toMatchObject({ TERM: "dumb", NO_COLOR: "1", PAGER: "cat", GIT_PAGER: "cat", COLORTERM: "", PATH: "/bin" });
    expect(Object.isFrozen(UNIFIED_EXEC_ENV)).toBe(true);
  });
});
