import fs from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { computeWritableRoots, COARSE_TIMESTAMP_SLACK_MS, DirectoryListingCache, findRunRepositories } from "../src/index.js";
import { layout, tempDir, workspaceWrite } from "./helpers.js";

/** Pretend everything made so far is old: move its times before the slack window. */
async function age(p: string): Promise<void> {
  const old = new Date(Date.now() - 60_000);
  await fs.lutimes(p, old, old);
}

async function rootsOf(ws: string) {
  return computeWritableRoots(workspaceWrite(), { cwd: ws, env: {}, hostEnv: { GIT_CONFIG_NOSYSTEM: "1" } });
}

describe("findRunRepositories", () => {
  it("finds a .git directory and a .git file made during the run, at any depth, and nothing older", async () => {
    const ws = await tempDir();
    await layout(ws, { "old/.git/config": "", "a/b/c/": "" });
    const roots = await rootsOf(ws);
    // ctime cannot be set back, so "before the run" is a start after the old repository was made.
    const startedAt = Date.now() + COARSE_TIMESTAMP_SLACK_MS + 5;
    await new Promise((r) => setTimeout(r, COARSE_TIMESTAMP_SLACK_MS + 20));
    await layout(ws, { "a/b/c/.git/HEAD": "ref: refs/heads/main\n", "wt/.git": "gitdir: /elsewhere\n" });
    const scan = findRunRepositories(roots, startedAt);
    expect(scan.complete).toBe(true);
    expect(scan.repositories).toEqual([
      { path: path.join(ws, "a/b/c"), gitPath: path.join(ws, "a/b/c/.git"), change: "created" },
      { path: path.join(ws, "wt"), gitPath: path.join(ws, "wt/.git"), change: "created" },
    ]);
  }, 10_000);

  it("reports an older repository whose hooks or config changed during the run", async () => {
    const ws = await tempDir();
    await layout(ws, { "vendored/.git/hooks/pre-commit.sample": "", "vendored/.git/config": "", "quiet/.git/config": "" });
    const roots = await rootsOf(ws);
    const startedAt = Date.now() + COARSE_TIMESTAMP_SLACK_MS + 5;
    await new Promise((r) => setTimeout(r, COARSE_TIMESTAMP_SLACK_MS + 20));
    await fs.writeFile(path.join(ws, "vendored/.git/hooks/pre-commit.sample"), "#!/bin/sh\n");
    expect(findRunRepositories(roots, startedAt).repositories).toEqual([
      { path: path.join(ws, "vendored"), gitPath: path.join(ws, "vendored/.git"), change: "changed" },
    ]);
  }, 10_000);

  it("skips the root's own (held) .git and never follows a symlinked directory", async () => {
    const ws = await tempDir();
    const outside = await tempDir();
    await layout(ws, { ".git/config": "", "src/": "" });
    await layout(outside, { "other/.git/config": "" });
    await fs.symlink(outside, path.join(ws, "link"));
    const scan = findRunRepositories(await rootsOf(ws), Date.now() - 1);
    expect(scan.repositories).toEqual([]);
  });

  it("stops at its directory budget and says it did not see everything", async () => {
    const ws = await tempDir();
    await layout(ws, { "a/": "", "b/": "", "c/": "", "d/.git/HEAD": "" });
    await age(ws);
    const partial = findRunRepositories(await rootsOf(ws), Date.now(), { maxDirectories: 2 });
    expect(partial).toMatchObject({ complete: false, directories: 2 });
    const whole = findRunRepositories(await rootsOf(ws), Date.now() - 1);
    expect(whole.complete).toBe(true);
    expect(whole.repositories.map((r) => r.path)).toEqual([path.join(ws, "d")]);
  });
});

describe("findRunRepositories: which roots", () => {
  it("searches only the roots it is told to, a nested one included", async () => {
    const outer = await tempDir();
    await layout(outer, { "ws/": "", "other/.git/HEAD": "" });
    const ws = path.join(outer, "ws");
    await layout(ws, { "made/.git/HEAD": "" });
    const roots = await computeWritableRoots(workspaceWrite({ writableRoots: [outer] }), { cwd: ws, env: {}, hostEnv: { GIT_CONFIG_NOSYSTEM: "1" } });
    const all = findRunRepositories(roots, Date.now() - 1000).repositories.map((r) => r.path).sort();
    expect(all).toEqual([path.join(outer, "other"), path.join(ws, "made")]);
    const onlyWs = findRunRepositories(roots, Date.now() - 1000, { searchRoots: [ws] }).repositories.map((r) => r.path);
    expect(onlyWs).toEqual([path.join(ws, "made")]);
  });
});

describe("findRunRepositories: listings kept between the searches of a session", () => {
  it("reads only the directories that changed, and still finds a repository made deep in an old tree", async () => {
    const ws = await tempDir();
    await layout(ws, { "node_modules/a/lib/x/": "", "node_modules/b/test/": "", "src/": "" });
    const roots = await rootsOf(ws);
    const cache = new DirectoryListingCache();
    // Listings are kept only for directories whose change time lies before the search's window.
    await new Promise((r) => setTimeout(r, COARSE_TIMESTAMP_SLACK_MS + 20));
    const first = findRunRepositories(roots, Date.now(), { cache });
    expect(first).toMatchObject({ repositories: [], complete: true, directories: 8, listed: 8 });

    const second = findRunRepositories(roots, Date.now(), { cache });
    expect(second).toMatchObject({ repositories: [], directories: 8, listed: 0 });

    const startedAt = Date.now();
    await layout(ws, { "node_modules/a/lib/x/.git/HEAD": "" });
    const third = findRunRepositories(roots, startedAt, { cache });
    expect(third.repositories).toEqual([{ path: path.join(ws, "node_modules/a/lib/x"), gitPath: path.join(ws, "node_modules/a/lib/x/.git"), change: "created" }]);
    // Only the directory that gained an entry was read again.
    expect(third.listed).toBe(1);
  }, 10_000);

  it("a directory replaced by another under the same name is read again", async () => {
    const ws = await tempDir();
    await layout(ws, { "a/old/": "", "b/": "" });
    const roots = await rootsOf(ws);
    const cache = new DirectoryListingCache();
    await new Promise((r) => setTimeout(r, COARSE_TIMESTAMP_SLACK_MS + 20));
    findRunRepositories(roots, Date.now(), { cache });
    const startedAt = Date.now();
    await layout(ws, { "c/.git/HEAD": "" });
    await fs.rename(path.join(ws, "a"), path.join(ws, "a.gone"));
    await fs.rename(path.join(ws, "c"), path.join(ws, "a"));
    const scan = findRunRepositories(roots, startedAt, { cache });
    expect(scan.repositories.map((r) => r.path)).toEqual([path.join(ws, "a")]);
  }, 10_000);
});
