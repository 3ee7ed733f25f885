import { readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  approxTokenCount,
  countLines,
  formatDurationSeconds,
  formatFreeform,
  formatStructured,
  formatUnifiedExec,
  formattedTruncateText,
  newChunkId,
  OutputSpill,
  renderWithSpill,
  truncateText,
} from "../support/internals.js";

const SENTENCE = "this is an example of a long output that should be truncated";

describe("truncateText", () => {
  it("leaves text within the budget unchanged", () => {
    expect(truncateText("example output", { kind: "tokens", limit: 10 })).toEqual({
      text: "example output",
      truncated: false,
      removedChars: 0,
      removedBytes: 0,
    });
  });

  it("matches the spec's examples for token and byte budgets", () => {
    expect(SENTENCE.length).toBe(60);
    expect(truncateText("example output", { kind: "tokens", limit: 1 }).text).toBe("ex…3 tokens truncated…ut");
    expect(truncateText("example output", { kind: "bytes", limit: 1 }).text).toBe("…13 chars truncated…t");
    expect(truncateText(SENTENCE, { kind: "tokens", limit: 5 }).text).toBe("this is an…10 tokens truncated… truncated");
    expect(truncateText(SENTENCE, { kind: "bytes", limit: 30 }).text).toBe(
      "this is an exam…30 chars truncated…ld be truncated",
    );
  });

  it("never splits a multi-byte character", () => {
    const text = "é".repeat(50); // 100 bytes
    const cut = truncateText(text, { kind: "bytes", limit: 11 });
    expect(cut.truncated).toBe(true);
    expect(cut.text).not.toContain("\uFFFD");
    const [head, tail] = cut.text.split(/…\d+ chars truncated…/);
    expect(Buffer.byteLength(head ?? "")).toBeLessThanOrEqual(5);
    expect(Buffer.byteLength(tail ?? "")).toBeLessThanOrEqual(6);
    expect((head ?? "").length + (tail ?? "").length + cut.removedChars).toBe(50);
  });

  it("estimates tokens at four bytes each, rounding up", () => {
    expect(approxTokenCount("")).toBe(0);
    expect(approxTokenCount("abcde")).toBe(2);
    expect(countLines("a\nb\n")).toBe(2);
    expect(countLines("a\nb")).toBe(2);
    expect(countLines("")).toBe(0);
  });
});

describe("formattedTruncateText", () => {
  it("adds the warning and line count only when it cut something", () => {
    expect(formattedTruncateText("short", { kind: "tokens", limit: 100 }).text).toBe("short");
    expect(formattedTruncateText("example output", { kind: "tokens", limit: 1 }).text).toBe(
      "Warning: truncated output (original token count: 4)\nTotal output lines: 1\n\nex…3 tokens truncated…ut",
    );
  });
});

describe("model-facing formats", () => {
  const result = { exitCode: 0, durationMs: 127, aggregated: "src/main.rs:42:    // TODO: refactor this\n", timedOut: false };

  it("renders freeform text for shell_command", () => {
    const { text } = formatFreeform(result, { kind: "tokens", limit: 10_000 });
    expect(text).toBe("Exit code: 0\nWall time: 0.1 seconds\nOutput:\nsrc/main.rs:42:    // TODO: refactor this\n");
  });

  it("says how many lines there were and where the full output is when it cut", () => {
    const long = { ...result, aggregated: Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n") };
    const { text } = formatFreeform(long, { kind: "bytes", limit: 40 }, "/tmp/x.txt");
    expect(text).toMatch(/^Exit code: 0\nWall time: 0\.1 seconds\nTotal output lines: 100\nFull output saved to: \/tmp\/x\.txt\nOutput:\nline 0\n/);
    expect(text).toMatch(/…\d+ chars truncated…/);
    expect(text.endsWith("line 99")).toBe(true);
  });

  it("prefixes a timeout notice", () => {
    const { text } = formatFreeform({ exitCode: 124, durationMs: 5003, aggregated: "partial\n", timedOut: true }, {
      kind: "tokens",
      limit: 100,
    });
    expect(text).toBe("Exit code: 124\nWall time: 5 seconds\nOutput:\ncommand timed out after 5003 milliseconds\npartial\n");
  });

  it("renders structured JSON for shell", () => {
    const { text, value } = formatStructured({ ...result, exitCode: 3, durationMs: 1260 }, { kind: "tokens", limit: 100 });
    expect(JSON.parse(text)).toEqual({
      output: result.aggregated,
      metadata: { exit_code: 3, duration_seconds: 1.3 },
    });
    expect(value.metadata.exit_code).toBe(3);
  });

  it("formats durations like the reference", () => {
    expect(formatDurationSeconds(40)).toBe("0");
    expect(formatDurationSeconds(127)).toBe("0.1");
    expect(formatDurationSeconds(1000)).toBe("1");
    expect(formatDurationSeconds(12_549)).toBe("12.5");
  });

  it("renders a unified exec response with a session line or an exit line", () => {
    const running = formatUnifiedExec({
      chunkId: "f800eb",
      wallTimeMs: 1002.4,
      sessionId: 32244,
      output: "x".repeat(252),
      maxOutputTokens: 10_000,
    }).text;
    expect(running).toBe(
      `Chunk ID: f800eb\nWall time: 1.0024 seconds\nProcess running with session ID 32244\nOriginal token count: 63\nOutput:\n${"x".repeat(252)}`,
    );
    const exited = formatUnifiedExec({ chunkId: "abc123", wallTimeMs: 5, exitCode: 2, output: "", maxOutputTokens: 10 }).text;
    expect(exited).toBe("Chunk ID: abc123\nWall time: 0.0050 seconds\nProcess exited with code 2\nOriginal token count: 0\nOutput:\n");
    expect(newChunkId()).toMatch(/^[0-9a-f]{6}$/);
  });

  it("cuts unified exec output to max_output_tokens with the warning header", () => {
    const { text, truncation } = formatUnifiedExec({
      chunkId: "000000",
      wallTimeMs: 1,
      exitCode: 0,
      output: "a".repeat(100) + "b".repeat(100),
      maxOutputTokens: 5,
    });
    expect(truncation.truncated).toBe(true);
    expect(text).toContain("Original token count: 50\n");
    expect(text).toContain("Output:\nWarning: truncated output (original token count: 50)\nTotal output lines: 1\n\naaaaaaaaaa…45 tokens truncated…bbbbbbbbbb");
  });
});

describe("OutputSpill", () => {
  const spills: OutputSpill[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(spills.splice(0).map((s) => s.dispose()));
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it("saves the full output to a private file and removes its own directory on dispose", async () => {
    const spill = new OutputSpill();
    spills.push(spill);
    const full = "head\n" + "middle\n".repeat(10_000) + "tail\n";
    const rendered = await renderWithSpill(
      (p) => formatFreeform({ exitCode: 0, durationMs: 1, aggregated: full, timedOut: false }, { kind: "tokens", limit: 10 }, p),
      full,
      spill,
      "call/1",
    );
    expect(rendered.fullOutputPath).toBeDefined();
    const file = rendered.fullOutputPath as string;
    expect(path.basename(file)).toBe("call_1-1.txt");
    expect(rendered.text).toContain(`Full output saved to: ${file}`);
    expect(await readFile(file, "utf8")).toBe(full);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await spill.dispose();
    await expect(stat(file)).rejects.toThrow();
  });

  it("writes nothing when the output fits", async () => {
    const spill = new OutputSpill();
    spills.push(spill);
    const rendered = await renderWithSpill(
      (p) => formatFreeform({ exitCode: 0, durationMs: 1, aggregated: "ok\n", timedOut: false }, { kind: "tokens", limit: 10 }, p),
      "ok\n",
      spill,
      "c",
    );
    expect(rendered.fullOutputPath).toBeUndefined();
    expect(await spill.directory()).toBeUndefined();
  });

  it("leaves a caller-supplied directory in place", async () => {
    const dir = path.join(os.tmpdir(), `shellgate-spill-test-${process.pid}-${Date.now()}`);
    dirs.push(dir);
    const spill = new OutputSpill({ dir });
    const file = await spill.save("c", "data");
    expect(path.dirname(file)).toBe(dir);
    await spill.dispose();
    expect(await readFile(file, "utf8")).toBe("data");
  });
});
