import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SandboxBackend } from "@shellgate/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { Orchestrator, type ApprovalRequest, type OrchestratorOptions } from "../support/internals.js";
import { call, cleanupAll, workspace, type Workspace } from "../support/orchestrator-helpers.js";

afterAll(cleanupAll);

/**
 * A backend whose runs come in two steps, as `ExecEnv.deferred` describes: the first step is a
 * bash that notes its pid in `dir` (so a test sees the spare is up), reads a NUL-separated argv
 * from descriptor 3 and runs it with SANDBOXED=spare. The ordinary `argv` runs the command with
 * SANDBOXED=normal. `key` is the reuse key of the next transforms.
 */
function twoStepBackend(dir: string) {
  const state = { key: "k1", transforms: 0, cleanups: 0, standIn: false, standIns: 0 };
  const waiter = `echo $$ > '${dir}'/ready.$$; mapfile -d '' -u 3 args && [ \${#args[@]} -gt 0 ] && SANDBOXED=spare exec "\${args[@]}"`;
  const backend: SandboxBackend = {
    name: "two-step",
    platform: process.platform,
    sandboxType: "fake",
    isAvailable: async () => ({ available: true, isolation: "fake" }),
    plan: async () => {
      throw new Error("not planned in these tests");
    },
    transform: async (spec) => {
      state.transforms++;
      const key = state.key;
      // Safe to call more than once, as the contract says; counted once.
      let cleaned = false;
      return {
        argv: ["env", "SANDBOXED=normal", ...spec.argv],
        cwd: spec.cwd,
        env: { ...spec.env },
        sandboxType: "fake",
        isolation: "fake",
        cleanup: async () => {
          if (!cleaned) state.cleanups++;
          cleaned = true;
        },
        deferred: {
          argv: ["bash", "-c", waiter],
          payload: encode(spec.argv),
          reuseKey: state.key,
          // With `state.standIn`, the backend can tell without transforming that nothing changed:
          // here, that the key is still the one of this transform.
          ...(state.standIn
            ? {
                reuseFor: async (next: { argv: readonly string[]; cwd: string }) => {
                  if (state.key !== key || next.cwd !== spec.cwd) return undefined;
                  state.standIns++;
                  return { argv: ["env", "SANDBOXED=normal", ...next.argv], payload: encode(next.argv) };
                },
              }
            : {}),
        },
      };
    },
  };
  return { backend, state };
}

const encode = (argv: readonly string[]) => new TextEncoder().encode(argv.map((a) => `${a}\0`).join(""));

interface Setup {
  ws: Workspace;
  orch: Orchestrator;
  state: { key: string; transforms: number; cleanups: number; standIn: boolean; standIns: number };
  /** Pids of every spare started so far. */
  spares(): number[];
}

async function setup(options: OrchestratorOptions = {}): Promise<Setup> {
  const ws = await workspace();
  const dir = await mkdtemp(path.join(os.tmpdir(), "shellgate-spares-"));
  const { backend, state } = twoStepBackend(dir);
  const orch = new Orchestrator({
    cwd: ws.dir,
    hostEnv: ws.hostEnv,
    shell: "/bin/bash",
    approvalPolicy: "never",
    sandboxPolicy: { mode: "workspace-write" },
    sandboxBackends: [backend],
    sandboxToolCaches: false,
    spillDir: false,
    prewarmSandboxes: true,
    ...options,
  });
  afterCleanup(() => orch.close());
  afterCleanup(() => rm(dir, { recursive: true, force: true }));
  // A file the spare has created but not yet written to is not counted (its pid would read as 0).
  const spares = () => readdirSync(dir).map((f) => Number(readFileSync(path.join(dir, f), "utf8"))).filter((pid) => pid > 0);
  return { ws, orch, state, spares };
}

const closers: Array<() => Promise<void>> = [];
function afterCleanup(fn: () => Promise<void>) {
  closers.push(fn);
}
afterAll(async () => {
  for (const c of closers) await c().catch(() => undefined);
});

/** The parent pid of `pid`, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** True while `pid` exists (a zombie included). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(pred: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 10_000;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const WHICH = ["sh", "-c", 'echo "$SANDBOXED"'];
/** What `echo WORD "$SANDBOXED"` printed: this call's own command, and where it ran. */
async function echoed(orch: Orchestrator, word: string): Promise<string> {
  const response = await call(orch, "shell", { command: ["sh", "-c", `echo ${word} "$SANDBOXED"`] });
  expect(response.exitCode, response.content).toBe(0);
  return (JSON.parse(response.content) as { output: string }).output.trim();
}

async function which(orch: Orchestrator, command = WHICH): Promise<string> {
  const response = await call(orch, "shell", { command });
  expect(response.exitCode, response.content).toBe(0);
  return (JSON.parse(response.content) as { output: string }).output.trim();
}

describe("prewarmSandboxes", () => {
  it("runs the next call in the spare prepared after the previous one, and prepares the next", async () => {
    const s = await setup();
    expect(await which(s.orch)).toBe("normal");
    await waitFor(() => s.spares().length === 1, "the first spare");
    const [first] = s.spares();
    expect(await which(s.orch)).toBe("spare");
    await waitFor(() => !alive(first!), "the used spare to end");
    await waitFor(() => s.spares().length === 2, "the next spare");
    expect(await which(s.orch)).toBe("spare");
    await s.orch.close();
    // Every transform's ExecEnv was cleaned up: the calls' own, the used spares' and the discarded one.
    expect(s.state.cleanups).toBe(s.state.transforms);
  });

  it("has its spares spawned by a launcher process, so that the orchestrator's own process is not forked for them", async () => {
    const s = await setup();
    await which(s.orch);
    await waitFor(() => s.spares().length === 1, "the spare");
    const parent = parentOf(s.spares()[0]!);
    expect(parent).not.toBe(process.pid);
    expect(parentOf(parent)).toBe(process.pid);
  });

  it("takes the spare without preparing the call's own sandbox when the backend says it stands in (reuseFor)", async () => {
    const s = await setup();
    s.state.standIn = true;
    expect(await echoed(s.orch, "one")).toBe("one normal");
    await waitFor(() => s.spares().length === 1, "the first spare");
    const transformsBefore = s.state.transforms;
    expect(await echoed(s.orch, "two")).toBe("two spare");
    expect(s.state.standIns).toBe(1);
    // The second call prepared nothing of its own: the only transform since is the next spare's.
    await waitFor(() => s.spares().length === 2, "the next spare");
    expect(s.state.transforms).toBe(transformsBefore + 1);
    await s.orch.close();
    expect(s.state.cleanups).toBe(s.state.transforms);
  });

  it("prepares the call as usual when the backend says the spare does not stand in (control: same spare, the key changed)", async () => {
    const s = await setup();
    s.state.standIn = true;
    await echoed(s.orch, "one");
    await waitFor(() => s.spares().length === 1, "the spare");
    const transformsBefore = s.state.transforms;
    s.state.key = "k2";
    expect(await echoed(s.orch, "two")).toBe("two normal");
    expect(s.state.standIns).toBe(0);
    expect(s.state.transforms).toBeGreaterThan(transformsBefore);
  });

  it("runs the call's own command from the claimed ExecEnv when the claimed spare cannot start it", async () => {
    const s = await setup();
    s.state.standIn = true;
    await echoed(s.orch, "one");
    await waitFor(() => s.spares().length === 1, "the spare");
    process.kill(s.spares()[0]!, "SIGKILL");
    // Not the previous call's command, and not in the dead spare.
    expect(await echoed(s.orch, "two")).toBe("two normal");
    await s.orch.close();
    expect(s.state.cleanups).toBe(s.state.transforms);
  });

  it("keeps no spare when off (the default)", async () => {
    const s = await setup({ prewarmSandboxes: false });
    expect(await which(s.orch)).toBe("normal");
    expect(await which(s.orch)).toBe("normal");
    expect(s.spares()).toEqual([]);
  });

  it("discards the spare when the call's sandbox has another reuse key", async () => {
    const s = await setup();
    await which(s.orch);
    await waitFor(() => s.spares().length === 1, "the spare");
    s.state.key = "k2";
    expect(await which(s.orch)).toBe("normal");
    await waitFor(() => !alive(s.spares()[0]!), "the discarded spare to end");
  });

  it("discards the spare when the call's spawn options differ (another cwd)", async () => {
    const s = await setup();
    await which(s.orch);
    await waitFor(() => s.spares().length === 1, "the spare");
    const response = await call(s.orch, "shell", { command: WHICH, workdir: s.ws.home });
    expect((JSON.parse(response.content) as { output: string }).output.trim()).toBe("normal");
  });

  it("does not use a spare when another process ran since it was prepared", async () => {
    const s = await setup();
    await which(s.orch);
    await waitFor(() => s.spares().length === 1, "the spare");
    // A session starts and ends in between; the spare may not stand in for the next call.
    const session = await call(s.orch, "exec_command", { cmd: "true", login: false, yield_time_ms: 5_000 });
    expect(session.exitCode, session.content).toBe(0);
    expect(await which(s.orch)).toBe("normal");
  });

  it("prepares no spare while a session is alive", async () => {
    const s = await setup();
    const session = await call(s.orch, "exec_command", { cmd: "sleep 30", login: false, yield_time_ms: 250 });
    expect(session.exitCode, session.content).toBeNull();
    expect(await which(s.orch)).toBe("normal");
    expect(await which(s.orch)).toBe("normal");
    expect(s.spares()).toEqual([]);
  });

  it("runs the call the ordinary way when the spare died while waiting", async () => {
    const s = await setup();
    await which(s.orch);
    await waitFor(() => s.spares().length === 1, "the spare");
    // Not yet seen by Node's exit event when the call comes: the spare must be checked with the kernel.
    process.kill(s.spares()[0]!, "SIGKILL");
    expect(await which(s.orch)).toBe("normal");
  });

  it("leaves no spare process after close", async () => {
    const s = await setup();
    await which(s.orch);
    await waitFor(() => s.spares().length === 1, "the spare");
    const [pid] = s.spares();
    expect(alive(pid!)).toBe(true);
    await s.orch.close();
    expect(alive(pid!)).toBe(false);
    expect(s.state.cleanups).toBe(s.state.transforms);
  });

  it("discards the spare when a call fails (here: the person refuses it)", async () => {
    let answers = 0;
    const s = await setup({ approvalPolicy: "untrusted", approvalHandler: async () => (answers++ === 0 ? "approved" : "denied") });
    await which(s.orch);
    await waitFor(() => s.spares().length === 1, "the spare");
    const refused = await call(s.orch, "shell", { command: WHICH });
    expect(refused.error?.code).toBe("ORCH_REJECTED");
    await waitFor(() => !alive(s.spares()[0]!), "the discarded spare to end");
  });

  it("keeps denial detection, the approval and the unsandboxed retry for a call that used the spare", async () => {
    const requests: ApprovalRequest[] = [];
    const s = await setup({
      approvalPolicy: "on-failure",
      approvalHandler: async (request) => {
        requests.push(request);
        return "approved";
      },
    });
    await which(s.orch);
    await waitFor(() => s.spares().length === 1, "the spare");
    const denied = ["sh", "-c", 'if [ -n "$SANDBOXED" ]; then echo "$SANDBOXED: touch: x: Read-only file system"; exit 1; fi; echo outside'];
    const events: unknown[] = [];
    s.orch.on((e) => events.push(e));
    const response = await call(s.orch, "shell", { command: denied });
    expect(response.exitCode, response.content).toBe(0);
    expect((JSON.parse(response.content) as { output: string }).output).toBe("outside\n");
    expect(requests).toHaveLength(1);
    expect(requests[0]?.retryAfterDenial).toBe(true);
    const printed = events.flatMap((e) => ((e as { type: string }).type === "exec.output_delta" ? [Buffer.from((e as { chunk: Uint8Array }).chunk).toString()] : []));
    // The sandboxed attempt ran in the spare; the retry outside any sandbox.
    expect(printed).toEqual(["spare: touch: x: Read-only file system\n", "outside\n"]);
    expect(events).toContainEqual(expect.objectContaining({ type: "trace", trace: expect.objectContaining({ attempts: 2, initialSandbox: "fake" }) }));
  });
});
