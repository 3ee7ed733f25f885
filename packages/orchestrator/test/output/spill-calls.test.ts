import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Orchestrator, ToolResponse } from "../support/internals.js";
import { spillMarker } from "../support/internals.js";
import { call, cleanupAll, orchestrator, outputSection, workspace } from "../support/orchestrator-helpers.js";

const orchestrators: Orchestrator[] = [];
afterEach(async () => {
  await Promise.all(orchestrators.splice(0).map((o) => o.close()));
  await cleanupAll();
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
