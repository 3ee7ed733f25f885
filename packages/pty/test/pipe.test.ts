import { skipUnless } from "@shellgate/test-support";
import { describe, expect, it } from "vitest";
import {
  ProcessExitedError,
  spawnPipe,
  StdinClosedError,
  StdinUnavailableError,
  type OutputChunk,
} from "../src/index.js";
import { alive, cwd, env, procState, waitFor } from "./helpers.js";

const sh = (script: string, extra: Record<string, unknown> = {}) => spawnPipe({ argv: ["sh", "-c", script], cwd, env, ...extra });

describe("spawnPipe", () => {
  it("separates stdout and stderr and interleaves them in arrival order", async () => {
    // Lock-step through stdin so the order is causal, not a matter of scheduling: each line is only
    // written after we saw the previous one.
    const h = sh("echo one; read x; echo two >&2; read x; echo three", { stdin: "pipe" });
    h.onOutput(() => h.hasExited || h.write("\n"));
    const r = await h.result();
    expect(r.stdout).toBe("one\nthree\n");
    expect(r.stderr).toBe("two\n");
    expect(r.aggregated).toBe("one\ntwo\nthree\n");
    expect(r.exitCode).toBe(0);
    expect(r.signal).toBeNull();
    expect(r.truncated).toBe(false);
  });

  it("propagates exit codes", async () => {
    for (const code of [0, 1, 3, 42, 255]) {
      const r = await sh(`exit ${code}`).result();
      expect(r.exitCode).toBe(code);
    }
  });

  it("reports death by signal as 128+N with the signal name", async () => {
    const r = await sh("kill -KILL $$").result();
    expect(r.exitCode).toBe(137);
    expect(r.signal).toBe("SIGKILL");
    const r2 = await sh("kill -SEGV $$").result();
    expect(r2.exitCode).toBe(128 + 11);
    expect(r2.signal).toBe("SIGSEGV");
  });

  it("gives cat /dev/null as stdin, so it returns at once", async () => {
    const h = spawnPipe({ argv: ["cat"], cwd, env, timeoutMs: 0 });
    const r = await h.result();
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("");
    expect(() => spawnPipe({ argv: ["true"], cwd, env }).write("x")).toThrow(StdinUnavailableError);
  });

  it("takes stdin when asked, and refuses writes after close or exit", async () => {
    const h = spawnPipe({ argv: ["cat"], cwd, env, stdin: "pipe" });
    h.write("hello ");
    h.write(new TextEncoder().encode("world"));
    h.closeStdin();
    expect(() => h.write("late")).toThrow(StdinClosedError);
    const r = await h.result();
    expect(r.stdout).toBe("hello world");
    expect(h.hasExited).toBe(true);
    let err: unknown;
    try {
      h.write("after exit");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ProcessExitedError);
    expect((err as ProcessExitedError).code).toBe("PTY_PROCESS_EXITED");
    // Reading what it produced still works after exit.
    const seen: string[] = [];
    h.onOutput((c) => seen.push(Buffer.from(c.data).toString()));
    expect(seen.join("")).toBe("hello world");
    expect((await h.result()).stdout).toBe("hello world");
  });

  it("keeps head and tail of output over the cap and counts the middle", async () => {
    // 200 000 numbered lines (~1.3 MB) through a 64 KiB cap.
    const r = await spawnPipe({ argv: ["seq", "1", "200000"], cwd, env, outputCapBytes: 64 * 1024 }).result();
    expect(r.truncated).toBe(true);
    expect(r.stdout.startsWith("1\n2\n3\n")).toBe(true);
    expect(r.stdout.endsWith("199999\n200000\n")).toBe(true);
    let total = 0;
    for (let i = 1; i <= 200000; i++) total += String(i).length + 1;
    expect(Buffer.byteLength(r.stdout)).toBe(64 * 1024);
    expect(r.droppedBytes).toBe(total - 64 * 1024);
    expect(r.stdout).not.toContain("\n100000\n");
  });

  it("caps each stream and the interleaving apart, whichever stream speaks first", async () => {
    const cap = 64 * 1024;
    // Lock-step at both ends so the order of the two sockets is causal, not a matter of scheduling.
    // The child waits for the host to have read each stderr marker before writing on, because two
    // pipes are read in no guaranteed order: an unread `mid-err` could otherwise land in the tail.
    const h = sh("echo first-err >&2; read x; seq 1 100000; echo mid-err >&2; read x; seq 100001 200000; read x; echo last-err >&2", {
      outputCapBytes: cap,
      stdin: "pipe",
    });
    let out = "";
    h.onOutput((c) => {
      const t = Buffer.from(c.data).toString();
      if (c.stream === "stderr" && t.includes("first-err")) h.write("\n");
      if (c.stream === "stderr" && t.includes("mid-err")) h.write("\n");
      if (c.stream === "stdout") {
        out = (out + t).slice(-20);
        if (out.endsWith("\n200000\n")) h.write("\n");
      }
    });
    const r = await h.result();
    expect(r.stderr).toBe("first-err\nmid-err\nlast-err\n");
    expect(r.stdout.startsWith("1\n2\n")).toBe(true);
    expect(r.stdout.endsWith("199999\n200000\n")).toBe(true);
    expect(Buffer.byteLength(r.stdout)).toBe(cap);
    expect(r.aggregated.startsWith("first-err\n1\n2\n")).toBe(true);
    expect(r.aggregated.endsWith("200000\nlast-err\n")).toBe(true);
    expect(r.aggregated).not.toContain("mid-err");
    expect(Buffer.byteLength(r.aggregated)).toBe(cap);
    expect(r.truncated).toBe(true);
  });

  it("kills a firehose (yes) at the timeout: exit 124, timedOut, bounded output", async () => {
    const h = spawnPipe({ argv: ["yes"], cwd, env, timeoutMs: 1000 });
    let seen = 0;
    h.onOutput((c) => (seen += c.data.byteLength));
    const r = await h.result();
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBe(124);
    expect(r.signal).toBe("SIGTERM");
    // How much `yes` wrote depends on the machine; what was kept never exceeds the cap.
    expect(Buffer.byteLength(r.stdout)).toBe(Math.min(seen, 1024 * 1024));
    expect(r.droppedBytes).toBe(Math.max(0, seen - 1024 * 1024));
    expect(r.truncated).toBe(seen > 1024 * 1024);
    expect(/^[y\n]*$/.test(r.stdout)).toBe(true);
    if (seen > 0) expect(r.stdout.startsWith("y")).toBe(true);
    expect(alive(h.pid)).toBe(false);
  });

  it("escalates to SIGKILL when TERM is ignored", async () => {
    const h = sh("trap '' TERM; echo ready; while :; do sleep 0.05; done", { timeoutMs: 0, killGraceMs: 200 });
    await new Promise<void>((res) => h.onOutput(() => res()));
    await h.terminate();
    const r = await h.result();
    expect(r.signal).toBe("SIGKILL");
    expect(r.exitCode).toBe(137);
    expect(r.timedOut).toBe(false);
  });

  skipUnless(process.platform === "linux" ? undefined : `not Linux (${process.platform})`).it("continues a stopped process so it can act on TERM (reads /proc)", async () => {
    const h = sh("echo ready; kill -STOP $$; sleep 30", { timeoutMs: 0, killGraceMs: 5_000 });
    await new Promise<void>((res) => h.onOutput(() => res()));
    await waitFor(() => procState(h.pid) === "T", 10_000, "the shell to stop itself");
    await h.terminate();
    const r = await h.result();
    // Without SIGCONT the TERM would stay pending and only the KILL after the grace would end it.
    expect(r.signal).toBe("SIGTERM");
  });

  it("cancels on AbortSignal", async () => {
    const ac = new AbortController();
    const h = spawnPipe({ argv: ["sleep", "30"], cwd, env, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    const info = await h.exited;
    expect(info.cancelled).toBe(true);
    expect(info.exitCode).toBe(143);
    const r = await h.result();
    expect(r.cancelled).toBe(true);
  });

  it("an already-aborted signal kills at once", async () => {
    const h = spawnPipe({ argv: ["sleep", "30"], cwd, env, signal: AbortSignal.abort() });
    const r = await h.result();
    expect(r.cancelled).toBe(true);
    expect(r.signal).toBe("SIGTERM");
  });

  it("is binary-safe and decodes invalid UTF-8 lossily", async () => {
    const h = sh("printf 'ok\\377\\376\\000end'");
    const chunks: Uint8Array[] = [];
    h.onOutput((c) => chunks.push(c.data));
    const r = await h.result();
    expect([...Buffer.concat(chunks)]).toEqual([0x6f, 0x6b, 0xff, 0xfe, 0x00, 0x65, 0x6e, 0x64]);
    expect(r.stdout).toBe("ok\uFFFD\uFFFD\0end");
  });

  it("broadcasts to several subscribers and replays the buffer to late ones", async () => {
    const h = sh("echo a; read x; echo b >&2; read x; echo c", { stdin: "pipe" });
    h.onOutput(() => h.hasExited || h.write("\n"));
    const early: OutputChunk[] = [];
    const unsubscribe = h.onOutput((c) => early.push(c));
    const other: string[] = [];
    h.onOutput((c) => other.push(`${c.stream}:${Buffer.from(c.data).toString()}`));
    await h.exited;
    await h.result();
    unsubscribe();
    const late: string[] = [];
    h.onOutput((c) => late.push(`${c.stream}:${Buffer.from(c.data).toString()}`));
    expect(other).toEqual(["stdout:a\n", "stderr:b\n", "stdout:c\n"]);
    expect(late).toEqual(other);
    expect(early.map((c) => c.stream)).toEqual(["stdout", "stderr", "stdout"]);
  });

  it("a throwing subscriber does not stop capture", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      const h = sh("echo a; echo b");
      h.onOutput(() => {
        throw new Error("subscriber bug");
      });
      const r = await h.result();
      expect(r.stdout).toBe("a\nb\n");
      await new Promise((r) => setImmediate(r));
      expect(warnings.some((w) => w.includes("subscriber bug"))).toBe(true);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("passes exactly the given environment plus the tree tag", async () => {
    const r = await spawnPipe({ argv: ["/usr/bin/env"], cwd, env: { ONLY: "this" } }).result();
    const names = r.stdout.trim().split("\n").map((l) => l.split("=")[0]).sort();
    expect(names).toEqual(["ONLY", "SHELLGATE_PROCESS_TAG"]);
  });

  it("runs in the given cwd, as leader of its own process group and session", async () => {
    const h = spawnPipe({ argv: ["sh", "-c", "pwd; ps -o pgid= -o sid= -p $$"], cwd: "/", env });
    const r = await h.result();
    const [pwd, ids] = r.stdout.trim().split("\n");
    expect(pwd).toBe("/");
    expect(ids?.trim().split(/\s+/).map(Number)).toEqual([h.pid, h.pid]);
  });

  it("reaps background jobs left in the group when the leader exits", async () => {
    const h = sh("sleep 30 & echo $!");
    const r = await h.result();
    const bg = Number(r.stdout.trim());
    expect(r.drainTimedOut).toBe(false);
    await waitFor(() => !alive(bg), 10_000, "background job to die");
  });

  it("stops waiting for pipes a descendant holds open (drain guard)", async () => {
    // reapOnExit off and the holder outside the group: only the drain guard can end the wait.
    const h = sh("setsid sleep 30 & echo started", { reapOnExit: false, drainTimeoutMs: 300 });
    const r = await h.result();
    expect(r.drainTimedOut).toBe(true);
    expect(r.stdout).toBe("started\n");
    expect(r.exitCode).toBe(0);
    await h.terminate();
  });

  it("runs many processes concurrently", async () => {
    const handles = Array.from({ length: 40 }, (_, i) => sh(`echo $((${i} * 2)); exit ${i % 7}`));
    const results = await Promise.all(handles.map((h) => h.result()));
    results.forEach((r, i) => {
      expect(r.stdout).toBe(`${i * 2}\n`);
      expect(r.exitCode).toBe(i % 7);
    });
  });

  it("stops delivering after unsubscribe; terminate is idempotent and safe after exit", async () => {
    const h = sh("echo first; read x; echo second", { stdin: "pipe", timeoutMs: 0 });
    const seen: string[] = [];
    const off = h.onOutput((c) => seen.push(Buffer.from(c.data).toString()));
    await new Promise<void>((res) => {
      const stop = h.onOutput(() => {
        stop();
        res();
      });
    });
    off();
    h.write("\n");
    const r = await h.result();
    expect(r.stdout).toBe("first\nsecond\n");
    expect(seen).toEqual(["first\n"]);
    const t1 = h.terminate();
    expect(h.terminate()).toBe(t1);
    await t1;
    expect((await h.exited).exitCode).toBe(0);
  });

  it("exited resolves before output is drained and carries the same exit info as the result", async () => {
    const h = sh("exit 7");
    const info = await h.exited;
    expect(info).toEqual({ exitCode: 7, signal: null, timedOut: false, cancelled: false });
    expect(h.hasExited).toBe(true);
    const r = await h.result();
    expect(r.exitCode).toBe(7);
    expect(r.durationMs).toBeGreaterThan(0);
  });
});
