// The two-step launch: the payload format, the helper's --command-fd, and the bubblewrap layer's
// deferred form run for real (the sandbox first, its command later on descriptor 3).
import fs from "node:fs";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, describe, expect, it } from "vitest";
import { parseSandboxPolicy, type ExecEnv } from "@shellgate/sandbox";
import { createLinuxSandboxBackend, locateHelper } from "../src/index.js";
import { COMMAND_FD, DISCARDED_EXIT_CODE, encodeCommand, MAX_COMMAND_BYTES } from "../src/deferred-launch.js";
import { baseEnv, bwrapMissing, makeDirs, runDeferred, sh } from "./support.js";

/** A payload of raw body bytes behind a given length word. */
function rawPayload(length: number, body: Uint8Array | string): Uint8Array {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
  const out = Buffer.alloc(4 + bytes.length);
  out.writeUInt32LE(length, 0);
  bytes.copy(out, 4);
  return out;
}

describe("encodeCommand", () => {
  it("writes a little-endian length, then each argument NUL-terminated", () => {
    const payload = encodeCommand(["echo", "héllo", ""]);
    expect(Buffer.from(payload as Uint8Array)).toEqual(Buffer.concat([Buffer.from([13, 0, 0, 0]), Buffer.from("echo\0héllo\0\0", "utf8")]));
  });

  it("has no payload for what the format cannot carry", () => {
    expect(encodeCommand([])).toBeUndefined();
    expect(encodeCommand([""])).toBeUndefined();
    expect(encodeCommand(["echo", "a\0b"])).toBeUndefined();
    expect(encodeCommand(["x".repeat(MAX_COMMAND_BYTES)])).toBeUndefined();
    expect(encodeCommand(["x".repeat(MAX_COMMAND_BYTES - 1)])?.length).toBe(MAX_COMMAND_BYTES + 4);
  });
});

const helper = locateHelper();
const helperSkip = process.platform !== "linux" ? "not Linux" : helper ? undefined : "helper not built (run the package build)";

skipUnless(helperSkip).describe("the helper's --command-fd", () => {
  const h = helper as string;
  const direct = (payload: Uint8Array | null, args: string[] = []) =>
    runDeferred({ argv: [h, "--net", "off", ...args, "--command-fd", "3"], payload: new Uint8Array(), reuseKey: "" }, { cwd: "/", env: baseEnv(), payload });

  it("runs the command it reads, with the --setenv variables, and does not pass the descriptor on", async () => {
    const r = await direct(encodeCommand(sh('echo "$SG_DEFERRED"; ls /proc/self/fd')) as Uint8Array, ["--setenv", "SG_DEFERRED=set late"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // ls opens the directory it lists as 3: anything else above 2 was inherited
    expect(r.stdout).toBe("set late\n0\n1\n2\n3\n");
  });

  it("exits quietly with its own status when the descriptor ends before any byte", async () => {
    const r = await direct(null);
    expect(r).toMatchObject({ code: DISCARDED_EXIT_CODE, stdout: "", stderr: "" });
  });

  it("refuses malformed payloads (125), naming the problem, and runs nothing", async () => {
    const cases: Array<[Uint8Array, RegExp]> = [
      [Buffer.from([5, 0]), /ended after 2 of the 4 length bytes/],
      [rawPayload(0, ""), /empty command/],
      [rawPayload(MAX_COMMAND_BYTES + 1, "echo\0"), /over the limit of 1 MiB/],
      [rawPayload(10, "echo\0"), /ended after 5 of the command's 10 bytes/],
      [rawPayload(4, "echo"), /not NUL-terminated/],
      [rawPayload(5, "echo\0trailing"), /bytes follow/],
      [rawPayload(6, "\0echo\0"), /program name is empty/],
    ];
    for (const [payload, message] of cases) {
      const r = await direct(payload);
      expect(r.code, String(message)).toBe(125);
      expect(r.stderr, String(message)).toMatch(message);
      expect(r.stdout).toBe("");
    }
  });

  it("takes --command-fd or -- CMD, never both, and only an open descriptor above 2", async () => {
    const both = await runDeferred({ argv: [h, "--net", "off", "--command-fd", "3", "--", "true"], payload: new Uint8Array(), reuseKey: "" }, { cwd: "/", env: baseEnv(), payload: null });
    expect(both.code).toBe(125);
    expect(both.stderr).toMatch(/replaces -- CMD/);
    const closed = await runDeferred({ argv: [h, "--net", "off", "--command-fd", "7"], payload: new Uint8Array(), reuseKey: "" }, { cwd: "/", env: baseEnv(), payload: null });
    expect(closed.code).toBe(125);
    expect(closed.stderr).toMatch(/not open/);
    const stdio = await runDeferred({ argv: [h, "--net", "off", "--command-fd", "0"], payload: new Uint8Array(), reuseKey: "" }, { cwd: "/", env: baseEnv(), payload: null });
    expect(stdio.code).toBe(125);
    expect(stdio.stderr).toMatch(/above 2/);
    const execOnly = await runDeferred({ argv: [h, "--cgroup", "/nonexistent", "--command-fd", "3", "--exec-only", "--", "/bin/true"], payload: new Uint8Array(), reuseKey: "" }, { cwd: "/", env: baseEnv(), payload: null });
    expect(execOnly.code).toBe(125);
    expect(execOnly.stderr).toMatch(/--exec-only takes only/);
  });
});

skipUnless(await bwrapMissing()).describe("the bubblewrap layer's deferred launch", () => {
  const dirs = makeDirs("deferred");
  const { ws } = dirs;
  const backend = createLinuxSandboxBackend();
  const policy = parseSandboxPolicy({ mode: "workspace-write" });
  const envs: ExecEnv[] = [];
  afterAll(async () => {
    await Promise.all(envs.map((e) => e.cleanup?.()));
    dirs.remove();
  });
  const transform = async (argv: readonly string[], cwd = ws, env: Record<string, string> = baseEnv()) => {
    const execEnv = await backend.transform({ argv, cwd, env }, policy, { sandboxPolicyCwd: ws });
    envs.push(execEnv);
    if (!execEnv.deferred) throw new Error("no deferred launch");
    return { execEnv, deferred: execEnv.deferred };
  };

  it("differs from the one-step argv only in its tail", async () => {
    const { execEnv, deferred } = await transform(["echo", "hi"]);
    const sandbox = deferred.argv.slice(0, -2);
    expect(deferred.argv.slice(-2)).toEqual(["--command-fd", String(COMMAND_FD)]);
    expect(execEnv.argv).toEqual([...sandbox, "--", "echo", "hi"]);
    expect(Buffer.from(deferred.payload)).toEqual(Buffer.from(encodeCommand(["echo", "hi"]) as Uint8Array));
  });

  it("runs the command written later, with the run's cwd, env, output and exit code, and no descriptor 3", async () => {
    const sub = path.join(ws, "sub");
    fs.mkdirSync(sub, { recursive: true });
    const script = 'pwd; echo "$SG_MARK"; echo made > file; ls -l /proc/self/fd; echo err >&2; exit 7';
    const { execEnv, deferred } = await transform(sh(script), sub, { ...baseEnv(), SG_MARK: "from env" });
    const r = await runDeferred(deferred, { cwd: execEnv.cwd, env: { ...execEnv.env }, waitMs: 300 });
    expect(r.code).toBe(7);
    expect(r.stderr).toBe("err\n");
    const lines = r.stdout.split("\n");
    expect(lines.slice(0, 2)).toEqual([sub, "from env"]);
    expect(fs.readFileSync(path.join(sub, "file"), "utf8")).toBe("made\n");
    // ls's own directory handle is the only descriptor above 2, and it is not the command pipe
    const fds = lines.filter((l) => / \d+ -> /.test(l)).map((l) => (/ (\d+) -> (.*)$/.exec(l) as RegExpExecArray).slice(1, 3));
    expect(fds.map(([fd]) => fd)).toEqual(["0", "1", "2", "3"]);
    expect(fds[3]?.[1]).toMatch(/^\/proc\/\d+\/fd$/);
  });

  it("ends with the documented status and runs nothing when the descriptor ends without a command", async () => {
    const marker = path.join(ws, "should-not-exist");
    const { execEnv, deferred } = await transform(["touch", marker]);
    const r = await runDeferred(deferred, { cwd: execEnv.cwd, env: { ...execEnv.env }, payload: null, waitMs: 300 });
    expect(r).toMatchObject({ code: DISCARDED_EXIT_CODE, stderr: "" });
    expect(fs.existsSync(marker)).toBe(false);
  });

  it("refuses a malformed command inside the sandbox", async () => {
    const { execEnv, deferred } = await transform(["true"]);
    const r = await runDeferred(deferred, { cwd: execEnv.cwd, env: { ...execEnv.env }, payload: rawPayload(4, "true") });
    expect(r.code).toBe(125);
    expect(r.stderr).toMatch(/not NUL-terminated/);
  });
});
