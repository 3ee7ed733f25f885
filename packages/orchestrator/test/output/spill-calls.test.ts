import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Orchestrator, spillMarker } from "../src/index.js";
import type { OrchestratorOptions, ToolResponse } from "../src/index.js";
import { call, cleanupAll, linuxSandboxAvailability, orchestrator, outputSection, workspace } from "./orchestrator-helpers.js";
import type { Workspace } from "./orchestrator-helpers.js";

const sandboxed = (await linuxSandboxAvailability()).available;

const orchestrators: Orchestrator[] = [];
afterEach(async () => {
  await Promise.all(orchestrators.splice(0).map((o) => o.close()));
  await cleanupAll();
});

/** The real Linux sandbox (workspace-write, no network), never asking. */
async function sandboxedOrchestrator(ws: Workspace, options: OrchestratorOptions = {}): Promise<Orchestrator> {
  const orch = await Orchestrator.create({ cwd: ws.dir, hostEnv: ws.hostEnv, shell: "/bin/bash", approvalPolicy: "never", ...options });
  orchestrators.push(orch);
  return orch;
}

/** `seq 1 2000000` as the real program prints it, run unsandboxed: 14 888 896 bytes. */
const SEQ = execFileSync("seq", ["1", "2000000"], { maxBuffer: 64 * 1024 * 1024 });

describe.skipIf(!sandboxed)("the saved full output is the full output (issue 12), in the real sandbox", () => {
  it("shell_command `seq 1 2000000`: the file equals seq's own output byte for byte", async () => {
    const ws = await workspace();
    const spillDir = path.join(ws.dir, "spill");
    const orch = await sandboxedOrchestrator(ws, { spillDir });
    const response = await call(orch, "shell_command", { command: "seq 1 2000000", login: false, timeout_ms: 120_000 });
    expect(response.exitCode).toBe(0);
    const file = response.fullOutputPath as string;
    expect(file.startsWith(spillDir)).toBe(true);
    // All of it was saved: no note after the path.
    expect(response.content).toContain(`\nFull output saved to: ${file}\nOutput:\n`);
    const saved = await readFile(file);
    expect(saved.byteLength).toBe(SEQ.byteLength);
    expect(saved.equals(SEQ)).toBe(true);
    // The counts come from the stream, not from the 1 MiB the process layer kept.
    expect(response.content).toContain("\nTotal output lines: 2000000\n");
    // The model's view is still the head and tail of the output.
    expect(outputSection(response.content)).toMatch(/^1\n2\n3\n[\s\S]*…\d+ tokens truncated…[\s\S]*\n1999999\n2000000\n$/);
  }, 180_000);

  it("shell (structured) with a 1000-byte limit: exactly the first 1000 bytes plus the marker, and the model is told", async () => {
    const ws = await workspace();
    const orch = await sandboxedOrchestrator(ws, { spillLimitBytes: 1000 });
    const response = await call(orch, "shell", { command: ["seq", "1", "2000000"], timeout_ms: 120_000 });
    expect(response.exitCode).toBe(0);
    const parsed = JSON.parse(response.content) as { output: string; metadata: { full_output_path: string; full_output_note?: string } };
    expect(parsed.metadata.full_output_path).toBe(response.fullOutputPath);
    expect(parsed.metadata.full_output_note).toBe("first 1000 bytes of 14.2 MiB; the rest was not saved: the save limit is 1000 bytes");
    expect(parsed.output).toMatch(/^Warning: truncated output \(original token count: 3722224\)\nTotal output lines: 2000000\n\n1\n2\n/);
    const saved = await readFile(response.fullOutputPath as string);
    expect(saved.subarray(0, 1000).equals(SEQ.subarray(0, 1000))).toBe(true);
    expect(saved.subarray(1000).toString("utf8")).toBe(spillMarker("limit", 1000, 1000));
    expect(saved.toString("utf8").endsWith("later output was not saved]\n")).toBe(true);
  }, 180_000);

  it("the freeform message states the limit on the path line", async () => {
    const ws = await workspace();
    const orch = await sandboxedOrchestrator(ws, { spillLimitBytes: 4096 });
    const response = await call(orch, "shell_command", { command: "seq 1 2000000", login: false, timeout_ms: 120_000 });
    expect(SEQ.byteLength).toBe(14_888_896);
    expect(response.content).toContain(
      `\nFull output saved to: ${response.fullOutputPath} (first 4 KiB of 14.2 MiB; the rest was not saved: the save limit is 4 KiB)\nOutput:\n`,
    );
  }, 180_000);
});

describe.skipIf(!sandboxed)("a call retried without the sandbox saves its final attempt only", () => {
  const seqText = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\n`).join("");

  for (const tool of ["shell_command", "exec_command"] as const) {
    it(`${tool}: one file, holding the approved retry's output and none of the denied attempt's`, async () => {
      const ws = await workspace();
      const outside = await mkdtemp("/var/tmp/shellgate-spill-e2e-");
      try {
        const spillDir = path.join(ws.dir, "spill");
        const orch = await sandboxedOrchestrator(ws, { spillDir, approvalPolicy: "on-failure", approvalHandler: async () => "approved" });
        // Past the model's budget, so the denied attempt's output reached the disk too before it was dropped.
        const script = `seq 1 20000; touch ${outside}/x && seq 100001 105000`;
        const response =
          tool === "shell_command"
            ? await call(orch, tool, { command: script, login: false, timeout_ms: 60_000 })
            : await call(orch, tool, { cmd: script, login: false, yield_time_ms: 20_000 });
        expect(response.exitCode).toBe(0);
        const file = response.fullOutputPath as string;
        expect(await readdir(spillDir)).toEqual([path.basename(file)]);
        const saved = await readFile(file, "utf8");
        expect(saved).toBe(seqText(1, 20000) + seqText(100001, 105000));
      } finally {
        await rm(outside, { recursive: true, force: true });
      }
    }, 120_000);
  }
});

describe("what is saved, and when (no platform sandbox)", () => {
  it("an output the model saw whole leaves no file; a cut one keeps stdout and stderr interleaved in one file", async () => {
    const ws = await workspace();
    const spillDir = path.join(ws.dir, "spill");
    const { orch } = orchestrator(ws, { spillDir, outputTokenLimit: 100 });
    const small = await call(orch, "shell_command", { command: "echo small; echo err >&2", login: false });
    expect(small.fullOutputPath).toBeUndefined();
    expect(await readdir(spillDir).catch(() => [])).toEqual([]);

    const big = await call(orch, "shell_command", { command: "seq 1 5000; seq 5001 10000 >&2", login: false });
    const saved = (await readFile(big.fullOutputPath as string, "utf8")).split("\n").filter(Boolean);
    const expected = Array.from({ length: 10_000 }, (_, i) => String(i + 1));
    // Each stream's bytes in order; the two streams as the host read them.
    expect(saved.filter((n) => Number(n) <= 5000)).toEqual(expected.slice(0, 5000));
    expect(saved.filter((n) => Number(n) > 5000)).toEqual(expected.slice(5000));
    expect(await readdir(spillDir)).toEqual([path.basename(big.fullOutputPath as string)]);
  });

  it("a timed-out command's partial output is saved, with the files private", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws, { outputTokenLimit: 50 });
    const response = await call(orch, "shell_command", { command: "seq 1 3000; sleep 30", login: false, timeout_ms: 4_000 });
    expect(response.exitCode).toBe(124);
    const file = response.fullOutputPath as string;
    expect(await readFile(file, "utf8")).toBe(Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join(""));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    await orch.close();
    await expect(stat(path.dirname(file))).rejects.toThrow();
  });
});

/** The view's head: what follows the truncation header, up to the `…N tokens truncated…` marker. */
function viewHead(content: string): string {
  const out = outputSection(content);
  const body = out.slice(out.indexOf("\n\n") + 2);
  return body.slice(0, body.indexOf("…"));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\r\n`).join("");

/**
 * Send `chars`, then poll until `done` (printed by the command; its echo shows the unexpanded
 * `$((…))`) has been returned; every response, in order. Event-driven: load only means more polls.
 */
async function untilPrinted(orch: Orchestrator, id: number, chars: string, done: string, maxTokens?: number): Promise<ToolResponse[]> {
  const budget = maxTokens !== undefined ? { max_output_tokens: maxTokens } : {};
  const responses = [await call(orch, "write_stdin", { session_id: id, chars, yield_time_ms: 1_000, ...budget })];
  while (!responses.some((r) => r.content.includes(done))) {
    const last = responses[responses.length - 1] as ToolResponse;
    if (last.error || typeof last.exitCode === "number") throw new Error(`session ended early: ${last.content}`);
    responses.push(await call(orch, "write_stdin", { session_id: id, yield_time_ms: 1_000, ...budget }));
  }
  return responses;
}

async function startBash(orch: Orchestrator): Promise<number> {
  const started = await call(orch, "exec_command", { cmd: "bash --norc --noprofile -i", login: false, tty: true, yield_time_ms: 500 });
  expect(started.sessionId).toBeGreaterThan(0);
  return started.sessionId as number;
}

async function exitBash(orch: Orchestrator, id: number): Promise<ToolResponse> {
  let last = await call(orch, "write_stdin", { session_id: id, chars: "exit\r", yield_time_ms: 1_000 });
  while (typeof last.exitCode !== "number") {
    if (last.error) throw new Error(last.content);
    last = await call(orch, "write_stdin", { session_id: id, yield_time_ms: 1_000 });
  }
  return last;
}

const startOf = (content: string) => Number(/this response's output (?:starts at byte |\(from byte )(\d+)/.exec(content)?.[1] ?? 0);

describe("a PTY session writes one file, appended across write_stdin polls", () => {
  it("output of several polls lands in the same file at the offsets the responses name", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws, { outputTokenLimit: 200 });
    const id = await startBash(orch);
    const first = await untilPrinted(orch, id, "seq 1 3000; echo end-$((6*7))\r", "end-42", 50);
    const second = await untilPrinted(orch, id, "seq 3001 6000; echo end-$((6*8))\r", "end-48", 50);
    await exitBash(orch, id);

    const cut = [...first, ...second].filter((r) => r.fullOutputPath !== undefined);
    expect(cut.some((r) => first.includes(r))).toBe(true);
    expect(cut.some((r) => second.includes(r))).toBe(true);
    const file = cut[0]?.fullOutputPath as string;
    expect(new Set(cut.map((r) => r.fullOutputPath))).toEqual(new Set([file]));

    const saved = await readFile(file);
    const text = saved.toString("utf8");
    expect(text).toContain(range(1, 3000));
    expect(text).toContain(range(3001, 6000));
    expect(text.indexOf(range(1, 3000))).toBeLessThan(text.indexOf(range(3001, 6000)));
    // Every cut response: the bytes at the offset it names are the ones it showed first.
    for (const r of cut) {
      const offset = startOf(r.content);
      if (r !== cut[0]) expect(offset).toBeGreaterThan(0);
      const head = viewHead(r.content);
      expect(head.length).toBeGreaterThan(0);
      expect(saved.subarray(offset, offset + Buffer.byteLength(head)).toString("utf8")).toBe(head);
    }
    // Kept after the session ended (the model was given its path), removed by close().
    await stat(file);
    await orch.close();
    await expect(stat(file)).rejects.toThrow();
  }, 180_000);

  it("a session past the limit: its file is the first N bytes plus the marker, and later responses say their output is past it", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws, { spillLimitBytes: 1500, outputTokenLimit: 100 });
    const id = await startBash(orch);
    const first = await untilPrinted(orch, id, "seq 1 3000; echo end-$((6*7))\r", "end-42");
    const second = await untilPrinted(orch, id, "seq 3001 6000; echo end-$((6*8))\r", "end-48");
    const cutLater = second.filter((r) => r.fullOutputPath !== undefined);
    expect(cutLater.length).toBeGreaterThan(0);
    for (const r of cutLater) {
      expect(r.content).toMatch(
        /\(the session's output from its start; this response's output \(from byte \d+\) is past the saved part; first 1\.5 KiB of [\d.]+ KiB so far; the rest was not saved: the save limit is 1\.5 KiB\)\n/,
      );
    }
    const file = cutLater[0]?.fullOutputPath as string;
    expect(first.find((r) => r.fullOutputPath !== undefined)?.fullOutputPath).toBe(file);
    const marker = spillMarker("limit", 1500, 1500);
    const saved = await readFile(file);
    expect(saved.byteLength).toBe(1500 + Buffer.byteLength(marker));
    expect(saved.subarray(1500).toString("utf8")).toBe(marker);
    // The saved prefix is the session's stream: the prompt and echo, then seq's lines.
    expect(saved.subarray(0, 1500).toString("utf8")).toContain("1\r\n2\r\n3\r\n");
  }, 180_000);

  it("a session whose responses were never cut leaves no file", async () => {
    const ws = await workspace();
    const spillDir = path.join(ws.dir, "spill");
    const { orch } = orchestrator(ws, { spillDir });
    const started = await call(orch, "exec_command", { cmd: "bash --norc --noprofile -i", login: false, tty: true, yield_time_ms: 500 });
    const id = started.sessionId as number;
    let response = await call(orch, "write_stdin", { session_id: id, chars: "echo hi; exit\r", yield_time_ms: 2_000 });
    while (response.exitCode === null || response.exitCode === undefined) {
      response = await call(orch, "write_stdin", { session_id: id, yield_time_ms: 1_000 });
    }
    expect(response.fullOutputPath).toBeUndefined();
    expect(await readdir(spillDir).catch(() => [])).toEqual([]);
  }, 60_000);
});
