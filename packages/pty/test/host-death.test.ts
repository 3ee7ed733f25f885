import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { skipUnless } from "@shellgate/test-support";
import { afterAll, expect, it } from "vitest";
import { alive, cwd, isLinux, waitFor } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
const notLinux = isLinux ? undefined : `not Linux (${process.platform})`;
const host = join(here, "fixtures", "host.mjs");
const dist = join(here, "..", "dist", "index.js");
const dir = mkdtempSync(join(cwd, "sg-host-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a real host node process that spawns children through the built package; returns its children. */
async function startHost(name: string, mode = "") {
  if (!existsSync(dist)) throw new Error(`build the package first (npx tsc -b packages/pty): ${dist} is missing`);
  const child = spawn(process.execPath, [host, join(dir, name), mode], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      if (buf.includes("\n")) resolve(buf.split("\n")[0] as string);
    });
    child.once("exit", (code) => reject(new Error(`host exited early (${code})`)));
  });
  const pids = (JSON.parse(line) as { pids: number[] }).pids;
  return { child, pids };
}

// Needs /proc for the escaped grandchild (found by its environment tag) and to observe liveness.
skipUnless(notLinux).describe("children die with the host", () => {
  it("when the host is SIGKILLed (no exit hook can run)", async () => {
    const { child, pids } = await startHost("kill9");
    for (const p of pids) expect(alive(p)).toBe(true);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await waitFor(() => pids.every((p) => !alive(p)), 15_000, `children ${pids.join(",")} to die`);
  });

  it("when the host is SIGKILLed right after spawning, before the watchdog heard of the groups", async () => {
    const { child, pids } = await startHost("fast", "fast");
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await waitFor(() => pids.every((p) => !alive(p)), 15_000, `children ${pids.join(",")} to die`);
  });

  it("when the watchdog itself was killed earlier (a new one takes over)", async () => {
    const { child, pids } = await startHost("respawn", "respawn");
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await waitFor(() => pids.every((p) => !alive(p)), 15_000, `children ${pids.join(",")} to die`);
  });

  it("when the host dies of SIGTERM", async () => {
    const { child, pids } = await startHost("term");
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    await waitFor(() => pids.every((p) => !alive(p)), 15_000, `children ${pids.join(",")} to die`);
  });

  it("when the host exits normally with children still running", async () => {
    const { child, pids } = await startHost("exit", "exit");
    await new Promise((r) => child.once("exit", r));
    await waitFor(() => pids.every((p) => !alive(p)), 15_000, `children ${pids.join(",")} to die`);
  });
});

/** A host that spawns `sleep` with `hostDeathWatchdog: false` and prints its pid and whether a watchdog runs. */
function startUnwatchedHost(seconds: string) {
  const source = `
    const { spawnPipe, watchdogPid } = await import(${JSON.stringify(dist)});
    const h = spawnPipe({ argv: ["/bin/sleep", ${JSON.stringify(seconds)}], cwd: "/", env: { PATH: "/usr/bin:/bin" }, timeoutMs: 0, hostDeathWatchdog: false });
    await new Promise((r) => setTimeout(r, 250)); // past the watchdog's registration batch
    process.stdout.write(JSON.stringify({ pid: h.pid, watchdog: watchdogPid() ?? null }) + "\\n");
    setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], { stdio: ["ignore", "pipe", "inherit"] });
  const first = new Promise<{ pid: number; watchdog: number | null }>((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      if (buf.includes("\n")) resolve(JSON.parse(buf.split("\n")[0]!) as { pid: number; watchdog: number | null });
    });
    child.once("exit", (code) => reject(new Error(`host exited early (${code})`)));
  });
  return { child, first };
}

skipUnless(notLinux).describe("hostDeathWatchdog: false", () => {
  it("starts no watchdog, and a plain child then outlives a SIGKILLed host (what the flag gives up; only for self-guarding programs)", async () => {
    const { child, first } = startUnwatchedHost("31.9");
    const { pid, watchdog } = await first;
    expect(watchdog).toBeNull();
    expect(alive(pid)).toBe(true);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await new Promise((r) => setTimeout(r, 1_000)); // longer than the watchdog's TERM-to-KILL grace
    try {
      expect(alive(pid)).toBe(true);
    } finally {
      process.kill(pid, "SIGKILL");
    }
  });
});

