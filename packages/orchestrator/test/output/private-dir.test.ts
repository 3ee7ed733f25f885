// The spill writer never writes through a name something else could have replaced: its directory is
// checked by lstat (ours, a real directory, writable by nobody else) and re-checked around every
// file it creates, and files are created O_EXCL|O_NOFOLLOW. Each refusal has a control: the same
// planted link redirects a plain write.
import { chmod, chown, lutimes, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPrivateFile, defaultSpillDir, ensurePrivateDir, OutputSpill, removeExpired, DEFAULT_SPILL_MAX_AGE_MS } from "../support/internals.js";

const isRoot = process.getuid?.() === 0;
const cleanups: Array<() => Promise<unknown>> = [];
const savedCache = process.env["XDG_CACHE_HOME"];
let scratch: string;
/** A directory the host must never write into: where planted links point. */
let target: string;

beforeEach(async () => {
  scratch = await realpath(await mkdtemp(path.join(os.tmpdir(), "sg-private-dir-")));
  cleanups.push(() => rm(scratch, { recursive: true, force: true }));
  target = path.join(scratch, "target");
  await mkdir(target);
  process.env["XDG_CACHE_HOME"] = path.join(scratch, "cache");
});
afterEach(async () => {
  if (savedCache === undefined) delete process.env["XDG_CACHE_HOME"];
  else process.env["XDG_CACHE_HOME"] = savedCache;
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

function spill(options: ConstructorParameters<typeof OutputSpill>[0] = {}): OutputSpill {
  const s = new OutputSpill(options);
  cleanups.unshift(() => s.dispose());
  return s;
}

async function saveOnce(s: OutputSpill, name: string, text: string) {
  const stream = s.open(name);
  stream.push(Buffer.from(text));
  const summary = await stream.reveal();
  await stream.end();
  return summary;
}

describe("the spill location", () => {
  it("defaults to a private per-session directory in shellgate's cache directory, per user", async () => {
    const s = spill();
    const summary = await saveOnce(s, "call", "hello");
    const base = path.join(scratch, "cache", "shellgate", `output-${process.getuid?.()}`);
    expect(defaultSpillDir()).toBe(base);
    expect(path.dirname(path.dirname(summary.path as string))).toBe(base);
    expect(await readFile(summary.path as string, "utf8")).toBe("hello");
    for (const dir of [base, path.dirname(summary.path as string)]) expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(summary.path as string)).mode & 0o777).toBe(0o600);
  });

  it("control: a link planted in place of a spill directory redirects a plain write", async () => {
    const dir = path.join(scratch, "spill");
    await symlink(target, dir);
    await writeFile(path.join(dir, "x.txt"), "redirected");
    expect(await readdir(target)).toEqual(["x.txt"]);
  });

  it("a link planted in place of the spill directory is refused, not followed", async () => {
    const dir = path.join(scratch, "spill");
    await symlink(target, dir);
    const summary = await saveOnce(spill({ dir }), "call", "should not land");
    expect(summary.path).toBeUndefined();
    expect(summary).toMatchObject({ stopped: "error" });
    expect(summary.error).toMatch(/^ELOOP: .*is a symlink/);
    expect(await readdir(target)).toEqual([]);
  });

  it("control: renaming the session directory away and linking its name elsewhere redirects a plain write", async () => {
    const first = await saveOnce(spill(), "call", "one");
    const sessionDir = path.dirname(first.path as string);
    await rename(sessionDir, `${sessionDir}.moved`);
    await symlink(target, sessionDir);
    await writeFile(path.join(sessionDir, "call-2.txt"), "redirected");
    expect(await readdir(target)).toEqual(["call-2.txt"]);
  });

  it("the session directory swapped for a link between two saves: the second save is refused and nothing lands there", async () => {
    const s = spill();
    const first = await saveOnce(s, "call", "one");
    const sessionDir = path.dirname(first.path as string);
    await rename(sessionDir, `${sessionDir}.moved`);
    await symlink(target, sessionDir);
    const second = await saveOnce(s, "call", "two");
    expect(second.path).toBeUndefined();
    expect(second.error).toMatch(/^ESTALE: .*no longer the directory/);
    expect(await readdir(target)).toEqual([]);
    // Closing the session removes only the directory it made: the link is left, the target untouched.
    await writeFile(path.join(target, "keep"), "mine");
    await s.dispose();
    expect(await readdir(target)).toEqual(["keep"]);
  });

  it("a link planted under a file's name is refused (O_EXCL|O_NOFOLLOW), where a plain open would follow it", async () => {
    const dir = await ensurePrivateDir(path.join(scratch, "spill"));
    await symlink(path.join(target, "victim"), path.join(dir.path, "next.txt"));
    await expect(createPrivateFile(dir, "next.txt")).rejects.toMatchObject({ code: "EEXIST" });
    expect(await readdir(target)).toEqual([]);
    // Control: a plain write to the same name creates the file the link points to.
    await writeFile(path.join(dir.path, "next.txt"), "followed");
    expect(await readdir(target)).toEqual(["victim"]);
  });

  it("a directory others can write to is refused; so is one another user owns", async () => {
    const dir = path.join(scratch, "shared");
    await mkdir(dir);
    await chmod(dir, 0o777);
    const summary = await saveOnce(spill({ dir }), "call", "x");
    expect(summary.error).toMatch(/^EPERM: .*writable by group or others/);
    if (isRoot) {
      const theirs = path.join(scratch, "theirs");
      await mkdir(theirs, { mode: 0o700 });
      await chown(theirs, 65534, 65534);
      expect((await saveOnce(spill({ dir: theirs }), "call", "x")).error).toMatch(/^EPERM: .*owned by uid 65534/);
    }
  });
});

describe("age cleanup", () => {
  it(`removes files left by sessions that never closed once older than ${DEFAULT_SPILL_MAX_AGE_MS / 3_600_000} h, keeps newer ones, follows no link`, async () => {
    const base = defaultSpillDir();
    await ensurePrivateDir(base);
    const old = (Date.now() - DEFAULT_SPILL_MAX_AGE_MS - 60_000) / 1000;
    const dead = path.join(base, "session-dead");
    const live = path.join(base, "session-live");
    await mkdir(dead, { mode: 0o700 });
    await mkdir(live, { mode: 0o700 });
    await writeFile(path.join(dead, "a-1.txt"), "old");
    await writeFile(path.join(live, "old-1.txt"), "old");
    await writeFile(path.join(live, "new-2.txt"), "new");
    await writeFile(path.join(target, "precious"), "not ours");
    await utimes(path.join(target, "precious"), old, old);
    await symlink(target, path.join(base, "session-link"));
    await lutimes(path.join(base, "session-link"), old, old);
    await symlink(target, path.join(live, "link-3.txt"));
    await lutimes(path.join(live, "link-3.txt"), old, old);
    for (const f of [path.join(dead, "a-1.txt"), path.join(live, "old-1.txt")]) await utimes(f, old, old);
    await utimes(dead, old, old);

    // The first save of a new session sweeps.
    await saveOnce(spill(), "call", "x");
    const left = await readdir(base);
    expect(left).not.toContain("session-dead");
    expect(left).not.toContain("session-link");
    expect(await readdir(live)).toEqual(["new-2.txt"]);
    expect(await readdir(target)).toEqual(["precious"]);
  });

  it("removeExpired takes a bound of its own and never throws on a missing directory", async () => {
    await expect(removeExpired(path.join(scratch, "missing"), 1)).resolves.toBeUndefined();
    const dir = path.join(scratch, "spill");
    await mkdir(path.join(dir, "s"), { recursive: true });
    await writeFile(path.join(dir, "s", "f.txt"), "x");
    await removeExpired(dir, 60_000, Date.now() + 120_000);
    expect(await readdir(dir)).toEqual([]);
  });
});
