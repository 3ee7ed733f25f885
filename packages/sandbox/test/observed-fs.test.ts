import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OPEN_FLAGS, observationsHold, observedFs, recordObservations } from "../src/index.js";

const base = fs.mkdtempSync(path.join(os.tmpdir(), "sg-observed-"));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

let n = 0;
const fresh = () => {
  const dir = path.join(base, `case-${n++}`);
  fs.mkdirSync(dir);
  return dir;
};

/** The observations of `read`, then whether they hold before and after `change`. */
function holdsAcross(read: () => void, change: () => void): { before: boolean; after: boolean } {
  const stop = recordObservations();
  try {
    read();
  } catch {
    // a failed read is an observation too
  }
  const observations = stop();
  const before = observationsHold(observations);
  change();
  return { before, after: observationsHold(observations) };
}

describe("observedFs and its recordings", () => {
  it("a changed mode or owner breaks an lstat observation; a new modification time does not", () => {
    const dir = fresh();
    const file = path.join(dir, "f");
    fs.writeFileSync(file, "x");
    expect(holdsAcross(() => observedFs.lstat(file), () => fs.chmodSync(file, 0o600))).toEqual({ before: true, after: false });
    // Control: only times change; the observation holds.
    expect(holdsAcross(() => observedFs.lstat(file), () => fs.utimesSync(file, new Date(1), new Date(2)))).toEqual({ before: true, after: true });
  });

  it("a path that appears, or is replaced by another of the same kind, breaks it", () => {
    const dir = fresh();
    const p = path.join(dir, "later");
    expect(holdsAcross(() => observedFs.lstat(p), () => fs.mkdirSync(p))).toEqual({ before: true, after: false });
    expect(holdsAcross(() => observedFs.stat(p), () => {
      fs.rmdirSync(p);
      fs.mkdirSync(p);
    })).toMatchObject({ before: true, after: false });
  });

  it("a file's text is compared, not its times: the same bytes rewritten hold, other bytes do not", () => {
    const dir = fresh();
    const file = path.join(dir, "config");
    fs.writeFileSync(file, "[core]\n");
    const read = () => observedFs.readFile(file, OPEN_FLAGS.O_RDONLY | OPEN_FLAGS.O_NONBLOCK, 1024);
    expect(holdsAcross(read, () => fs.writeFileSync(file, "[core]\n"))).toEqual({ before: true, after: true });
    expect(holdsAcross(read, () => fs.writeFileSync(file, "[core]\n\thooksPath = /x\n"))).toEqual({ before: true, after: false });
  });

  it("a missing file that appears breaks a failed read", () => {
    const dir = fresh();
    const file = path.join(dir, "gitconfig");
    const read = () => observedFs.readFile(file, OPEN_FLAGS.O_RDONLY, 1024);
    expect(() => read()).toThrow(expect.objectContaining({ code: "ENOENT" }) as Error);
    expect(holdsAcross(read, () => fs.writeFileSync(file, "x"))).toEqual({ before: true, after: false });
  });

  it("isEmptyDir records emptiness only: a second entry holds, the first breaks", () => {
    const dir = fresh();
    const sub = path.join(dir, ".git");
    fs.mkdirSync(sub);
    expect(holdsAcross(() => observedFs.isEmptyDir(sub), () => fs.writeFileSync(path.join(sub, "HEAD"), ""))).toEqual({ before: true, after: false });
    expect(holdsAcross(() => observedFs.isEmptyDir(sub), () => fs.writeFileSync(path.join(sub, "index.lock"), ""))).toEqual({ before: true, after: true });
    // Control: a full listing sees the same second entry.
    expect(holdsAcross(() => observedFs.readdir(sub), () => fs.writeFileSync(path.join(sub, "ORIG_HEAD"), ""))).toEqual({ before: true, after: false });
  });

  it("a re-pointed symlink breaks readlink and realpath", () => {
    const dir = fresh();
    fs.mkdirSync(path.join(dir, "a"));
    fs.mkdirSync(path.join(dir, "b"));
    const link = path.join(dir, "link");
    fs.symlinkSync("a", link);
    const repoint = (to: string) => () => {
      fs.unlinkSync(link);
      fs.symlinkSync(to, link);
    };
    expect(holdsAcross(() => observedFs.readlink(link), repoint("b"))).toEqual({ before: true, after: false });
    expect(holdsAcross(() => observedFs.realpath(link), repoint("a"))).toEqual({ before: true, after: false });
  });

  it.skipIf(process.platform === "win32")("a FIFO is not read (its open does not block) and its kind is what is recorded (skipped on Windows: no FIFOs)", () => {
    const fifo = path.join(fresh(), "fifo");
    // Node has no call that makes a FIFO.
    execFileSync("mkfifo", [fifo]);
    const read = observedFs.readFile(fifo, OPEN_FLAGS.O_RDONLY | OPEN_FLAGS.O_NONBLOCK, 1024);
    expect(read.text).toBeUndefined();
    expect(read.stats.isFIFO()).toBe(true);
  });

  it("a read that answered two ways within one recording never holds", () => {
    const dir = fresh();
    const p = path.join(dir, "flip");
    const stop = recordObservations();
    observedFs.lstat(p);
    fs.mkdirSync(p);
    observedFs.lstat(p);
    expect(observationsHold(stop())).toBe(false);
  });

  it("recordings checked together hold only when each does, and a read they both hold answered two ways never does", () => {
    const dir = fresh();
    const p = path.join(dir, "flip");
    const other = path.join(dir, "other");
    const first = recordObservations();
    observedFs.lstat(p);
    const before = first();
    fs.mkdirSync(p);
    const second = recordObservations();
    observedFs.lstat(p);
    observedFs.lstat(other);
    const after = second();
    // Control: each alone holds for the state it saw.
    expect(observationsHold(after)).toBe(true);
    expect(observationsHold(after, after)).toBe(true);
    expect(observationsHold(before, after)).toBe(false);
    expect(observationsHold(after, before)).toBe(false);
  });

  it("reads outside a recording, or after it stopped, are not in it; overlapping recordings both get a read", () => {
    const dir = fresh();
    const p = path.join(dir, "d");
    observedFs.lstat(p);
    const outer = recordObservations();
    const inner = recordObservations();
    observedFs.lstat(p);
    const innerSeen = inner();
    observedFs.lstat(path.join(dir, "after-inner"));
    const outerSeen = outer();
    expect(innerSeen.list.map((o) => o.args[0])).toEqual([p]);
    expect(outerSeen.list.map((o) => o.args[0])).toEqual([p, path.join(dir, "after-inner")]);
  });
});
