// One environment policy for every runner: `shellgate sandbox` and `shellgate exec` start commands
// with your environment under the same `[shell_environment_policy]`, so a secret `exec` scrubs is not
// handed to a command through `sandbox`. Each test has a control that runs `env` directly with the
// same environment and shows the secret would be there. HOME and XDG_CONFIG_HOME point into a scratch
// directory, so the real user configuration is never read.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeScratch, runBin, type RunResult, type Scratch, realSandboxSkip } from "./helpers.js";

const skip = await realSandboxSkip();

const SECRETS = {
  DATABASE_URL: "postgres://u:secret@db.example.com/x",
  GITHUB_TOKEN: "ghp_trustenvtesttoken",
  MYSQL_PWD: "hunter2",
};

let s: Scratch;
let env: Record<string, string>;
beforeEach(() => {
  s = makeScratch();
  env = { ...s.env, ...SECRETS, TRUST_ENV_PLAIN: "kept" };
});
afterEach(() => s.cleanup());

/** `NAME=value` lines printed by `env`, as a record. */
function parseEnv(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 1);
  }
  return out;
}

function printed(r: RunResult): Record<string, string> {
  expect(r.code, r.stderr).toBe(0);
  return parseEnv(r.stdout);
}

/** CONTROL: `env` run directly with the same environment prints every secret. */
function direct(): Record<string, string> {
  const r = spawnSync("env", [], { env, cwd: s.project, encoding: "utf8" });
  return parseEnv(r.stdout);
}

function expectScrubbed(seen: Record<string, string>, raw: string): void {
  for (const name of Object.keys(SECRETS)) expect(seen).not.toHaveProperty(name);
  expect(raw).not.toContain("secret@db.example.com");
  expect(raw).not.toContain(SECRETS.GITHUB_TOKEN);
  // What the policy allows still passes.
  expect(seen).toMatchObject({ PATH: env["PATH"], HOME: env["HOME"], LANG: "C.UTF-8", TRUST_ENV_PLAIN: "kept" });
}

describe.skipIf(skip !== undefined)("one environment policy for every runner (real sandbox, built bin)", () => {
  it("control: `env` run directly with this environment prints the secrets", () => {
    expect(direct()).toMatchObject(SECRETS);
  });

  it("`shellgate sandbox -- env` gets no secret; PATH, HOME and LANG pass", async () => {
    const r = await runBin(["sandbox", "--", "env"], { env, cwd: s.project });
    expectScrubbed(printed(r), r.stdout);
  });

  it("`shellgate exec -- env` gets no secret; PATH, HOME and LANG pass", async () => {
    const r = await runBin(["exec", "--", "env"], { env, cwd: s.project });
    expectScrubbed(printed(r), r.stdout);
  });

  it("`shellgate sandbox --dry-run --json` shows the environment the command would get: scrubbed", async () => {
    const r = await runBin(["sandbox", "--dry-run", "--json", "--", "env"], { env, cwd: s.project });
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as { env: Record<string, string>; commandEnv: Record<string, string> };
    expectScrubbed(plan.commandEnv, r.stdout);
    // The sandbox's own variables are part of it.
    expect(plan.commandEnv).toMatchObject(plan.env);
  });

  it("the user's [shell_environment_policy] applies to `sandbox` as to `exec`", async () => {
    const config = path.join(s.env["XDG_CONFIG_HOME"]!, "shellgate", "config.toml");
    mkdirSync(path.dirname(config), { recursive: true });
    writeFileSync(config, '[shell_environment_policy]\nexclude = ["TRUST_ENV_*"]\nset = { CI = "1" }\n');
    const viaSandbox = printed(await runBin(["sandbox", "--", "env"], { env, cwd: s.project }));
    const viaExec = printed(await runBin(["exec", "--", "env"], { env, cwd: s.project }));
    for (const seen of [viaSandbox, viaExec]) {
      expect(seen).not.toHaveProperty("TRUST_ENV_PLAIN");
      expect(seen).toMatchObject({ CI: "1", PATH: env["PATH"] });
      for (const name of Object.keys(SECRETS)) expect(seen).not.toHaveProperty(name);
    }
    // CONTROL: without the config the variable passes (see the tests above).
    expect(direct()).toHaveProperty("TRUST_ENV_PLAIN", "kept");
  });

  it("an untrusted project config cannot pass the secrets to `sandbox`; the user trusting the project can", async () => {
    const projectConfig = path.join(s.project, ".shellgate", "config.toml");
    mkdirSync(path.dirname(projectConfig), { recursive: true });
    writeFileSync(projectConfig, "[shell_environment_policy]\nignore_default_excludes = true\n");
    const refused = await runBin(["sandbox", "--", "env"], { env, cwd: s.project });
    expect(refused.code).toBe(125);
    expect(refused.stderr).toContain("shell_environment_policy.ignore_default_excludes");
    expect(refused.stdout).not.toContain(SECRETS.GITHUB_TOKEN);
    // CONTROL: once the user's own config trusts the project, its policy applies as written.
    const userConfig = path.join(s.env["XDG_CONFIG_HOME"]!, "shellgate", "config.toml");
    mkdirSync(path.dirname(userConfig), { recursive: true });
    writeFileSync(userConfig, `[projects.${JSON.stringify(s.project)}]\ntrust_level = "trusted"\n`);
    const trusted = printed(await runBin(["sandbox", "--", "env"], { env, cwd: s.project }));
    expect(trusted).toHaveProperty("GITHUB_TOKEN", SECRETS.GITHUB_TOKEN);
  });

  it("keys of an untrusted project config that `sandbox` does not read do not stop it", async () => {
    const projectConfig = path.join(s.project, ".shellgate", "config.toml");
    mkdirSync(path.dirname(projectConfig), { recursive: true });
    writeFileSync(projectConfig, 'sandbox_mode = "danger-full-access"\n');
    expectScrubbed(printed(await runBin(["sandbox", "--", "env"], { env, cwd: s.project })), "");
    // CONTROL: `exec`, which reads that key, refuses the loosening.
    const r = await runBin(["exec", "--", "true"], { env, cwd: s.project });
    expect(r.code).toBe(125);
    expect(r.stderr).toContain("sandbox_mode");
  });
});
