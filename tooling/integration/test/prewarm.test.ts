// A pre-warmed sandbox (`prewarmSandboxes`) is set up before the command it will run is known. What
// it mounted may be replaced while it waits; the call must then get a sandbox of what is there now.
import { spawnSync } from "node:child_process";
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { call, cleanupAll, createOrchestrator, describeWithSandbox, linuxSandboxAvailability, outputSection, workspace } from "./support/sandbox.js";

const sandbox = await linuxSandboxAvailability();
afterEach(cleanupAll);

/** Pids of the spares waiting for their command in `ws` (their argv names the workspace and `--command-fd`). */
async function sparesIn(ws: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const args = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (args.includes("\0--command-fd\0") && args.includes(ws)) pids.push(Number(name));
  }
  return pids;
}

async function waitForSpare(ws: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await sparesIn(ws)).length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("no spare sandbox appeared");
}

/**
 * Replace the repository's `.git` (which every sandbox of the workspace mounts read-only) with a copy
 * of itself holding `marker`: the same plan for the next call, another directory on the host.
 */
function replaceGitDir(ws: string): void {
  const git = path.join(ws, ".git");
  expect(spawnSync("cp", ["-a", git, `${git}.new`]).status).toBe(0);
  writeFileSync(path.join(`${git}.new`, "marker"), "the new .git\n");
  rmSync(git, { recursive: true, force: true });
  renameSync(`${git}.new`, git);
}

/** Seconds since the sandbox's init started, as the command sees it (its own `/proc`), and the marker if any. */
const PROBE = "cat .git/marker 2>/dev/null; awk -v up=$(cut -d' ' -f1 /proc/uptime) '{ printf \"age %.2f\\n\", up - $22 / 100 }' /proc/1/stat";

function sandboxAge(output: string): number {
  const m = /age (-?[\d.]+)/.exec(output);
  if (!m) throw new Error(`no age in ${JSON.stringify(output)}`);
  return Number(m[1]);
}

describeWithSandbox("a pre-warmed sandbox whose mounted directory was replaced while it waited (real sandbox)", sandbox, () => {
  async function ready(prewarm: boolean) {
    const ws = await workspace();
    expect(spawnSync("git", ["init", "-q", ws.dir]).status).toBe(0);
    const orch = await createOrchestrator(ws, { approvalPolicy: "never", sandboxPolicy: { mode: "workspace-write" }, prewarmSandboxes: prewarm });
    // Two calls: the first one's run may make what later plans count on (placeholders), so its spare can differ.
    for (let i = 0; i < 2; i++) expect((await call(orch, "shell_command", { command: "true", login: false })).success).toBe(true);
    if (prewarm) await waitForSpare(ws.dir);
    else expect(await sparesIn(ws.dir)).toEqual([]);
    // Long enough that a sandbox set up before the call is told from one set up for it.
    await new Promise((resolve) => setTimeout(resolve, 700));
    return { ws, orch };
  }

  it("nothing replaced: the call runs in the spare set up before it", async () => {
    const { orch } = await ready(true);
    const out = outputSection((await call(orch, "shell_command", { command: PROBE, login: false })).content);
    expect(sandboxAge(out)).toBeGreaterThanOrEqual(0.5);
  });

  it("the .git it mounted replaced: the call gets a fresh sandbox that sees the new .git", async () => {
    const { ws, orch } = await ready(true);
    replaceGitDir(ws.dir);
    const out = outputSection((await call(orch, "shell_command", { command: PROBE, login: false })).content);
    expect(out).toContain("the new .git");
    expect(sandboxAge(out)).toBeLessThan(0.5);
  });

  it("control, without pre-warming: the same replacement, and the call sees the new .git", async () => {
    const { ws, orch } = await ready(false);
    replaceGitDir(ws.dir);
    const out = outputSection((await call(orch, "shell_command", { command: PROBE, login: false })).content);
    expect(out).toContain("the new .git");
  });
});
