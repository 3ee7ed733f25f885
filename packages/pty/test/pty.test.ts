import { describe, expect, it } from "vitest";
import { ProcessExitedError, renderTerminalText, spawnPty, type ProcessHandle } from "../src/index.js";
import { cwd, env } from "./helpers.js";

function collect(h: ProcessHandle): () => string {
  const parts: Buffer[] = [];
  h.onOutput((c) => parts.push(Buffer.from(c.data)));
  return () => Buffer.concat(parts).toString("utf8");
}

async function until(read: () => string, needle: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!read().includes(needle)) {
    if (Date.now() > end) throw new Error(`never saw ${JSON.stringify(needle)} in ${JSON.stringify(read())}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("spawnPty", () => {
  it("echoes input and applies line editing (erase) before the program reads the line", async () => {
    const h = spawnPty({ argv: ["cat"], cwd, env, timeoutMs: 0 });
    const out = collect(h);
    h.write("abx\x7fc\r");
    // The terminal echoes the typing (erase shows as backspace-space-backspace), then cat prints the edited line.
    await until(out, "abx\b \bc\r\nabc\r\n");
    expect(await renderTerminalText(out())).toBe("abc\nabc");
    h.closeStdin();
    const r = await h.result();
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.aggregated).toBe(r.stdout);
  });

  it("propagates exit codes and signals", async () => {
    for (const code of [0, 3, 42]) {
      const r = await spawnPty({ argv: ["sh", "-c", `exit ${code}`], cwd, env }).result();
      expect(r.exitCode).toBe(code);
      expect(r.signal).toBeNull();
    }
    const r = await spawnPty({ argv: ["sh", "-c", "kill -KILL $$"], cwd, env }).result();
    expect(r.exitCode).toBe(137);
    expect(r.signal).toBe("SIGKILL");
  });

  it("keeps an interactive shell across writes", async () => {
    const h = spawnPty({ argv: ["bash", "--norc", "--noprofile", "-i"], cwd, env: { ...env, PS1: "$ " }, timeoutMs: 0 });
    const out = collect(h);
    h.write("export FOO=bar\r");
    h.write("echo $((6*7))-$FOO\r");
    await until(out, "42-bar");
    h.write("exit 5\r");
    const r = await h.result();
    expect(r.exitCode).toBe(5);
    expect(() => h.write("echo late\r")).toThrow(ProcessExitedError);
    expect(r.stdout).toContain("42-bar");
  });

  it("times out like a pipe: 124 and timedOut", async () => {
    const r = await spawnPty({ argv: ["bash", "--norc", "--noprofile", "-i"], cwd, env, timeoutMs: 300, killGraceMs: 200 }).result();
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBe(124);
  });

  it("terminate ends an interactive shell that ignores TERM", async () => {
    const h = spawnPty({ argv: ["bash", "--norc", "--noprofile", "-i"], cwd, env, timeoutMs: 0 });
    await h.terminate();
    expect(h.hasExited).toBe(true);
  });

  it("renders carriage-return progress and cursor moves as a person would see them", async () => {
    const h = spawnPty({
      argv: ["sh", "-c", "printf '10%%\\r50%%\\r100%%\\n'; printf 'abc\\033[2Dz\\n'; printf '\\033[31mred\\033[0m\\n'"],
      cwd, env, render: true,
    });
    const r = await h.result();
    expect(r.rendered).toBe("100%\nazc\nred");
    expect(r.stdout).toContain("10%\r50%\r100%");
  });

  it("reports the terminal size and follows resize", async () => {
    const h = spawnPty({ argv: ["sh", "-c", "stty size; read x; stty size"], cwd, env, cols: 100, rows: 30 });
    const out = collect(h);
    await until(out, "30 100");
    h.resize?.(120, 40);
    h.write("\r");
    await until(out, "40 120");
    expect((await h.result()).exitCode).toBe(0);
  });

  it("is binary-safe: invalid UTF-8 arrives as bytes and decodes lossily", async () => {
    const h = spawnPty({ argv: ["sh", "-c", "stty raw -echo; printf 'a\\377b'"], cwd, env });
    const chunks: Uint8Array[] = [];
    const streams = new Set<string>();
    h.onOutput((c) => {
      chunks.push(c.data);
      streams.add(c.stream);
    });
    const r = await h.result();
    expect([...streams]).toEqual(["pty"]);
    expect([...Buffer.concat(chunks)]).toContain(0xff);
    expect(r.stdout).toContain("a\uFFFDb");
  });

  it("runs many sessions concurrently", async () => {
    const hs = Array.from({ length: 16 }, (_, i) => spawnPty({ argv: ["sh", "-c", `echo s${i}; exit ${i % 5}`], cwd, env }));
    const rs = await Promise.all(hs.map((h) => h.result()));
    rs.forEach((r, i) => {
      expect(r.stdout).toContain(`s${i}`);
      expect(r.exitCode).toBe(i % 5);
    });
  });
});
