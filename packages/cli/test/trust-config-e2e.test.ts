// End to end through the committed bins: a sandboxed command must not be able to widen a later run
// through configuration. Every attack has an unsandboxed control showing
// the same action works when nothing stops it. HOME and XDG_CONFIG_HOME point into a scratch
// directory, so the real user configuration is never read or touched.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeScratch, runBin, type RunResult, type Scratch, realSandboxSkip } from "./helpers.js";

interface JsonResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  error?: { code: string; message: string };
  trace?: { initialSandbox: string };
}

const skip = await realSandboxSkip();

let s: Scratch;
// A directory outside every writable root: /tmp (where the scratch lives) is writable under
// workspace-write, /var/tmp is not.
let outside: string;
let userConfig: string;

beforeEach(() => {
  s = makeScratch();
  outside = mkdtempSync("/var/tmp/sg-trust-e2e-");
  userConfig = path.join(s.env["XDG_CONFIG_HOME"]!, "shellgate", "config.toml");
});
afterEach(() => {
  s.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

function exec(args: string[], cwd = s.project): Promise<RunResult> {
  return runBin(["exec", ...args], { env: s.env, cwd });
}

function parseJson(r: RunResult): JsonResult {
  try {
    return JSON.parse(r.stdout) as JsonResult;
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
}

function trustProject(dir: string): void {
  mkdirSync(path.dirname(userConfig), { recursive: true });
  writeFileSync(userConfig, `[projects.${JSON.stringify(dir)}]\ntrust_level = "trusted"\n`, { flag: "a" });
}

const FULL_ACCESS = 'sandbox_mode = "danger-full-access"\napproval_policy = "never"\n';

describe.skipIf(skip !== undefined)("a sandboxed command cannot widen a later run through project config", () => {
  it("a config planted above the workspace by an earlier command is not read: the next command stays sandboxed", async () => {
    const above = path.join(s.root, ".shellgate", "config.toml");
    const inside = path.join(s.project, ".shellgate", "config.toml");
    const toml = JSON.stringify(FULL_ACCESS);
    // First call: plant danger-full-access one level up (in the shared temp directory, which is
    // writable) and in the workspace (whose `.shellgate` is held read-only).
    const first = await exec([
      "--approval-policy",
      "never",
      "--",
      "bash",
      "-c",
      `mkdir -p ../.shellgate && printf %b ${toml} > ../.shellgate/config.toml; mkdir -p .shellgate; printf %b ${toml} > .shellgate/config.toml`,
    ]);
    expect(first.code, first.stderr).not.toBe(0);
    expect(readFileSync(above, "utf8")).toBe(FULL_ACCESS);
    expect(existsSync(inside)).toBe(false);

    // Second call: tries to write outside every writable root. It runs sandboxed, and fails.
    const target = path.join(outside, "escaped");
    const second = parseJson(await exec(["--json", "--", "bash", "-c", `echo pwned > ${target}`]));
    expect(second.trace?.initialSandbox).toBe("linux");
    expect(second.exitCode).not.toBe(0);
    expect(existsSync(target)).toBe(false);

    // Control: the same write with the sandbox switched off by the user succeeds.
    const control = parseJson(await exec(["--json", "--sandbox", "danger-full-access", "--", "bash", "-c", `echo pwned > ${target}`]));
    expect(control.trace?.initialSandbox).toBe("none");
    expect(control.exitCode).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("pwned\n");
  });

  it("a config that reached the workspace on the host (a clone, an unsandboxed step) is refused until the user trusts the project", async () => {
    const file = s.write("project/.shellgate/config.toml", FULL_ACCESS);
    const target = path.join(outside, "escaped");
    const refused = await exec(["--", "bash", "-c", `echo pwned > ${target}`]);
    expect(refused.code).toBe(125);
    expect(refused.stderr).toContain(file);
    expect(refused.stderr).toContain('sandbox_mode = "danger-full-access"');
    expect(refused.stderr).toContain(`[projects.${JSON.stringify(s.project)}]`);
    expect(refused.stderr).toContain('trust_level = "trusted"');
    expect(refused.stderr).toContain(userConfig);
    expect(existsSync(target)).toBe(false);

    // The same refusal, and the same exit code, from every command that loads the configuration.
    const check = await runBin(["check", "--", "true"], { env: s.env, cwd: s.project });
    expect(check.code).toBe(125);
    expect(check.stderr).toContain("not trusted");
    const doctor = await runBin(["doctor"], { env: s.env, cwd: s.project });
    expect(doctor.code).toBe(125);
    expect(doctor.stderr).toContain("not trusted");
    const mcp = await runBin(["mcp"], { env: s.env, cwd: s.project });
    expect(mcp.code).toBe(125);
    expect(mcp.stderr).toContain("not trusted");

    // Control: once the user trusts the project in their own config, the file applies as written.
    trustProject(s.project);
    const trusted = parseJson(await exec(["--json", "--", "bash", "-c", `echo pwned > ${target}`]));
    expect(trusted.trace?.initialSandbox).toBe("none");
    expect(trusted.exitCode).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("pwned\n");
  });

  it("trusting a directory does not trust a subdirectory used as the workspace", async () => {
    const sub = path.join(s.project, "sub");
    mkdirSync(sub);
    s.write("project/sub/.shellgate/config.toml", FULL_ACCESS);
    trustProject(s.project);
    const r = await exec(["--", "true"], sub);
    expect(r.code).toBe(125);
    expect(r.stderr).toContain("not trusted");
  });

  it("a project file may tighten: read-only applies without trust", async () => {
    s.write("project/.shellgate/config.toml", 'sandbox_mode = "read-only"\n');
    const target = path.join(s.project, "written");
    const r = parseJson(await exec(["--json", "--", "bash", "-c", `echo x > ${target}`]));
    expect(r.exitCode).not.toBe(0);
    expect(existsSync(target)).toBe(false);
    // Control: without the project file the same write in the workspace succeeds.
    rmSync(path.join(s.project, ".shellgate"), { recursive: true });
    const control = parseJson(await exec(["--json", "--", "bash", "-c", `echo x > ${target}`]));
    expect(control.exitCode).toBe(0);
    expect(existsSync(target)).toBe(true);
  });

  it("the user config cannot be created or extended from inside the sandbox (it would trust the project)", async () => {
    const line = `[projects.${JSON.stringify(s.project)}]\ntrust_level = "trusted"\n`;
    const attack = ["--", "bash", "-c", `mkdir -p ${path.dirname(userConfig)} && printf %b ${JSON.stringify(line)} >> ${userConfig}`];
    const r = await exec(attack);
    expect(r.code).not.toBe(0);
    expect(existsSync(userConfig)).toBe(false);
    // Control: unsandboxed, the same command writes it.
    const control = await exec(["--sandbox", "danger-full-access", ...attack]);
    expect(control.code, control.stderr).toBe(0);
    expect(readFileSync(userConfig, "utf8")).toBe(line);
  });

  it("a missing policy-check cache directory cannot be created from inside the sandbox", async () => {
    // HOME is in the scratch directory under /tmp, so it lies inside a writable root.
    const cache = path.join(s.env["HOME"]!, ".cache", "shellgate", "execpolicy");
    expect(existsSync(cache)).toBe(false);
    const attack = ["--", "bash", "-c", `mkdir -p ${cache} && echo poisoned > ${cache}/entry`];
    const r = await exec(attack);
    expect(r.code).not.toBe(0);
    expect(existsSync(cache)).toBe(false);
    // Control: unsandboxed, the same command creates it.
    const control = await exec(["--sandbox", "danger-full-access", ...attack]);
    expect(control.code, control.stderr).toBe(0);
    expect(readFileSync(path.join(cache, "entry"), "utf8")).toBe("poisoned\n");
  });
});

describe.skipIf(skip !== undefined)("a workspace of / or the home directory", () => {
  for (const which of ["/", "$HOME"] as const) {
    it(`refuses --cwd ${which} under workspace-write, naming the flag; runs with --allow-broad-workspace`, async () => {
      const cwd = which === "/" ? "/" : s.env["HOME"]!;
      const refused = await exec(["--cwd", cwd, "--", "pwd"]);
      expect(refused.code).toBe(125);
      expect(refused.stderr).toContain("--allow-broad-workspace");
      expect(refused.stdout).toBe("");
      const allowed = await exec(["--cwd", cwd, "--allow-broad-workspace", "--", "pwd"]);
      expect(allowed.stderr).not.toContain("--allow-broad-workspace");
      if (which === "$HOME") {
        expect(allowed.code, allowed.stderr).toBe(0);
        expect(allowed.stdout.trim()).toBe(cwd);
      } else {
        // Past shellgate's own check, the Linux backend still refuses a writable / on its own
        // grounds (bwrap and the helper would be replaceable from inside): refuse, never weaken.
        expect(allowed.code === 0 ? allowed.stdout.trim() : allowed.stderr).toMatch(allowed.code === 0 ? /^\/$/ : /inside the writable root \//);
      }
    });
  }

  it("doctor shows the verdict: a problem without the flag, allowed (and by what) with it", async () => {
    const bad = await runBin(["doctor", "--cwd", "/"], { env: s.env, cwd: s.project });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/workspace\n\s+FAIL .*filesystem root.*--allow-broad-workspace/);
    const ok = await runBin(["doctor", "--json", "--cwd", s.env["HOME"]!, "--allow-broad-workspace"], { env: s.env, cwd: s.project });
    const report = JSON.parse(ok.stdout) as { workspace: { allowed: boolean; allowedBy?: string; broadRoots: Array<{ reason: string }> } };
    expect(report.workspace).toMatchObject({ allowed: true, allowedBy: "flag", broadRoots: [{ reason: "home" }] });
  });
});

describe("shellgate exec timeout", () => {
  it("documents the 10-minute default in --help", async () => {
    const r = await runBin(["exec", "--help"], { env: s.env, cwd: s.project });
    expect(r.stdout).toMatch(/--timeout DURATION +kill the command after DURATION \(exit 124\): 500ms, 30s, 2m, 1m30s, 1h;/);
    expect(r.stdout).toContain("a bare number is milliseconds (--timeout 3 is 3 ms); 0 = no timeout");
    expect(r.stdout).toMatch(/default: timeout from the config, else 10m/);
    expect(r.stdout).toContain("--allow-broad-workspace");
  });

  it("takes --timeout with units and `timeout = \"…\"` from the config: 300ms and 1s kill a sleep 20 (exit 124); a bare number is milliseconds", async () => {
    mkdirSync(path.dirname(userConfig), { recursive: true });
    writeFileSync(userConfig, 'timeout = "1s"\n');
    const started = Date.now();
    const fromConfig = await exec(["--", "sleep", "20"]);
    expect(fromConfig.code).toBe(124);
    expect(fromConfig.stderr).toMatch(/timed out after 1000 ms/);
    const flag = await exec(["--timeout", "300ms", "--", "sleep", "20"]);
    expect(flag.code).toBe(124);
    expect(flag.stderr).toMatch(/timed out after 300 ms/);
    const bare = await exec(["--timeout", "300", "--", "sleep", "20"]);
    expect(bare.code).toBe(124);
    expect(bare.stderr).toMatch(/timed out after 300 ms/);
    expect(Date.now() - started).toBeLessThan(15_000);
    // control: a unit the flag does not take is refused before anything runs, naming the flag and the value
    const bad = await exec(["--timeout", "5sec", "--", "sleep", "20"]);
    expect(bad.code).toBe(125);
    expect(bad.stderr).toMatch(/^shellgate exec: --timeout: expected a duration such as 500ms, 30s, 2m, 1m30s or 1h, or a whole number of milliseconds, got "5sec"\n/);
    // 0s is no timeout, like 0
    const off = await exec(["--timeout", "0s", "--", "sleep", "0.5"]);
    expect(off.code).toBe(0);
    writeFileSync(userConfig, "");
  });

  it("takes timeout_ms from the user config and exits 124 when it passes", async () => {
    mkdirSync(path.dirname(userConfig), { recursive: true });
    writeFileSync(userConfig, "timeout_ms = 300\n");
    const r = await exec(["--", "sleep", "20"]);
    expect(r.code).toBe(124);
    expect(r.stderr).toMatch(/timed out after 300 ms/);
    // --timeout 0 switches it off: the command runs to its own end.
    const off = await exec(["--timeout", "0", "--", "sleep", "0.5"]);
    expect(off.code).toBe(0);
  });
});
