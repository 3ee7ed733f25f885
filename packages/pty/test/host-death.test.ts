import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { alive, cwd, isLinux, waitFor } from "./helpers.js";

const here = dirname(fileURLToPath(import.meta.url));
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
describe.skipIf(!isLinux)("children die with the host", () => {
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
