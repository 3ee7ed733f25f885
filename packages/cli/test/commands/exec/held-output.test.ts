import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HeldTerminalOutput } from "../../../src/commands/exec/held-output.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "sg-held-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const enc = (s: string) => new TextEncoder().encode(s);

function recorder(options: { memoryCap?: number } = {}) {
  const written: string[] = [];
  const held = new HeldTerminalOutput(
    (stream, data) => {
      written.push(`${stream}:${Buffer.from(data).toString()}`);
      return data;
    },
    { ...options, parent: tmp },
  );
  return { written, held };
}

describe("HeldTerminalOutput", () => {
  it("passes output through until a prompt holds it, then writes what was held in order after the answer", () => {
    const { written, held } = recorder();
    held.push("stdout", enc("a\n"));
    held.hold();
    held.push("stderr", enc("b"));
    held.push("stdout", enc("c"));
    expect(written).toEqual(["stdout:a\n"]);
    held.release();
    expect(written).toEqual(["stdout:a\n", "stderr:b", "stdout:c"]);
    held.push("stdout", enc("d"));
    expect(written.at(-1)).toBe("stdout:d");
  });

  it("asks for a newline before the prompt unless the output ended a line", () => {
    const { held } = recorder();
    expect(held.hold()).toBe("");
    held.release();
    held.push("stdout", enc("50%\r"));
    expect(held.hold()).toBe("\n");
    held.release();
    held.push("stderr", enc("done\n"));
    expect(held.hold()).toBe("");
  });

  it("past its memory cap it spills to a private file, replays it in order and removes it", () => {
    const { written, held } = recorder({ memoryCap: 4 });
    held.hold();
    held.push("stdout", enc("123"));
    held.push("stderr", enc("45"));
    held.push("stdout", enc("6789"));
    const spilled = readdirSync(tmp).filter((n) => n.startsWith("held-"));
    expect(spilled).toHaveLength(1);
    expect(written).toEqual([]);
    held.release();
    expect(written).toEqual(["stdout:123", "stderr:45", "stdout:6789"]);
    expect(readdirSync(tmp).filter((n) => n.startsWith("held-"))).toEqual([]);
  });

  it("a spill file changed while held is read back in bounded pieces, all through `write`", () => {
    const { written, held } = recorder({ memoryCap: 1 });
    held.hold();
    held.push("stdout", enc("ab"));
    const dir = readdirSync(tmp).find((n) => n.startsWith("held-"))!;
    // A record that claims 4 GiB: read back, it is what the file holds, in pieces of at most 64 KiB.
    const forged = Buffer.concat([Buffer.from([1, 0xff, 0xff, 0xff, 0xff]), Buffer.alloc(100_000, 0x78)]);
    writeFileSync(path.join(tmp, dir, "output"), forged);
    held.release();
    const pieces = written.map((w) => w.slice("stdout:".length));
    expect(pieces.join("")).toBe("x".repeat(100_000));
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(64 * 1024);
  });

  it("never spills into a directory that is a link or that others may write: the output stays in memory, none is lost", () => {
    const target = mkdtempSync(path.join(tmp, "target-"));
    const link = path.join(tmp, "spill-link");
    symlinkSync(target, link);
    const open = path.join(tmp, "group-writable");
    mkdirSync(open);
    chmodSync(open, 0o777);
    for (const parent of [link, open]) {
      const written: string[] = [];
      const held = new HeldTerminalOutput((stream, data) => (written.push(Buffer.from(data).toString()), data), { memoryCap: 2, parent });
      held.hold();
      held.push("stdout", enc("123"));
      held.push("stdout", enc("456"));
      held.release();
      expect(written.join("")).toBe("123456");
      expect(readdirSync(parent)).toEqual([]);
    }
    // control: a private directory is used for the same output
    const { held } = recorder({ memoryCap: 2 });
    held.hold();
    held.push("stdout", enc("123"));
    expect(readdirSync(tmp).filter((n) => n.startsWith("held-"))).toHaveLength(1);
    held.dispose();
  });

  it("a release without a hold writes nothing and changes nothing", () => {
    const { written, held } = recorder();
    held.release();
    held.dispose();
    expect(written).toEqual([]);
  });
});
