import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { preparePipe } from "../src/index.js";
import { alive, cwd, env, waitFor } from "./helpers.js";

// Reads a script from descriptor 3 and runs it: the shape of a sandbox waiting for its command.
const WAITER = 'script=$(cat <&3) && [ -n "$script" ] && exec sh -c "$script"';
const prepare = (waiter = WAITER) => preparePipe({ argv: ["sh", "-c", waiter], cwd, env });
const bytes = (s: string) => new TextEncoder().encode(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("preparePipe", () => {
  it("runs the payload written at start, with its output and exit code", async () => {
    const p = prepare();
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
    const p = preparePipe({ argv: ["sh", "-c", WAITER], cwd, env, timeoutMs: 50 });
    // Longer than the spec's timeout: a timer armed at the spawn would have killed it by now.
    await sleep(300);
    expect(p.alive).toBe(true);
    const r = await p.start(bytes("echo late"), { timeoutMs: 10_000 })!.result();
    expect(r).toMatchObject({ stdout: "late\n", exitCode: 0, timedOut: false });
    const q = prepare();
    const t = await q.start(bytes("sleep 30"), { timeoutMs: 100 })!.result();
    expect(t.timedOut).toBe(true);
  });

  it("is cancelled by the start's signal", async () => {
    const ac = new AbortController();
    const h = prepare().start(bytes("sleep 30"), { signal: ac.signal })!;
    ac.abort();
    const r = await h.result();
    expect(r.cancelled).toBe(true);
  });

  it("is not started once it wrote output while waiting, and its tree is ended", async () => {
    const p = prepare(`echo too early; ${WAITER}`);
    await waitFor(() => !p.alive, 10_000, "the early output");
    expect(p.start(bytes("echo never"))).toBeUndefined();
    await waitFor(() => !alive(p.pid), 10_000, "the discarded process to end");
  });

  it("is not started once it exited while waiting", async () => {
    const p = prepare("exit 0");
    await waitFor(() => !p.alive, 10_000, "the exit");
    expect(p.start(bytes("echo never"))).toBeUndefined();
  });

  it("discard closes descriptor 3 so a waiting program exits, and kills one that does not", async () => {
    const p = prepare();
    await p.discard();
    expect(alive(p.pid)).toBe(false);
    expect(p.alive).toBe(false);
    expect(p.start(bytes("echo never"))).toBeUndefined();
    // Ignores descriptor 3 and forks a child: both must be gone after the discard.
    const stubborn = prepare("sleep 60 & sleep 60; wait");
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
