import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, eventually, makeScratch, runBin, type Scratch, realSandboxSkip } from "../../helpers.js";

const skip = await realSandboxSkip();

function safeRead(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

let s: Scratch;
let rules: string;

beforeAll(() => {
  s = makeScratch();
  rules = s.write(
    "rules/test.rules",
    [
      'prefix_rule(pattern=["echo"], decision="allow", match=["echo hi"])',
      'prefix_rule(pattern=["git", "push"], decision="forbidden", justification="pushing is blocked in this repo")',
      'prefix_rule(pattern=["touch"], decision="prompt", justification="creating files needs a person")',
      "",
    ].join("\n"),
  );
});
afterAll(() => s.cleanup());

const exec = (...args: string[]) => runBin(["exec", "--rules", rules, ...args], { env: s.env, cwd: s.project });

describe("shellgate exec (built bin, stdin not a terminal)", () => {
  it("runs a command the rules allow, streams its output and exits with its code", async () => {
    const r = await exec("--", "echo", "hello", "world");
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("hello world\n");
    expect(r.code).toBe(0);
  });

  it("passes the command's own exit code through", async () => {
    const r = await exec("--", "bash", "-c", "echo out; echo err >&2; exit 7");
    expect(r.code).toBe(7);
    expect(r.stdout).toContain("out");
    expect(r.stderr).toContain("err");
  });

  it("runs a quoted script through the user's shell", async () => {
    const r = await exec("echo one && echo two");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("one\ntwo\n");
  });

  it("refuses a command the rules forbid, with one readable line and exit 126", async () => {
    const r = await exec("--", "git", "push", "origin", "main");
    expect(r.code).toBe(126);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("pushing is blocked in this repo");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses, instead of waiting, when approval is needed and there is no terminal", async () => {
    const target = path.join(s.project, "created-by-touch");
    const r = await exec("--", "touch", target);
    expect(r.code).toBe(126);
    expect(r.stderr).toMatch(/no terminal/);
    expect(r.stderr).toContain("touch");
    expect(existsSync(target)).toBe(false);
  });

  it("kills a command that runs past --timeout and exits 124", async () => {
    const r = await exec("--timeout", "300", "--", "sleep", "20");
    expect(r.code).toBe(124);
    expect(r.stderr).toMatch(/timed out/);
  });

  it.skipIf(skip !== undefined)("Ctrl-C (SIGINT) stops the command, leaves nothing running, and exits 130", async () => {
    const marker = `${90 + (process.pid % 9)}.${Date.now() % 1000}`;
    const child = spawn(process.execPath, [BIN, "exec", "--rules", rules, "--", "sleep", marker], { cwd: s.project, env: s.env, stdio: "ignore" });
    const running = () => readdirSync("/proc").some((p) => /^\d+$/.test(p) && safeRead(`/proc/${p}/cmdline`) === `sleep\0${marker}\0`);
    expect(await eventually(running, 200)).toBe(true);
    const code = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.kill("SIGINT");
    expect(await code).toBe(130);
    expect(await eventually(() => !running())).toBe(true);
  });

  it("stops the command quietly when the reader of its output goes away (| head), exit 141", async () => {
    const child = spawn(process.execPath, [BIN, "exec", "--rules", rules, "--", "yes"], { cwd: s.project, env: s.env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.stdout.once("data", () => child.stdout.destroy());
    expect(await code).toBe(141);
    expect(stderr).toBe("");
  });

  it("prints the structured result with --json", async () => {
    const r = await exec("--json", "--", "bash", "-c", "echo out; exit 3");
    expect(r.code).toBe(3);
    const result = JSON.parse(r.stdout) as { exitCode: number; timedOut: boolean; stdout: string; trace?: { outcome: string } };
    expect(result.exitCode).toBe(3);
    expect(result.timedOut).toBe(false);
    expect(result.stdout).toContain("out");
    expect(result.trace?.outcome).toBe("nonzero_exit");
  });

  it("reports a refusal in --json too", async () => {
    const r = await exec("--json", "--", "git", "push");
    expect(r.code).toBe(126);
    const result = JSON.parse(r.stdout) as { error?: { code: string; message: string } };
    expect(result.error?.code).toBe("ORCH_FORBIDDEN");
    expect(result.error?.message).toContain("pushing is blocked");
  });

  it("rejects bad usage with exit 125 and a pointer to --help", async () => {
    const none = await exec();
    expect(none.code).toBe(125);
    const badFlag = await exec("--timeout", "soon", "--", "true");
    expect(badFlag.code).toBe(125);
    expect(badFlag.stderr).toMatch(/--timeout/);
  });

  it("shows the rendered diagnostic of a rules file that does not parse", async () => {
    const broken = s.write("rules/broken.rules", 'prefix_rule(pattern=["ls"], decision="maybe")\n');
    const r = await runBin(["exec", "--rules", broken, "--", "echo", "x"], { env: s.env, cwd: s.project });
    expect(r.code).toBe(125);
    expect(r.stderr).toContain("broken.rules");
    expect(r.stderr).toContain("maybe");
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it.skipIf(skip !== undefined)("blocks writes outside the writable roots (needs bubblewrap)", async () => {
    const outside = `/var/tmp/sg-cli-outside-${process.pid}`;
    try {
      const r = await exec("--", "bash", "-c", `echo data > ${outside}`);
      expect(r.code).not.toBe(0);
      expect(existsSync(outside)).toBe(false);
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it("keeps writes inside the workspace under the default sandbox", async () => {
    const inside = path.join(s.project, "inside.txt");
    const ok = await exec("--", "bash", "-c", `echo data > ${inside}`);
    expect(ok.code).toBe(0);
    expect(readFileSync(inside, "utf8")).toBe("data\n");
  });
});
