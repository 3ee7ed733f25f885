import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { skipUnless } from "@shellgate/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { countLines, describeSpill, formatByteSize, Orchestrator, OrchestratorConfigError, OutputSpill, OutputTally, spillMarker } from "../support/internals.js";

/** Root on Linux can mount a tiny tmpfs: a real disk that fills up. */
const canMountTmpfs = process.platform === "linux" && process.getuid?.() === 0;

const spills: OutputSpill[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(spills.splice(0).map((s) => s.dispose()));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

function newSpill(options: ConstructorParameters<typeof OutputSpill>[0] = {}): OutputSpill {
  const spill = new OutputSpill(options);
  spills.push(spill);
  return spill;
}

async function scratch(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "shellgate-spill-stream-"));
  dirs.push(dir);
  return dir;
}

/** Bytes 0..n-1 of a recognisable stream: every position holds its own index mod 251. */
function pattern(from: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i += 1) out[i] = (from + i) % 251;
  return out;
}

describe("SpillStream", () => {
  it("keeps a small output in memory: no directory, no file", async () => {
    const spill = newSpill();
    const stream = spill.open("small", { memoryBytes: 1024 });
    stream.push(Buffer.from("hello\n"));
    await stream.end();
    expect(await spill.directory()).toBeUndefined();
  });

  it("streams past the memory bound as output arrives, and removes the file nobody was shown", async () => {
    const dir = await scratch();
    const spill = newSpill({ dir });
    const stream = spill.open("big", { memoryBytes: 16 });
    stream.push(pattern(0, 10));
    stream.push(pattern(10, 100));
    // Written before anyone asked for it: the file exists while the command still runs.
    await expect.poll(async () => (await readdir(dir)).length).toBe(1);
    const [name] = await readdir(dir);
    await expect.poll(async () => (await stat(path.join(dir, name as string))).size).toBe(110);
    await stream.end();
    expect(await readdir(dir)).toEqual([]);
  });

  it("a revealed file holds every raw byte, split multibyte characters and invalid UTF-8 included, mode 0600 in a 0700 dir", async () => {
    const spill = newSpill();
    const stream = spill.open("raw/../id");
    const euro = Buffer.from("€", "utf8");
    const chunks = [Buffer.from([0x61, euro[0] as number]), Buffer.from([euro[1] as number, euro[2] as number, 0xff, 0x00, 0xc3]), Buffer.from("\n")];
    for (const c of chunks) stream.push(c);
    const summary = await stream.reveal();
    await stream.end();
    expect(summary).toMatchObject({ totalBytes: 8, savedBytes: 8 });
    expect(summary.stopped).toBeUndefined();
    expect(describeSpill(summary)).toBeUndefined();
    const file = summary.path as string;
    expect(path.basename(file)).toBe("raw_.._id-1.txt");
    expect(await readFile(file)).toEqual(Buffer.concat(chunks));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    // Kept after end() because it was revealed; removed with the spill's own directory.
    await spill.dispose();
    await expect(stat(file)).rejects.toThrow();
  });

  it("at the limit: exactly the first N bytes, then the marker, and the note states the limit", async () => {
    const spill = newSpill({ limitBytes: 1000 });
    const stream = spill.open("limited");
    let total = 0;
    for (let i = 0; i < 7; i += 1) {
      stream.push(pattern(total, 333));
      total += 333;
    }
    const summary = await stream.reveal();
    await stream.end();
    expect(summary).toMatchObject({ totalBytes: 2331, savedBytes: 1000, stopped: "limit", limitBytes: 1000 });
    const saved = await readFile(summary.path as string);
    const marker = spillMarker("limit", 1000, 1000);
    expect(marker).toBe("\n[shellgate: saving stopped here after the first 1000 bytes: the save limit of 1000 bytes was reached; later output was not saved]\n");
    expect(saved.subarray(0, 1000)).toEqual(pattern(0, 1000));
    expect(saved.subarray(1000).toString("utf8")).toBe(marker);
    expect(describeSpill(summary)).toBe("first 1000 bytes of 2.3 KiB; the rest was not saved: the save limit is 1000 bytes");
  });

  it("a disk slower than the output: saving stops at the queue bound, the file stays an exact prefix, and the note says why", async () => {
    // Writes complete asynchronously, so pushes in one synchronous burst all meet a full queue.
    const spill = newSpill({ maxQueuedBytes: 4096 });
    const stream = spill.open("backlog");
    for (let i = 0; i < 3; i += 1) stream.push(pattern(i * 3000, 3000));
    const summary = await stream.reveal();
    await stream.end();
    expect(summary).toMatchObject({ totalBytes: 9000, savedBytes: 4096, stopped: "backlog" });
    const saved = await readFile(summary.path as string);
    expect(saved.subarray(0, 4096)).toEqual(pattern(0, 4096));
    expect(saved.subarray(4096).toString("utf8")).toBe(spillMarker("backlog", 4096, summary.limitBytes));
    expect(describeSpill(summary)).toBe("first 4 KiB of 8.8 KiB; the rest was not saved: it arrived faster than it could be written to disk");
  });

  it("control: the same burst with room in the queue is saved whole", async () => {
    const spill = newSpill({ maxQueuedBytes: 9000 });
    const stream = spill.open("no-backlog");
    for (let i = 0; i < 3; i += 1) stream.push(pattern(i * 3000, 3000));
    const summary = await stream.reveal();
    await stream.end();
    expect(summary.stopped).toBeUndefined();
    expect(await readFile(summary.path as string)).toEqual(pattern(0, 9000));
  });

  it("reveal() of a growing stream waits only for what had arrived, and the file keeps growing", async () => {
    const spill = newSpill();
    const stream = spill.open("growing");
    stream.push(pattern(0, 5000));
    const first = await stream.reveal();
    expect(first.savedBytes).toBe(5000);
    stream.push(pattern(5000, 5000));
    const second = await stream.reveal();
    await stream.end();
    expect(second.path).toBe(first.path);
    expect(await readFile(second.path as string)).toEqual(pattern(0, 10_000));
  });

  it("revealing an output with no bytes still gives the model a file (empty)", async () => {
    const spill = newSpill();
    const stream = spill.open("empty");
    const summary = await stream.reveal();
    await stream.end();
    expect(summary.path).toBeDefined();
    expect((await readFile(summary.path as string)).byteLength).toBe(0);
  });

  skipUnless(canMountTmpfs ? undefined : "mounting a tmpfs needs root on Linux").it("a full disk (a 64 KiB tmpfs): saving stops at an exact prefix and the note names ENOSPC", async () => {
    const dir = await scratch();
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", dir]);
    try {
      const spill = newSpill({ dir });
      const stream = spill.open("full");
      for (let i = 0; i < 8; i += 1) stream.push(pattern(i * 32_768, 32_768));
      const summary = await stream.reveal();
      await stream.end();
      expect(summary).toMatchObject({ stopped: "error", error: "ENOSPC", totalBytes: 262_144 });
      expect(summary.savedBytes).toBeLessThan(262_144);
      const saved = await readFile(summary.path as string);
      expect(saved.byteLength).toBe(summary.savedBytes);
      expect(saved).toEqual(pattern(0, summary.savedBytes));
      expect(describeSpill(summary)).toMatch(/^first .* of 256 KiB; the rest was not saved: writing failed: ENOSPC$/);
    } finally {
      await Promise.all(spills.splice(0).map((s) => s.dispose()));
      execFileSync("umount", [dir]);
    }
  });

  it("a directory that cannot be made is reported in the summary, not thrown", async () => {
    const dir = await scratch();
    const blocker = path.join(dir, "not-a-dir");
    await writeFile(blocker, "x");
    const spill = newSpill({ dir: path.join(blocker, "spill") });
    const stream = spill.open("x");
    stream.push(Buffer.from("data"));
    const summary = await stream.reveal();
    await stream.end();
    expect(summary.path).toBeUndefined();
    expect(summary).toMatchObject({ stopped: "error", savedBytes: 0, error: "ENOTDIR" });
  });

  it("dispose() ends streams still open and removes its directory", async () => {
    const spill = newSpill();
    const stream = spill.open("open");
    stream.push(pattern(0, 100));
    const { path: file } = await stream.reveal();
    stream.push(pattern(100, 100));
    await spill.dispose();
    await expect(stat(file as string)).rejects.toThrow();
    expect(await spill.directory()).toBeUndefined();
  });
});

describe("OutputTally", () => {
  it("counts bytes and lines across chunks as countLines would", () => {
    const text = "a\nbb\n\nccc";
    for (const cut of [1, 2, 3, 5, 9]) {
      const tally = new OutputTally();
      tally.push(Buffer.from(text.slice(0, cut)));
      tally.push(Buffer.from(text.slice(cut)));
      expect(tally.totals()).toEqual({ bytes: 9, lines: countLines(text) });
    }
    const ends = new OutputTally();
    ends.push(Buffer.from("x\ny\n"));
    expect(ends.totals()).toEqual({ bytes: 4, lines: 2 });
    expect(new OutputTally().totals()).toEqual({ bytes: 0, lines: 0 });
  });

  it("take() gives each window its own count: a line cut by the window's end counts in both", () => {
    const tally = new OutputTally();
    tally.push(Buffer.from("a\nb"));
    expect(tally.take()).toEqual({ bytes: 3, lines: 2 });
    tally.push(new Uint8Array(Buffer.from("c\nd\n")));
    expect(tally.take()).toEqual({ bytes: 4, lines: 2 });
    expect(tally.take()).toEqual({ bytes: 0, lines: 0 });
    expect(tally.totals()).toEqual({ bytes: 7, lines: 3 });
  });
});

describe("spill options", () => {
  it("OutputSpill refuses a bad limit, naming it", () => {
    expect(() => new OutputSpill({ limitBytes: 0 })).toThrow(OrchestratorConfigError);
    expect(() => new OutputSpill({ limitBytes: 1.5 })).toThrow(/^limitBytes: /);
    expect(() => new OutputSpill({ maxQueuedBytes: -1 })).toThrow(/^maxQueuedBytes: /);
  });

  it("the orchestrator validates spillLimitBytes", async () => {
    const cwd = await scratch();
    let error: unknown;
    try {
      new Orchestrator({ cwd, spillLimitBytes: -5 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(OrchestratorConfigError);
    expect((error as OrchestratorConfigError).field).toBe("spillLimitBytes");
    expect(() => new Orchestrator({ cwd, spillLimitBytes: "64M" as unknown as number })).toThrow(/^spillLimitBytes: /);
  });

  it("describes a session file relative to the response", () => {
    const base = { path: "/x", limitBytes: 1000 };
    expect(describeSpill({ ...base, totalBytes: 500, savedBytes: 500 }, { responseStart: 0 })).toBeUndefined();
    expect(describeSpill({ ...base, totalBytes: 500, savedBytes: 500 }, { responseStart: 120 })).toBe(
      "the session's output from its start; this response's output starts at byte 120",
    );
    expect(describeSpill({ ...base, totalBytes: 5000, savedBytes: 1000, stopped: "limit" }, { responseStart: 2000 })).toBe(
      "the session's output from its start; this response's output (from byte 2000) is past the saved part; " +
        "first 1000 bytes of 4.9 KiB so far; the rest was not saved: the save limit is 1000 bytes",
    );
    expect(describeSpill({ ...base, totalBytes: 5000, savedBytes: 10, stopped: "error", error: "ENOSPC" })).toBe(
      "first 10 bytes of 4.9 KiB; the rest was not saved: writing failed: ENOSPC",
    );
  });

  it("formats sizes for the model", () => {
    expect(formatByteSize(1)).toBe("1 byte");
    expect(formatByteSize(1023)).toBe("1023 bytes");
    expect(formatByteSize(64 * 1024 * 1024)).toBe("64 MiB");
    expect(formatByteSize(14_888_896)).toBe("14.2 MiB");
    expect(formatByteSize(1.2 * 1024 ** 3)).toBe("1.2 GiB");
  });
});
