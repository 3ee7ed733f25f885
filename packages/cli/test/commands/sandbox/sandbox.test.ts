import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseSandboxArgs } from "../../../src/commands/sandbox/args.js";
import { UsageError } from "../../../src/errors.js";
import { BIN, runBin, type RunResult, realSandboxSkip } from "../../helpers.js";

describe("parseSandboxArgs", () => {
  it("takes the command after -- or from the first non-option, options before it", () => {
    expect(parseSandboxArgs(["--", "ls", "-la"])).toMatchObject({ kind: "run", mode: "workspace-write", argv: ["ls", "-la"] });
    expect(parseSandboxArgs(["ls", "-la", "--network"])).toMatchObject({ argv: ["ls", "-la", "--network"], network: false });
    expect(
      parseSandboxArgs(["--mode", "workspace-write", "--writable-root", "/a", "--writable-root=/b", "--network", "--deny-read", "/s", "cmd"]),
    ).toMatchObject({ writableRoots: ["/a", "/b"], deniedReadPaths: ["/s"], network: true, argv: ["cmd"] });
    expect(parseSandboxArgs(["--mode", "read-only", "--", "--weird-name"])).toMatchObject({ mode: "read-only", argv: ["--weird-name"] });
  });

  it("recognises --probe, --json and --help", () => {
    expect(parseSandboxArgs(["--probe"])).toEqual({ kind: "probe", json: false });
    expect(parseSandboxArgs(["--probe", "--json"])).toEqual({ kind: "probe", json: true });
    expect(parseSandboxArgs(["-h"])).toEqual({ kind: "help" });
  });

  it.each([
    [["--mode", "bogus", "--", "x"], /--mode/],
    [["--writable-root", "rel", "--", "x"], /--writable-root: "rel" must be an absolute path/],
    [["--deny-read", "rel", "--", "x"], /--deny-read/],
    [["--mode", "read-only", "--network", "--", "x"], /--network/],
    [["--mode", "read-only", "--writable-root", "/a", "--", "x"], /--writable-root/],
    [["--json", "--", "x"], /--json/],
    [["--probe", "--", "x"], /--probe/],
    [["--unknown", "--", "x"], /unknown/i],
    [[], /no command/],
  ])("rejects %j", (args, message) => {
    expect(() => parseSandboxArgs(args)).toThrow(UsageError);
    expect(() => parseSandboxArgs(args)).toThrow(message);
  });
});

function shellgate(args: string[], cwd: string, env: Record<string, string>): Promise<RunResult> {
  return runBin(["sandbox", ...args], { cwd, env, bin: BIN });
}

const skip = await realSandboxSkip();

describe.skipIf(skip !== undefined)(`shellgate sandbox (end to end)${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "sg-cli-sandbox-"));
  const ws = path.join(base, "ws");
  fs.mkdirSync(ws);
  const env = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: base, XDG_CACHE_HOME: path.join(base, "cache"), LANG: "C" };
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  it("runs in the workspace, passes the exit code through, keeps the rest read-only", async () => {
    const r = await shellgate(["--", "sh", "-c", 'echo hi > f && pwd && echo "net=$CODEX_SANDBOX_NETWORK_DISABLED" && exit 3'], ws, env);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(`${fs.realpathSync(ws)}\nnet=1\n`);
    expect(fs.readFileSync(path.join(ws, "f"), "utf8")).toBe("hi\n");
    const denied = await shellgate(["touch", "/etc/shellgate-cli-test"], ws, env);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/Read-only file system/);
    expect(fs.existsSync("/etc/shellgate-cli-test")).toBe(false);
    // the probe was cached on disk for the next run
    expect(fs.existsSync(path.join(base, "cache", "shellgate", "linux-sandbox-probe.json"))).toBe(true);
  });

  it("read-only mode refuses writes to the workspace", async () => {
    const r = await shellgate(["--mode", "read-only", "--", "touch", "x"], ws, env);
    expect(r.code).not.toBe(0);
    expect(fs.existsSync(path.join(ws, "x"))).toBe(false);
  });

  it("gives clear errors with exit 125/127 and runs nothing on bad input", async () => {
    const missing = await shellgate(["--", "no-such-command-xyz"], ws, env);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toBe("shellgate sandbox: command not found: no-such-command-xyz\n");
    const rel = await shellgate(["--writable-root", "rel", "--", "true"], ws, env);
    expect(rel.code).toBe(125);
    expect(rel.stderr).toMatch(/--writable-root: "rel" must be an absolute path/);
    const gone = await shellgate(["--writable-root", path.join(base, "gone"), "--", "touch", "ran"], ws, env);
    expect(gone.code).toBe(125);
    expect(gone.stderr).toMatch(/--writable-root: ".*gone" does not exist/);
    expect(fs.existsSync(path.join(ws, "ran"))).toBe(false);
  });

  it("prints the capability report, as text and as JSON", async () => {
    const text = await shellgate(["--probe"], ws, env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/isolation: bwrap\+seccomp \(full\)/);
    const json = await shellgate(["--probe", "--json"], ws, env);
    expect(JSON.parse(json.stdout)).toMatchObject({ level: "full", isolation: "bwrap+seccomp" });
  });

  it("prints help", async () => {
    const r = await shellgate(["--help"], ws, env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: shellgate sandbox/);
  });
});
