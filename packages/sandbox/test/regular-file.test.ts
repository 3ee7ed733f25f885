// The `.git` file and a worktree's `commondir` are read on the host while roots are computed; a
// sandboxed command may have put a FIFO where either is expected. Such files are refused unread
// with the path and what was found; the control shows that a plain read of the FIFO blocks.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { computeWritableRoots, readGitdirPointer, SandboxNotRegularFileError } from "../src/index.js";
import { readRegularFileSync } from "../src/paths.js";
import { tempDir, workspaceWrite } from "./helpers.js";

const posix = process.platform !== "win32";

function mkfifo(p: string): void {
  const r = spawnSync("mkfifo", [p]);
  if (r.status !== 0) throw new Error(`mkfifo ${p}: ${String(r.stderr)}`);
}

describe.skipIf(!posix)(`reading host-side files only when they are regular files${posix ? "" : " (skipped: no FIFOs on Windows)"}`, () => {
  it("a worktree's commondir that is a FIFO fails the roots with the path; a plain read of it (the control) does not finish within a second", async () => {
    const [cwd, store] = [await tempDir(), await tempDir()];
    const gitdir = path.join(store, "repo.git", "worktrees", "wt");
    fs.mkdirSync(gitdir, { recursive: true });
    const commondir = path.join(gitdir, "commondir");
    mkfifo(commondir);
    fs.writeFileSync(path.join(cwd, ".git"), `gitdir: ${gitdir}\n`);
    const control = spawnSync(process.execPath, ["-e", `require("node:fs").readFileSync(${JSON.stringify(commondir)})`], { timeout: 1000 });
    expect(control.signal).toBe("SIGTERM");
    const error = await computeWritableRoots(workspaceWrite({ writableRoots: [store] }), { cwd, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxNotRegularFileError);
    expect(error).toMatchObject({ code: "SANDBOX_NOT_REGULAR_FILE", file: commondir, found: "FIFO" });
  });

  it("a .git that is a FIFO is refused by readGitdirPointer and held (not read) by computeWritableRoots", async () => {
    const cwd = await tempDir();
    const git = path.join(cwd, ".git");
    mkfifo(git);
    await expect(readGitdirPointer(git)).rejects.toThrow(`${git}: found a FIFO where a regular file was expected`);
    const roots = await computeWritableRoots(workspaceWrite(), { cwd, env: {} });
    expect(roots[0]?.readOnlySubpaths).toContain(git);
  });

  it("readRegularFileSync names a directory and a symbolic link (when links are not followed), and reads a regular file", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "f");
    fs.writeFileSync(file, "text");
    fs.symlinkSync(file, path.join(dir, "link"));
    expect(() => readRegularFileSync(dir)).toThrow(/found a directory/);
    expect(() => readRegularFileSync(path.join(dir, "link"), { followLinks: false })).toThrow(/found a symbolic link/);
    expect(readRegularFileSync(path.join(dir, "link"))).toBe("text");
  });
});
