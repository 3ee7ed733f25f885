import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm} from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { spillMarker } from "@shellgate/orchestrator";
import type { Orchestrator, OrchestratorOptions} from "@shellgate/orchestrator";
import { call, cleanupAll, createOrchestrator, describeWithSandbox, linuxSandboxAvailability, outputSection, workspace } from "./support/sandbox.js";
import type { Workspace } from "./support/sandbox.js";

const sandbox = await linuxSandboxAvailability();

afterEach(() => cleanupAll());

/** The real Linux sandbox (workspace-write, no network), never asking. */
function sandboxedOrchestrator(ws: Workspace, options: OrchestratorOptions = {}): Promise<Orchestrator> {
  return createOrchestrator(ws, { approvalPolicy: "never", ...options });
}


/** `seq 1 2000000` as the real program prints it, run unsandboxed: 14 888 896 bytes. */
const SEQ = execFileSync("seq", ["1", "2000000"], { maxBuffer: 64 * 1024 * 1024 });

describeWithSandbox("the saved full output is the full output, in the real sandbox", sandbox, () => {
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

describeWithSandbox("a call retried without the sandbox saves its final attempt only", sandbox, () => {
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

