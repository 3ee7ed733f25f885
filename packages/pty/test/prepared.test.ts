import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createPipeLauncher, preparePipe, type PreparedPipe, type ProcessSpec } from "../src/index.js";
import { alive, cwd, env, waitFor } from "./helpers.js";

// Reads a script from descriptor 3 and runs it: the shape of a sandbox waiting for its command.
const WAITER = 'script=$(cat <&3) && [ -n "$script" ] && exec sh -c "$script"';
const bytes = (s: string) => new TextEncoder().encode(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const launcher = createPipeLauncher();
afterAll(() => launcher.close());

// Every behaviour holds alike for a process this one spawns and for one a launcher spawns.
const preparers: Array<[string, (spec: ProcessSpec) => Promise<PreparedPipe>]> = [
  ["preparePipe", async (spec) => preparePipe(spec)],
  ["a pipe launcher", (spec) => launcher.prepare(spec)],
];

describe.each(preparers)("%s", (_name, preparePipe) => {
  const prepare = (waiter = WAITER) => preparePipe({ argv: ["sh", "-c", waiter], cwd, env });

  it("runs the payload written at start, with its output and exit code", async () => {
    const p = await prepare();
    expect(p.alive).toBe(true);
    const h = p.start(bytes("echo out; echo err >&2; exit 3"));
    expect(h).toBeDefined();
    expect(p.alive).toBe(false);
    const r = await h!.result();
    expect(r.stdout).toBe("out\n");
    expect(r.stderr).toBe("err\n");
    expect(r.exitCode).toBe(3);
    expect(h!.pid).toBe(p.pid);
  });

  it("counts the timeout from start, not from the spawn", async () => {
    const p = await preparePipe({ argv: ["sh", "-c", WAITER], cwd, env, timeoutMs: 50 });
    // Longer than the spec's timeout: a timer armed at the spawn would have killed it by now.
    await sleep(300);
    expect(p.alive).toBe(true);
    const r = await p.start(bytes("echo late"), { timeoutMs: 10_000 })!.result();
    expect(r).toMatchObject({ stdout: "late\n", exitCode: 0, timedOut: false });
    const q = await prepare();
    const t = await q.start(bytes("sleep 30"), { timeoutMs: 100 })!.result();
    expect(t.timedOut).toBe(true);
  });

  it("is cancelled by the start's signal", async () => {
    const ac = new AbortController();
    const h = (await prepare()).start(bytes("sleep 30"), { signal: ac.signal })!;
    ac.abort();
    const r = await h.result();
    expect(r.cancelled).toBe(true);
  });

  it("is not started once it wrote output while waiting, and its tree is ended", async () => {
    const p = await prepare(`echo too early; ${WAITER}`);
    await waitFor(() => !p.alive, 10_000, "the early output");
    expect(p.start(bytes("echo never"))).toBeUndefined();
    await waitFor(() => !alive(p.pid), 10_000, "the discarded process to end");
  });

  it("is not started once it exited while waiting", async () => {
    const p = await prepare("exit 0");
    await waitFor(() => !p.alive, 10_000, "the exit");
    expect(p.start(bytes("echo never"))).toBeUndefined();
  });

  it("discard closes descriptor 3 so a waiting program exits, and kills one that does not", async () => {
    const p = await prepare();
    await p.discard();
    expect(alive(p.pid)).toBe(false);
    expect(p.alive).toBe(false);
    expect(p.start(bytes("echo never"))).toBeUndefined();
    // Ignores descriptor 3 and forks a child: both must be gone after the discard.
    const stubborn = await prepare("sleep 60 & sleep 60; wait");
    let child = 0;
    await waitFor(() => {
      child = childOf(stubborn.pid);
      return child > 0;
    }, 10_000, "the child");
    await stubborn.discard();
    expect(alive(stubborn.pid)).toBe(false);
    expect(alive(child)).toBe(false);
  });
});

function childOf(pid: number): number {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").trim().split(" ")[0];
    return Number(first ?? 0) || 0;
  } catch {
    return 0;
  }
}

/** The parent pid of `pid`, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

describe("createPipeLauncher", () => {
  const spec = (waiter = WAITER): ProcessSpec => ({ argv: ["sh", "-c", waiter], cwd, env });

  it("spawns from a process of its own, not from this one", async () => {
    const l = createPipeLauncher();
    try {
      const p = await l.prepare(spec());
      const launcherPid = parentOf(p.pid);
      expect(launcherPid).not.toBe(process.pid);
      expect(parentOf(launcherPid)).toBe(process.pid);
      // Control: preparePipe's process is this one's child.
      const local = preparePipe(spec());
      expect(parentOf(local.pid)).toBe(process.pid);
      await local.discard();
      const r = await p.start(bytes("echo via launcher"))!.result();
      expect(r).toMatchObject({ stdout: "via launcher\n", exitCode: 0 });
    } finally {
      await l.close();
    }
  });

  it("kills what it prepared, waiting or running, when closed", async () => {
    const l = createPipeLauncher();
    const waiting = await l.prepare(spec("sleep 60 & sleep 60; wait"));
    const running = (await l.prepare(spec())).start(bytes("sleep 60"))!;
    await l.close();
    await waitFor(() => !alive(waiting.pid) && !alive(running.pid), 10_000, "the launcher's processes to end");
    expect(waiting.alive).toBe(false);
    expect((await running.exited).signal).toBe("SIGKILL");
    await expect(l.prepare(spec())).rejects.toMatchObject({ code: "PTY_LAUNCHER_UNAVAILABLE" });
  });

  it("kills what a dead launcher left (a running process, reported as killed, and a waiting one) and starts a new launcher for the next", async () => {
    const l = createPipeLauncher();
    try {
      const p = await l.prepare(spec());
      const waiting = await l.prepare(spec("sleep 60 & sleep 60; wait"));
      const launcherPid = parentOf(p.pid);
      const h = p.start(bytes("sleep 60"))!;
      process.kill(launcherPid, "SIGKILL");
      const exit = await h.exited;
      expect(exit.signal).toBe("SIGKILL");
      // Neither dies with its parent: the host kills what the launcher left, started or waiting.
      await waitFor(() => !alive(h.pid) && !alive(waiting.pid), 10_000, "the orphaned processes to be killed");
      expect(waiting.alive).toBe(false);
      const next = await l.prepare(spec());
      expect(parentOf(next.pid)).not.toBe(launcherPid);
      expect((await next.start(bytes("echo again"))!.result()).stdout).toBe("again\n");
    } finally {
      await l.close();
    }
  });

  it("keeps a host with nothing else left alive until close() is done", () => {
    const entry = fileURLToPath(new URL("../dist/index.js", import.meta.url));
    const script = `
      const { createPipeLauncher } = await import(${JSON.stringify(entry)});
      const l = createPipeLauncher();
      const p = await l.prepare({ argv: ["sleep", "60"], cwd: ${JSON.stringify(cwd)}, env: ${JSON.stringify(env)} });
      console.log("prepared " + p.pid);
      // Nothing of the launcher's is left running: only close() itself holds the host now.
      await p.discard();
      await l.close();
      console.log("closed");`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(out).toMatch(/^prepared \d+\nclosed\n$/);
    expect(alive(Number(/\d+/.exec(out)![0]))).toBe(false);
  });

  it("refuses a spec it cannot run, naming what is wrong", async () => {
    const l = createPipeLauncher();
    try {
      await expect(l.prepare({ ...spec(), stdin: "pipe" })).rejects.toMatchObject({ code: "PTY_INVALID_SPEC", field: "stdin" });
      await expect(l.prepare({ ...spec(), cwd: "/nonexistent/dir" })).rejects.toMatchObject({ code: "PTY_SPAWN_FAILED" });
      await expect(l.prepare({ ...spec(), argv: ["no-such-program-here"] })).rejects.toMatchObject({ code: "PTY_SPAWN_FAILED" });
      await expect(l.prepare({ ...spec(), argv: [] })).rejects.toMatchObject({ code: "PTY_INVALID_SPEC" });
    } finally {
      await l.close();
    }
  });
});
