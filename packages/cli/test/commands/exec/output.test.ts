import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { MAX_OUTPUT_DELTAS_PER_CALL, Orchestrator } from "@shellgate/orchestrator";
import { spawnPty } from "@shellgate/pty";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, makeScratch, runBin, type Scratch } from "../../helpers.js";

const PYTHON = "/usr/bin/python3";

let s: Scratch;
beforeAll(() => {
  s = makeScratch();
});
afterAll(() => s.cleanup());

const exec = (...args: string[]) => runBin(["exec", ...args], { env: s.env, cwd: s.project });

const LINES = 200_000;
const LINE = 7;
/**
 * LINES one-write lines through a stdout whose send buffer is shrunk to the minimum, so they reach
 * shellgate in far more than MAX_OUTPUT_DELTAS_PER_CALL reads (a per-call cap on reads must
 * not end the stream early); exits 3.
 */
const PRODUCER = [
  "import os, socket, sys",
  "try:",
  "    s = socket.socket(fileno=os.dup(1)); s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1); s.close()",
  "except OSError:",
  "    import fcntl; fcntl.fcntl(1, 1031, 4096)",
  `for i in range(${LINES}):`,
  "    os.write(1, b'%06d\\n' % i)",
  "sys.stderr.write('done\\n')",
  "raise SystemExit(3)",
].join("\n");

skipUnless(existsSync(PYTHON) ? undefined : `no ${PYTHON}`).describe("shellgate exec streams all output", () => {
  it("an output of far more than 10 000 chunks arrives complete, with its exit code", async () => {
    const r = await exec("--", PYTHON, "-c", PRODUCER);
    expect(r.stderr).toBe("done\n");
    expect(r.code).toBe(3);
    expect(r.stdout.length).toBe(LINES * LINE);
    expect(r.stdout.endsWith(`${String(LINES - 2).padStart(6, "0")}\n${String(LINES - 1).padStart(6, "0")}\n`)).toBe(true);
  }, 120_000);

  it("control: the same producer read through output delta events (how exec streamed before) stops at the cap", async () => {
    const orch = new Orchestrator({ cwd: s.project, approvalPolicy: "never", sandboxPolicy: { mode: "danger-full-access" }, hostEnv: s.env });
    let bytes = 0;
    let deltas = 0;
    let capped = false;
    orch.on((e) => {
      if (e.type === "exec.output_delta") {
        deltas += 1;
        bytes += e.chunk.byteLength;
      } else if (e.type === "exec.output_capped") {
        capped = true;
      }
    });
    try {
      const response = await orch.handleToolCall({ name: "shell", arguments: { command: [PYTHON, "-c", PRODUCER], timeout_ms: 120_000 } });
      expect(response.exitCode).toBe(3);
    } finally {
      await orch.close();
    }
    expect(deltas).toBe(MAX_OUTPUT_DELTAS_PER_CALL);
    expect(capped).toBe(true);
    expect(bytes).toBeLessThan(LINES * LINE);
  }, 120_000);
});

describe("shellgate exec --json stays bounded", () => {
  it("a 50 MB output gives a JSON of about 1 MiB and a 0600 file holding all of it", async () => {
    const size = 50_000_000;
    const r = await exec("--json", "--", "bash", "-c", `head -c ${size} /dev/zero | tr '\\0' a; echo tail-end; echo err >&2; exit 5`);
    expect(r.code).toBe(5);
    expect(r.stdout.length).toBeLessThan(1.2 * 1024 * 1024);
    const result = JSON.parse(r.stdout) as {
      exitCode: number;
      stdout: string;
      stderr: string;
      truncated: boolean;
      fullOutputFiles?: { stdout?: string; stderr?: string };
    };
    expect(result.exitCode).toBe(5);
    expect(result.truncated).toBe(true);
    expect(result.stderr).toBe("err\n");
    const file = result.fullOutputFiles?.stdout;
    expect(file).toBeDefined();
    expect(result.fullOutputFiles?.stderr).toBeUndefined();
    try {
      expect(result.stdout.startsWith("aaaa")).toBe(true);
      expect(result.stdout.endsWith("aaaatail-end\n")).toBe(true);
      expect(result.stdout).toContain(`bytes omitted; the whole stdout (${size + 9} bytes) is in ${file}`);
      expect(statSync(file!).size).toBe(size + 9);
      expect(statSync(file!).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(file!)).mode & 0o777).toBe(0o700);
      expect(readFileSync(file!).subarray(-9).toString()).toBe("tail-end\n");
    } finally {
      if (file) rmSync(path.dirname(file), { recursive: true, force: true });
    }
  }, 120_000);

  it("a small output is whole in the JSON and leaves no file behind", async () => {
    const r = await exec("--json", "--", "bash", "-c", "echo small");
    const result = JSON.parse(r.stdout) as { stdout: string; truncated: boolean; fullOutputFiles?: unknown };
    expect(result).toMatchObject({ stdout: "small\n", truncated: false });
    expect(result.fullOutputFiles).toBeUndefined();
  });
});

/** OSC 52 (clipboard write), OSC 8 (hyperlink), a title change, a DCS string, a device query, and a colour that must survive. */
const HOSTILE =
  "A\u001b]52;c;cm0gLXJmIH4K\u0007B\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\C\u001b]0;owned\u0007D\u001bP+q544e\u001b\\E\u001b[6nF\u001b[31mred\u001b[0m\n";

describe("terminal escape sequences in a command's output", () => {
  const printer = ["node", "-e", `process.stdout.write(${JSON.stringify(HOSTILE)}); process.stderr.write(${JSON.stringify(HOSTILE)})`];

  it("control: piped, the output arrives byte for byte, sequences included", async () => {
    const r = await exec("--", ...printer);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(HOSTILE);
    expect(r.stderr).toBe(HOSTILE);
  });

  it("to a terminal, OSC 52/8, titles, DCS and queries are removed and colours kept", async () => {
    const handle = spawnPty({ argv: [process.execPath, BIN, "exec", "--", ...printer], cwd: s.project, env: s.env, timeoutMs: 30_000 });
    let screen = "";
    handle.onOutput((c) => (screen += Buffer.from(c.data).toString("utf8")));
    const result = await handle.result();
    expect(result.exitCode).toBe(0);
    expect(screen).not.toMatch(/\u001b[\]P]/);
    expect(screen).not.toContain("\u001b[6n");
    expect(screen).not.toContain("cm0gLXJmIH4K");
    expect(screen).not.toContain("evil.example");
    expect(screen).not.toContain("owned");
    // Both streams (stdout and stderr share the terminal), each filtered.
    expect(screen.split("ABlinkCDEF\u001b[31mred\u001b[0m").length - 1).toBe(2);
  });
});
