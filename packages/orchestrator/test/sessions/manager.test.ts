import { afterEach, describe, expect, it } from "vitest";
import {
  clampExecYield,
  clampWriteYield,
  EventBus,
  MAX_OUTPUT_DELTAS_PER_CALL,
  SESSION_PENDING_OUTPUT_CAP_BYTES,
  SessionNotTtyError,
  SessionStore,
  sessionCountWarning,
  splitUtf8,
  UnifiedExecManager,
  UnknownSessionError,
} from "../support/internals.js";
import type { OrchestratorEvent } from "../support/internals.js";
import { FakeProcess } from "../support/sessions-fakes.js";
import { writeStdin } from "../../src/tools/handlers/unified-exec.js";
import { DEFAULT_MAX_OUTPUT_TOKENS } from "../../src/tools/schemas.js";

function sequentialIds(from = 1000): () => number {
  let next = from;
  return () => next++;
}

const managers: UnifiedExecManager[] = [];
function manager(options: ConstructorParameters<typeof UnifiedExecManager>[0] = {}): UnifiedExecManager {
  const m = new UnifiedExecManager({ store: { nextId: sequentialIds() }, ...options });
  managers.push(m);
  return m;
}
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.terminateAll()));
});

async function startFake(m: UnifiedExecManager, proc: FakeProcess, callId = "call") {
  const id = m.store.reserveId();
  const session = m.createSession(id, proc, callId);
  m.trackExit(session);
  const warnings = await m.admit(session);
  return { id, session, warnings };
}

describe("yield clamps", () => {
  it("clamp exec_command and write_stdin yields as the spec says", () => {
    expect(clampExecYield(0)).toBe(250);
    expect(clampExecYield(10_000)).toBe(10_000);
    expect(clampExecYield(99_999)).toBe(30_000);
    expect(clampWriteYield(250, true)).toBe(250);
    expect(clampWriteYield(50_000, true)).toBe(30_000);
    expect(clampWriteYield(250, false)).toBe(5_000);
    expect(clampWriteYield(60_000, false)).toBe(60_000);
    expect(clampWriteYield(900_000, false)).toBe(300_000);
    expect(clampWriteYield(900_000, false, 1_000)).toBe(5_000);
  });
});

describe("SessionStore pruning at capacity", () => {
  it("warns from 60 sessions and prunes the least recently used beyond 64, sparing the 8 most recent", async () => {
    const m = manager();
    const procs: FakeProcess[] = [];
    const warnings: string[][] = [];
    for (let i = 0; i < 64; i += 1) {
      const proc = new FakeProcess();
      procs.push(proc);
      warnings.push((await startFake(m, proc)).warnings);
    }
    expect(m.store.size).toBe(64);
    expect(warnings.slice(0, 59).every((w) => w.length === 0)).toBe(true);
    expect(warnings[59]).toEqual([sessionCountWarning(60)]);
    expect(warnings[63]?.[0]).toContain("you currently have 64 processes open");

    // Use session 1000 so it becomes recent; the LRU is now 1001.
    m.store.get(1000);
    const extra = new FakeProcess();
    await startFake(m, extra);
    expect(m.store.size).toBe(64);
    expect(m.store.has(1000)).toBe(true);
    expect(m.store.has(1001)).toBe(false);
    expect(procs[1]?.terminated).toBe(true);
    expect(procs.filter((p) => p.terminated)).toHaveLength(1);
    await expect(writeStdin(m, { max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS, session_id: 1001, chars: "x" }, { callId: "w", tool: "write_stdin" })).rejects.toBeInstanceOf(
      UnknownSessionError,
    );
  });

  it("prefers an exited session outside the protected set, and never prunes the 8 most recent", async () => {
    const store = new SessionStore({ capacity: 10, warningAt: 100, nextId: sequentialIds() });
    const m = manager({ store });
    const procs: FakeProcess[] = [];
    for (let i = 0; i < 10; i += 1) {
      const proc = new FakeProcess();
      procs.push(proc);
      await startFake(m, proc);
    }
    // ids 1000..1009 in order of use; the 8 most recent (1002..1009) are protected.
    procs[5]?.exit(0); // exited but protected
    procs[1]?.exit(0); // exited and unprotected
    await new Promise((r) => setTimeout(r, 0));
    expect(store.pruneCandidate()?.id).toBe(1001);
    await startFake(m, new FakeProcess());
    expect(store.has(1001)).toBe(false);
    expect(store.has(1000)).toBe(true);
    // Next prune: no exited unprotected session left, so the LRU unprotected one (1000) goes.
    expect(store.pruneCandidate()?.id).toBe(1000);
    // Use 1005 (exited), then eight others: 1005 leaves the protected set but is more recent than
    // 1010 (live, least recently used) — the exited one is still pruned first.
    for (const id of [1005, 1000, 1002, 1003, 1004, 1006, 1007, 1008, 1009]) store.get(id);
    expect(store.pruneCandidate()?.id).toBe(1005);
  });
});

describe("UnifiedExecManager", () => {
  it("returns output with the session line while the process runs, then the exit code once and forgets it", async () => {
    const m = manager();
    const proc = new FakeProcess();
    proc.respond = (input) => (input === "echo hi\n" ? "hi\r\n" : undefined);
    const { id } = await startFake(m, proc);
    const ctx = { callId: "c2", tool: "write_stdin" };

    const first = await writeStdin(m, { max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS, session_id: id, chars: "echo hi\n", yield_time_ms: 250 }, ctx);
    expect(first.content).toMatch(/^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess running with session ID 1000\nOriginal token count: 1\nOutput:\nhi\r\n$/);
    expect(first.sessionId).toBe(1000);
    expect(first.exitCode).toBeNull();
    expect(proc.written).toEqual(["echo hi\n"]);

    setTimeout(() => {
      proc.emit("bye\n");
      proc.exit(3);
    }, 20);
    const last = await writeStdin(m, { max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS, session_id: id }, ctx); // empty poll: returns on exit, not after 5 s
    expect(last.content).toContain("Process exited with code 3\n");
    expect(last.content).not.toContain("session ID");
    expect(last.content.endsWith("Output:\nbye\n")).toBe(true);
    expect(last.exitCode).toBe(3);
    expect(last.success).toBe(false);
    expect(m.store.has(id)).toBe(false);
    await expect(writeStdin(m, { max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS, session_id: id }, ctx)).rejects.toBeInstanceOf(UnknownSessionError);
  });

  it("rejects input to a session without a terminal but lets it be polled", async () => {
    const m = manager();
    const proc = new FakeProcess({ tty: false });
    const { id } = await startFake(m, proc);
    const ctx = { callId: "c", tool: "write_stdin" };
    const error = await writeStdin(m, { max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS, session_id: id, chars: "data\n" }, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionNotTtyError);
    expect((error as SessionNotTtyError).code).toBe("ORCH_SESSION_NOT_TTY");
    expect(proc.written).toEqual([]);
    setTimeout(() => proc.exit(0), 10);
    const polled = await writeStdin(m, { max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS, session_id: id, chars: "" }, ctx);
    expect(polled.exitCode).toBe(0);
  });

  it("an empty poll of a silent process waits at least 5 s and returns no output", async () => {
    const m = manager();
    const { id } = await startFake(m, new FakeProcess());
    const started = Date.now();
    const out = await writeStdin(m, { max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS, session_id: id, yield_time_ms: 0 }, { callId: "p", tool: "write_stdin" });
    // Behaviour, not speed: the 5 s floor of an empty poll was applied (the clamp, not the 0 asked for).
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(out.content).toMatch(/Process running with session ID 1000\nOriginal token count: 0\nOutput:\n$/);
  });

  it("cuts output to max_output_tokens and stops collecting when cancelled without losing output", async () => {
    const m = manager();
    const proc = new FakeProcess();
    const { id } = await startFake(m, proc);
    proc.emit("x".repeat(1000));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(
      writeStdin(m, { max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS, session_id: id, yield_time_ms: 10_000 }, { callId: "p", tool: "write_stdin", signal: controller.signal }),
    ).rejects.toMatchObject({ code: "ORCH_CANCELLED" });
    proc.exit(0);
    const out = await writeStdin(m, { session_id: id, max_output_tokens: 10 }, { callId: "p", tool: "write_stdin" });
    expect(out.content).toContain("Original token count: 250\n");
    expect(out.content).toContain("Warning: truncated output (original token count: 250)");
    expect(out.content).toMatch(/x{20}…240 tokens truncated…x{20}$/);
  });

  it("a response whose window lost its middle reports the lines and tokens of all of it, while the kept text stays bounded", async () => {
    const m = manager();
    const proc = new FakeProcess({ tty: false });
    const { id, session } = await startFake(m, proc);
    // 300 000 lines in chunks of 1 000, about 3.8 MiB: the session keeps 1 MiB of it (head and tail).
    let bytes = 0;
    for (let chunk = 0; chunk < 300; chunk += 1) {
      let text = "";
      for (let i = 0; i < 1000; i += 1) text += `line ${chunk * 1000 + i}\n`;
      bytes += Buffer.byteLength(text);
      proc.emit(text);
    }
    expect(bytes).toBeGreaterThan(3 * SESSION_PENDING_OUTPUT_CAP_BYTES);
    expect(session.pendingBytes).toBeLessThanOrEqual(SESSION_PENDING_OUTPUT_CAP_BYTES);
    proc.exit(0);
    const out = await writeStdin(m, { max_output_tokens: 1000, session_id: id }, { callId: "p", tool: "write_stdin" });
    const tokens = Math.ceil(bytes / 4);
    expect(out.content).toContain(`Original token count: ${tokens}\n`);
    expect(out.content).toContain(`Warning: truncated output (original token count: ${tokens})\nTotal output lines: 300000\n`);
    expect(out.content).toContain("line 0\n");
    expect(out.content).toMatch(/line 299999\n$/);
    // What the model gets is its token budget plus the header, not the 1 MiB kept nor the 3.8 MiB printed.
    expect(Buffer.byteLength(out.content)).toBeLessThan(1000 * 4 + 1024);
  });

  it("emits capped output deltas tagged with the starting call and one end event", async () => {
    const events = new EventBus();
    const seen: OrchestratorEvent[] = [];
    events.on((e) => seen.push(e));
    const m = manager({ events });
    const proc = new FakeProcess();
    await startFake(m, proc, "start-call");
    for (let i = 0; i < MAX_OUTPUT_DELTAS_PER_CALL + 5; i += 1) proc.emit("y");
    proc.exit(0);
    await new Promise((r) => setTimeout(r, 0));
    const deltas = seen.filter((e) => e.type === "exec.output_delta");
    expect(deltas).toHaveLength(MAX_OUTPUT_DELTAS_PER_CALL);
    expect(deltas.every((d) => d.type === "exec.output_delta" && d.callId === "start-call" && d.stream === "pty")).toBe(true);
    const ends = seen.filter((e) => e.type === "exec.end");
    expect(ends).toEqual([{ type: "exec.end", callId: "start-call", exitCode: 0, durationMs: expect.any(Number), timedOut: false }]);
  });
});

describe("splitUtf8", () => {
  it("splits at character boundaries", () => {
    const bytes = Buffer.from("aé".repeat(5)); // 15 bytes
    const pieces = splitUtf8(bytes, 4);
    expect(pieces.every((p) => p.byteLength <= 4)).toBe(true);
    expect(pieces.map((p) => Buffer.from(p).toString("utf8")).join("")).toBe("aé".repeat(5));
    expect(pieces.some((p) => Buffer.from(p).toString("utf8").includes("\uFFFD"))).toBe(false);
  });
});
