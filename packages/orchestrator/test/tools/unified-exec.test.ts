import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { SandboxBackend } from "@shellgate/sandbox";
import { defaultSessionFactory, MAX_OUTPUT_DELTAS_PER_CALL } from "../support/internals.js";
import type { ApprovalRequest, DecisionTrace, SessionProcessFactory, SessionSpawnSpec } from "../support/internals.js";
import { call, cleanupAll, orchestrator, outputSection, pollSession, workspace } from "../support/orchestrator-helpers.js";
import { FakeProcess } from "../support/sessions-fakes.js";

afterEach(cleanupAll);

describe("interactive sessions with real processes", () => {
  it("keeps shell state across write_stdin calls on a tty (the seed's bash -i example)", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    const started = await call(orch, "exec_command", { cmd: "bash -i", tty: true, yield_time_ms: 1000 });
    expect(started.error).toBeUndefined();
    expect(started.content).toMatch(/^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess running with session ID \d+\n/);
    const id = started.sessionId as number;
    expect(id).toBeGreaterThanOrEqual(1000);
    expect(id).toBeLessThan(100_000);

    const exported = await call(orch, "write_stdin", { session_id: id, chars: "export FOO=bar\n", yield_time_ms: 500 });
    expect(exported.sessionId).toBe(id);
    // However slow the shell is today, keep polling until it has answered (or gone).
    const echoed = await call(orch, "write_stdin", { session_id: id, chars: "echo $FOO\n", yield_time_ms: 1500 });
    const seen = await pollSession(orch, id, outputSection(echoed.content), (out) => /^bar\r?$/m.test(out));
    expect(seen.exitCode).toBeUndefined();
    expect(seen.output).toMatch(/^bar\r?$/m);

    let exited = await call(orch, "write_stdin", { session_id: id, chars: "exit 7\n", yield_time_ms: 2000 });
    while (exited.exitCode === null) exited = await call(orch, "write_stdin", { session_id: id });
    expect(exited.content).toContain("Process exited with code 7\n");
    expect(exited.sessionId).toBeUndefined();
    expect(exited.exitCode).toBe(7);
    const gone = await call(orch, "write_stdin", { session_id: id });
    expect(gone.error?.code).toBe("ORCH_UNKNOWN_SESSION");
    expect(gone.content).toMatch(new RegExp(`^session ${id} has exited \\(exit code 7\\)`));
  });

  it("reports a pipe session's exit code on the poll that sees it, then forgets the session", async () => {
    const ws = await workspace();
    const { orch, events } = orchestrator(ws);
    const started = await call(orch, "exec_command", { cmd: "echo first; sleep 1; echo second; exit 3", login: false, yield_time_ms: 250 });
    const id = started.sessionId as number;
    // `sleep 1` outlives the 250 ms yield whatever the load; `first` may or may not be out yet.
    expect(started.content).toContain(`Process running with session ID ${id}\n`);
    const early = outputSection(started.content);
    expect(["", "first\n"]).toContain(early);

    const input = await call(orch, "write_stdin", { session_id: id, chars: "data\n" });
    expect(input.error?.code).toBe("ORCH_SESSION_NOT_TTY");
    expect(input.content).toContain("without tty");

    let polled = await call(orch, "write_stdin", { session_id: id }); // empty poll: ends at the exit
    let rest = outputSection(polled.content);
    while (polled.exitCode === null) {
      polled = await call(orch, "write_stdin", { session_id: id });
      rest += outputSection(polled.content);
    }
    expect(polled.content).toContain("Process exited with code 3\n");
    expect(early + rest).toBe("first\nsecond\n");
    expect(polled.exitCode).toBe(3);
    expect((await call(orch, "write_stdin", { session_id: id })).error?.code).toBe("ORCH_UNKNOWN_SESSION");
    expect(events.filter((e) => e.type === "exec.end")).toEqual([
      expect.objectContaining({ type: "exec.end", callId: started.callId, exitCode: 3 }),
    ]);
    const traces = events.flatMap((e) => (e.type === "trace" ? [e.trace] : []));
    expect(traces).toEqual([expect.objectContaining({ tool: "exec_command", outcome: "running", attempts: 1 })]);
    expect(JSON.stringify(traces)).not.toMatch(/first|second|sleep|echo/);
  });

  it("returns the exit code directly when the command finishes within the yield", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    const response = await call(orch, "exec_command", { cmd: "echo done", login: false });
    expect(response.content).toMatch(/Process exited with code 0\nOriginal token count: 2\nOutput:\ndone\n$/);
    expect(response.sessionId).toBeUndefined();
    expect(response.success).toBe(true);
  });

  it("runs in the user's shell when `shell` is absent and in the named one otherwise", async () => {
    const ws = await workspace();
    const { orch, events } = orchestrator(ws, { shell: "/bin/sh" });
    await call(orch, "exec_command", { cmd: "true", login: false }, { callId: "default-shell" });
    await call(orch, "exec_command", { cmd: "true", login: false, shell: "bash" }, { callId: "named-shell" });
    const argv0 = (callId: string) => {
      const begin = events.find((e) => e.type === "exec.begin" && e.callId === callId);
      return begin?.type === "exec.begin" ? begin.argv[0] : undefined;
    };
    expect(argv0("default-shell")).toBe("/bin/sh");
    expect(argv0("named-shell")).toMatch(/bash$/);
    // A shell shellgate cannot drive is never run as if it were bash: a fallback, and the model is told.
    const fish = await call(orch, "exec_command", { cmd: "echo hi", login: false, shell: "fish" });
    expect(fish.warnings?.[0]).toMatch(/^shell: .*fish/);
    expect(fish.content).toContain(`Warning: ${fish.warnings?.[0]}\n`);
    expect(outputSection(fish.content)).toBe("hi\n");
  });

  it("cuts output to max_output_tokens with the marker and spills the full output", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    const response = await call(orch, "exec_command", { cmd: "seq 1 2000", login: false, max_output_tokens: 25 });
    const full = Array.from({ length: 2000 }, (_, i) => `${i + 1}\n`).join("");
    expect(response.content).toContain(`Original token count: ${Math.ceil(full.length / 4)}\n`);
    expect(response.content).toContain(`Full output saved to: ${response.fullOutputPath}\n`);
    expect(outputSection(response.content)).toMatch(
      /^Warning: truncated output \(original token count: \d+\)\nTotal output lines: 2000\n\n1\n2\n[\s\S]*…\d+ tokens truncated…[\s\S]*\n2000\n$/,
    );
    expect(await readFile(response.fullOutputPath as string, "utf8")).toBe(full);
  });

  it("applies the unified exec environment to sessions", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    const response = await call(orch, "exec_command", { cmd: 'echo "$TERM $PAGER $NO_COLOR"', login: false });
    expect(outputSection(response.content)).toBe("dumb cat 1\n");
  });

  it("kills live sessions on close()", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    const started = await call(orch, "exec_command", { cmd: "echo $$; sleep 60", login: false, yield_time_ms: 300 });
    const printed = await pollSession(orch, started.sessionId as number, outputSection(started.content), (out) => /^\d+\n/.test(out));
    expect(printed.output).toMatch(/^\d+\n$/);
    const pid = Number(printed.output.trim());
    expect(pid).toBeGreaterThan(1);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await orch.close();
    expect(() => process.kill(pid, 0)).toThrow();
    expect((await call(orch, "write_stdin", { session_id: started.sessionId })).error?.code).toBe("ORCH_CANCELLED");
  });
});

describe("pruning at capacity", () => {
  it("prunes the least recently used session when a 65th starts, and warns from 60 on", async () => {
    const ws = await workspace();
    const fakes: FakeProcess[] = [];
    const fakeByCommand = new Map<string, FakeProcess>();
    const real: SessionSpawnSpec[] = [];
    let nextId = 1000;
    const processFactory: SessionProcessFactory = (spec) => {
      const command = spec.argv.at(-1);
      if (command?.startsWith("fake")) {
        const fake = new FakeProcess({ tty: spec.tty });
        fakes.push(fake);
        fakeByCommand.set(command, fake);
        return fake;
      }
      real.push(spec);
      return defaultSessionFactory(spec);
    };
    const { orch } = orchestrator(ws, { processFactory, sessionStore: { nextId: () => nextId++ } });

    const first = await Promise.all(
      Array.from({ length: 64 }, (_, i) => call(orch, "exec_command", { cmd: `fake ${i}`, login: false, yield_time_ms: 250 })),
    );
    expect(first.every((r) => r.sessionId !== undefined)).toBe(true);
    expect(orch.sessions.store.size).toBe(64);
    const warned = first.filter((r) => r.warnings?.length);
    expect(warned.length).toBeGreaterThanOrEqual(5);
    expect(warned[0]?.content).toContain("Warning: The maximum number of unified exec processes you can keep open is 60");

    // Touch the oldest so the next-oldest becomes the least recently used.
    const ids = orch.sessions.store.ids().reverse(); // least recently used first
    const [oldest, secondOldest] = ids as [number, number];
    await call(orch, "write_stdin", { session_id: oldest, chars: "x" });

    const realSession = await call(orch, "exec_command", { cmd: "sleep 30", login: false, yield_time_ms: 250 });
    expect(realSession.sessionId).toBeDefined();
    expect(real).toHaveLength(1);
    expect(orch.sessions.store.size).toBe(64);
    expect(orch.sessions.store.has(oldest)).toBe(true);
    expect(orch.sessions.store.has(secondOldest)).toBe(false);
    expect(fakes.filter((f) => f.terminated)).toHaveLength(1);
    expect((await call(orch, "write_stdin", { session_id: secondOldest })).error?.code).toBe("ORCH_UNKNOWN_SESSION");

    // An exited session outside the 8 most recent is pruned before any live one. It is chosen by the
    // store's own recency, not by spawn order: 64 concurrent calls are stored in the order their
    // pipelines finish, which a loaded machine shuffles.
    const fakeOf = (id: number) => fakeByCommand.get(`fake ${first.findIndex((r) => r.sessionId === id)}`);
    const exitedId = orch.sessions.store.ids().reverse()[20] as number; // the 21st least recently used of 64
    const exited = fakeOf(exitedId) as FakeProcess;
    expect(exited.terminated).toBe(false);
    exited.exit(0);
    await exited.exited;
    const another = await call(orch, "exec_command", { cmd: "sleep 30", login: false, yield_time_ms: 250 });
    expect(another.sessionId).toBeDefined();
    // Only the exited one was taken (terminate() is still called on it to reap its tree).
    expect(fakes.filter((f) => f.terminated)).toHaveLength(2);
    expect(exited.terminated).toBe(true);
    expect(orch.sessions.store.has(exitedId)).toBe(false);
    expect(orch.sessions.store.size).toBe(64);
    expect(orch.sessions.store.has(realSession.sessionId as number)).toBe(true);
  });
});

describe("exec_command retried after a likely sandbox denial", () => {
  /** A "sandbox" that changes nothing but reports itself as the Linux one, so denials are judged. */
  const fakeLinuxBackend: SandboxBackend = {
    name: "fake-linux",
    platform: process.platform,
    sandboxType: "linux",
    isAvailable: async () => ({ available: true, isolation: "fake" }),
    plan: async (spec) => ({ backend: "fake-linux", sandboxType: "linux", isolation: "fake", argv: [...spec.argv], cwd: spec.cwd, env: {}, unsetEnv: [], plan: {} }),
    transform: async (spec) => ({ argv: [...spec.argv], cwd: spec.cwd, env: { ...spec.env }, sandboxType: "linux", isolation: "fake" }),
  };

  it("keeps one delta cap for both attempts and unsubscribes the replaced attempt", async () => {
    const ws = await workspace();
    const procs: FakeProcess[] = [];
    const processFactory: SessionProcessFactory = () => {
      const proc = new FakeProcess({ tty: false });
      procs.push(proc);
      if (procs.length === 1) {
        // The sandboxed attempt: chatty, then refused by the sandbox.
        for (let i = 0; i < MAX_OUTPUT_DELTAS_PER_CALL - 1; i += 1) proc.emit(".");
        proc.emit("touch: cannot touch 'x': Permission denied\n");
        proc.exit(1);
      } else {
        proc.emit("made-it\n");
        proc.exit(0);
      }
      return proc;
    };
    const requests: ApprovalRequest[] = [];
    const { orch, events } = orchestrator(ws, {
      approvalPolicy: "on-failure",
      sandboxPolicy: { mode: "workspace-write" },
      sandboxBackends: [fakeLinuxBackend],
      processFactory,
      approvalHandler: async (request) => {
        requests.push(request);
        return "approved";
      },
    });
    const response = await call(orch, "exec_command", { cmd: "touch x && echo made-it", login: false }, { callId: "retried" });
    expect(response.error).toBeUndefined();
    expect(response.exitCode).toBe(0);
    expect(outputSection(response.content)).toBe("made-it\n");
    expect(procs).toHaveLength(2);
    expect(requests.map((r) => r.retryAfterDenial)).toEqual([true]);
    const traces = events.filter((e) => e.type === "trace").map((e) => (e as { trace: DecisionTrace }).trace);
    expect(traces).toEqual([expect.objectContaining({ initialSandbox: "linux", attempts: 2, outcome: "success" })]);
    const deltas = events.filter((e) => e.type === "exec.output_delta" && e.callId === "retried");
    expect(deltas).toHaveLength(MAX_OUTPUT_DELTAS_PER_CALL);
    expect(procs[0]?.listenerCount).toBe(0);
    expect(events.filter((e) => e.type === "exec.begin")).toHaveLength(1);
  });
});
