// Placeholder directories on the host: who creates them, who may remove them, and when not.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LinuxSandboxError } from "../src/index.js";
import { acquirePlaceholders, isLocked, LEFTOVER_AGE_MS, PLACEHOLDER_MODE, releasePlaceholders } from "../src/placeholders.js";

const base = fs.mkdtempSync(path.join(os.tmpdir(), "sg-placeholders-"));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

let counter = 0;
const fresh = (): string => path.join(base, `p${++counter}`);

function identity(dir: string): { dev: bigint; ino: bigint } {
  const stat = fs.lstatSync(dir, { bigint: true });
  return { dev: stat.dev, ino: stat.ino };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe("placeholder directories", () => {
  it("are created as empty directories and removed by the run that created them", () => {
    const dir = fresh();
    acquirePlaceholders([dir]);
    expect(fs.lstatSync(dir).isDirectory()).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([]);
    releasePlaceholders([dir]);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("stay while another run of this process still uses them", () => {
    const dir = fresh();
    acquirePlaceholders([dir]);
    acquirePlaceholders([dir]);
    releasePlaceholders([dir]);
    expect(fs.existsSync(dir)).toBe(true);
    releasePlaceholders([dir]);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("are marked with mode 1755, whatever the umask", () => {
    const dir = fresh();
    const umask = process.umask(0o077);
    try {
      acquirePlaceholders([dir]);
    } finally {
      process.umask(umask);
    }
    expect(fs.lstatSync(dir).mode & 0o7777).toBe(PLACEHOLDER_MODE);
    releasePlaceholders([dir]);
  });

  /** What a run killed before its cleanup leaves: a marked empty directory, untouched for `ageMs`. */
  function markedPlaceholder(ageMs: number): string {
    const dir = fresh();
    fs.mkdirSync(dir);
    fs.chmodSync(dir, PLACEHOLDER_MODE);
    const then = new Date(Date.now() - ageMs);
    fs.utimesSync(dir, then, then);
    return dir;
  }

  it("adopt a leftover placeholder (marked, empty, locked by no one, untouched for a while) and remove it after the run", () => {
    const dir = markedPlaceholder(LEFTOVER_AGE_MS + 5_000);
    acquirePlaceholders([dir]);
    expect(fs.lstatSync(dir).isDirectory()).toBe(true);
    releasePlaceholders([dir]);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("never adopt a fresh marked placeholder: another process may have made it and not mounted it yet", () => {
    const dir = markedPlaceholder(1_000);
    acquirePlaceholders([dir]);
    releasePlaceholders([dir]);
    expect(fs.lstatSync(dir).isDirectory()).toBe(true);
    // control: the same directory, old enough, is adopted and removed
    const old = markedPlaceholder(LEFTOVER_AGE_MS + 5_000);
    acquirePlaceholders([old]);
    releasePlaceholders([old]);
    expect(fs.existsSync(old)).toBe(false);
  });

  it("touch a placeholder they find, so that the process that made it leaves it alone", () => {
    const dir = markedPlaceholder(1_000);
    const before = fs.lstatSync(dir, { bigint: true }).mtimeNs;
    acquirePlaceholders([dir]);
    expect(fs.lstatSync(dir, { bigint: true }).mtimeNs).not.toBe(before);
    releasePlaceholders([dir]);
  });

  it("are left by the run that made them when another process's run touched them meanwhile", () => {
    const dir = fresh();
    acquirePlaceholders([dir]);
    // another process found it and marked it as in use (what its acquirePlaceholders does)
    const later = new Date(Date.now() + 2_000);
    fs.utimesSync(dir, later, later);
    releasePlaceholders([dir]);
    expect(fs.lstatSync(dir).isDirectory()).toBe(true);
    // control: untouched, the same run's cleanup removes it
    const untouched = fresh();
    acquirePlaceholders([untouched]);
    releasePlaceholders([untouched]);
    expect(fs.existsSync(untouched)).toBe(false);
  });

  it("never adopt a marked directory that is not empty, nor one with any other mode", () => {
    const filled = fresh();
    fs.mkdirSync(filled);
    fs.chmodSync(filled, PLACEHOLDER_MODE);
    fs.writeFileSync(path.join(filled, "config.toml"), "x");
    acquirePlaceholders([filled]);
    fs.unlinkSync(path.join(filled, "config.toml")); // emptied during the run: still not ours
    releasePlaceholders([filled]);
    expect(fs.lstatSync(filled).isDirectory()).toBe(true);

    for (const mode of [0o755, 0o1777, 0o1700, 0o555]) {
      const dir = fresh();
      fs.mkdirSync(dir);
      fs.chmodSync(dir, mode);
      acquirePlaceholders([dir]);
      releasePlaceholders([dir]);
      expect(fs.lstatSync(dir).isDirectory(), mode.toString(8)).toBe(true);
    }
  });

  it("are never removed when they were there before unmarked (the user's own directory, an older version's leftover)", () => {
    const dir = fresh();
    fs.mkdirSync(dir);
    acquirePlaceholders([dir]);
    releasePlaceholders([dir]);
    expect(fs.lstatSync(dir).isDirectory()).toBe(true);
  });

  it("are never removed recursively, nor when replaced by another directory", () => {
    const filled = fresh();
    acquirePlaceholders([filled]);
    fs.writeFileSync(path.join(filled, "config.toml"), "x");
    releasePlaceholders([filled]);
    expect(fs.readFileSync(path.join(filled, "config.toml"), "utf8")).toBe("x");

    const replaced = fresh();
    acquirePlaceholders([replaced]);
    fs.renameSync(replaced, `${replaced}.old`); // keeps the old inode alive, so the new one differs
    fs.mkdirSync(replaced);
    releasePlaceholders([replaced]);
    expect(fs.existsSync(replaced)).toBe(true);
  });

  it("tolerate another run having removed them already", () => {
    const dir = fresh();
    acquirePlaceholders([dir]);
    fs.rmdirSync(dir);
    expect(() => releasePlaceholders([dir])).not.toThrow();
  });

  it("fail with a typed error when they cannot be created, undoing the ones already made", () => {
    const made = fresh();
    const impossible = path.join(fresh(), "no-parent");
    let error: unknown;
    try {
      acquirePlaceholders([made, impossible]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LinuxSandboxError);
    expect(error).toMatchObject({ failure: "setup-failed", code: "SANDBOX_TRANSFORM_FAILED" });
    expect((error as Error).message).toContain(impossible);
    expect(fs.existsSync(made)).toBe(false);
  });

  it.skipIf(!fs.existsSync("/usr/bin/flock") || !fs.existsSync("/proc/locks"))(
    "stay while another process holds a lock on them (another sandbox still has them mounted)",
    async () => {
      const dir = fresh();
      acquirePlaceholders([dir]);
      // `cat` holds the lock until its stdin closes, so nothing outlives the test
      const holder = spawn("/usr/bin/flock", ["--shared", dir, "cat"], { stdio: ["pipe", "ignore", "ignore"] });
      const exited = new Promise((resolve) => holder.on("close", resolve));
      try {
        await waitFor(() => isLocked(identity(dir)), "the lock to show in /proc/locks");
        releasePlaceholders([dir]);
        expect(fs.lstatSync(dir).isDirectory()).toBe(true);
      } finally {
        holder.stdin.end();
        await exited;
      }
      expect(isLocked(identity(dir))).toBe(false);
    },
  );

  it.skipIf(!fs.existsSync("/usr/bin/flock") || !fs.existsSync("/proc/locks"))(
    "never adopt a marked directory another process's sandbox holds locked (it is in use, not left over)",
    async () => {
      const dir = markedPlaceholder(LEFTOVER_AGE_MS + 5_000); // old enough: only the lock keeps it
      const holder = spawn("/usr/bin/flock", ["--shared", dir, "cat"], { stdio: ["pipe", "ignore", "ignore"] });
      const exited = new Promise((resolve) => holder.on("close", resolve));
      try {
        await waitFor(() => isLocked(identity(dir)), "the lock to show in /proc/locks");
        acquirePlaceholders([dir]);
      } finally {
        holder.stdin.end();
        await exited;
      }
      // unlocked by now, but it was in use when this run looked: not this run's to remove
      releasePlaceholders([dir]);
      expect(fs.lstatSync(dir).isDirectory()).toBe(true);
    },
  );
});
