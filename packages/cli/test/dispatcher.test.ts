import { fileURLToPath } from "node:url";
import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { makeScratch, POLICY_CHECK_BIN, runBin } from "./helpers.js";

const DIST_RUN_COMMAND = new URL("../dist/run-command.js", import.meta.url).href;

const s = makeScratch();
afterAll(() => s.cleanup());
const run = (...args: string[]) => runBin(args, { env: s.env, cwd: s.project });

describe("shellgate dispatcher (built bin)", () => {
  it("prints the version", async () => {
    const r = await run("--version");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^shellgate \d+\.\d+\.\d+/);
  });

  it("the committed launcher in bin/ runs the built CLI", async () => {
    const r = await runBin(["--version"], { env: s.env, cwd: s.project, bin: fileURLToPath(new URL("../bin/shellgate.js", import.meta.url)) });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^shellgate \d/);
  });

  it("prints usage with --help (exit 0) and without a command (exit 2)", async () => {
    const help = await run("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Commands:");
    const bare = await run();
    expect(bare.code).toBe(2);
  });

  it("rejects an unknown command with exit 2", async () => {
    const r = await run("frobnicate");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });

  it.each(["exec", "mcp", "doctor"])("`%s --help` shows options, exit codes and examples", async (command) => {
    const r = await run(command, "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: shellgate ${command}`);
    expect(r.stdout).toContain("Exit codes:");
    expect(r.stdout).toContain("Examples:");
  });

  it("`help exec` is `exec --help`", async () => {
    const viaHelp = await run("help", "exec");
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain("Usage: shellgate exec");
  });

  it("policy-check prints its version", async () => {
    const r = await runBin(["--version"], { env: s.env, cwd: s.project, bin: POLICY_CHECK_BIN });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/policy-check/);
  });
});

describe("runCommandModule (built)", () => {
  it("names a command whose module is missing, in one line", async () => {
    // Run outside vitest: its module transform answers a missing dynamic import differently from Node.
    const script = `import(${JSON.stringify(DIST_RUN_COMMAND)}).then(async (m) => { process.exitCode = await m.runCommandModule("no-such-command", []); })`;
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stderr }));
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("shellgate: the `no-such-command` command is not part of this build (commands/no-such-command/index.js is missing)\n");
  });
});
