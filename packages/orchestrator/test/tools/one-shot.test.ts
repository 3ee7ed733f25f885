import { existsSync } from "node:fs";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, expect, it } from "vitest";
import { MAX_OUTPUT_DELTAS_PER_CALL } from "../support/internals.js";
import { cleanupAll, orchestrator, workspace } from "../support/orchestrator-helpers.js";

afterAll(cleanupAll);

const PYTHON = "/usr/bin/python3";
const LINES = 500_000;
/**
 * Prints LINES short lines, one write each, through a stdout whose send buffer is shrunk to the
 * minimum (a socket, as Node's pipes are; a pipe is shrunk with F_SETPIPE_SZ). Only a few writes fit
 * in flight, so the reader gets the output in far more than MAX_OUTPUT_DELTAS_PER_CALL chunks: on a
 * busy machine about one chunk per 25 lines (200 000 lines once gave 7 980 chunks), hence 500 000.
 * Exits 3.
 */
const PRODUCER = [
  "import os, socket",
  "try:",
  "    s = socket.socket(fileno=os.dup(1)); s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1); s.close()",
  "except OSError:",
  "    import fcntl; fcntl.fcntl(1, 1031, 4096)",
  `for i in range(${LINES}):`,
  "    os.write(1, b'%06d\\n' % i)",
  "raise SystemExit(3)",
].join("\n");
const LINE = 7;

skipUnless(existsSync(PYTHON) ? undefined : `no ${PYTHON}`).describe("one-shot output past the delta cap", () => {
  it("events stop at the cap and say so; the onOutput sink receives every byte; the exit code is kept", async () => {
    const ws = await workspace();
    const { orch, events } = orchestrator(ws);
    let bytes = 0;
    let chunks = 0;
    let last = "";
    const response = await orch.handleToolCall(
      { name: "shell", arguments: { command: [PYTHON, "-c", PRODUCER], timeout_ms: 120_000 } },
      {
        onOutput: (stream, chunk) => {
          expect(stream).toBe("stdout");
          bytes += chunk.byteLength;
          chunks += 1;
          last = (last + Buffer.from(chunk).toString("latin1")).slice(-2 * LINE);
        },
      },
    );
    expect(response.exitCode, response.content.slice(0, 2000)).toBe(3);
    // Control: the chunk count really is past the cap, so an event consumer misses output.
    expect(chunks).toBeGreaterThan(MAX_OUTPUT_DELTAS_PER_CALL);
    const deltas = events.filter((e) => e.type === "exec.output_delta");
    expect(deltas).toHaveLength(MAX_OUTPUT_DELTAS_PER_CALL);
    expect(events.filter((e) => e.type === "exec.output_capped")).toEqual([
      { type: "exec.output_capped", callId: response.callId, deltas: MAX_OUTPUT_DELTAS_PER_CALL },
    ]);
    // The sink got all of it.
    expect(bytes).toBe(LINES * LINE);
    expect(last).toBe(`${String(LINES - 2).padStart(6, "0")}\n${String(LINES - 1).padStart(6, "0")}\n`);
    expect(events.filter((e) => e.type === "exec.end")).toHaveLength(1);
  }, 120_000);

  it("a sink that throws does not break the call", async () => {
    const ws = await workspace();
    const { orch } = orchestrator(ws);
    const response = await orch.handleToolCall(
      { name: "shell", arguments: { command: ["/bin/sh", "-c", "echo hi; exit 4"] } },
      { onOutput: () => { throw new Error("bad sink"); } },
    );
    expect(response.exitCode).toBe(4);
    expect(JSON.parse(response.content).output).toBe("hi\n");
  });
});
