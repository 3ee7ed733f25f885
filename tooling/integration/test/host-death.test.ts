// A sandboxed one-shot command is left out of @shellgate/pty's host-death watchdog (bubblewrap's
// --die-with-parent and PID namespace guarantee the same, and the watchdog costs a process start).
// This checks the guarantee where it matters: a real host process is SIGKILLed while its sandboxed
// command runs, and the command must die anyway. An unsandboxed command keeps the watchdog.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { cleanupAll, describeWithSandbox, linuxSandboxAvailability, workspace } from "./support/sandbox.js";

// The host is a separate node process loading the built packages (a file path, not an import).
const built = (pkg: string) => fileURLToPath(new URL(`../../../packages/${pkg}/dist/index.js`, import.meta.url));
const DIST = built("orchestrator");
const PTY_DIST = built("pty");
const LINUX_DIST = built("sandbox-linux");

const sandbox = await linuxSandboxAvailability();
afterAll(() => cleanupAll());

/** Pids of processes whose command line is exactly `argv`. */
function pidsRunning(argv: readonly string[]): number[] {
  const want = argv.join("\0");
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0$/, "") === want) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function waitFor(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A host process running `command` through an orchestrator with `mode`; reports whether a watchdog started. */
async function hostRunning(mode: "workspace-write" | "danger-full-access", seconds: string) {
  const ws = await workspace();
  const source = `
    const fs = await import("node:fs");
    const { Orchestrator } = await import(${JSON.stringify(DIST)});
    const { watchdogPid } = await import(${JSON.stringify(PTY_DIST)});
    const { createLinuxSandboxBackend } = await import(${JSON.stringify(LINUX_DIST)});
    const orch = await Orchestrator.create({
      cwd: ${JSON.stringify(ws.dir)}, hostEnv: ${JSON.stringify(ws.hostEnv)}, shell: "/bin/bash",
      approvalPolicy: "never", sandboxPolicy: { mode: ${JSON.stringify(mode)} }, sandboxBackends: [createLinuxSandboxBackend()],
    });
    void orch.handleToolCall({ name: "shell_command", arguments: { command: "exec /bin/sleep ${seconds}", login: false, timeout_ms: 60000 } });
    const sleeping = () => fs.readdirSync("/proc").some((e) => {
      try { return fs.readFileSync("/proc/" + e + "/cmdline", "utf8") === "/bin/sleep\\x00${seconds}\\x00"; } catch { return false; }
    });
    // Reported once the command runs and past the watchdog's 100 ms registration batch.
    const poll = setInterval(() => {
      if (!sleeping()) return;
      clearInterval(poll);
      setTimeout(() => process.stdout.write(JSON.stringify({ watchdog: watchdogPid() ?? null }) + "\\n"), 250);
    }, 25);
    setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", source], { cwd: ws.dir, stdio: ["ignore", "pipe", "inherit"] });
  const report = await new Promise<{ watchdog: number | null }>((resolve, reject) => {
    let buf = "";
    child.stdout.on("data", (d: Buffer) => {
      buf += d.toString();
      if (buf.includes("\n")) resolve(JSON.parse(buf.split("\n")[0]!) as { watchdog: number | null });
    });
    child.once("exit", (code) => reject(new Error(`host exited early (${code})`)));
  });
  return { child, report };
}

describeWithSandbox("a SIGKILLed host takes its commands with it (real sandbox)", sandbox, () => {
  it("sandboxed: no watchdog is started, and the command dies with the host all the same", async () => {
    const argv = ["/bin/sleep", "32.31"];
    const { child, report } = await hostRunning("workspace-write", "32.31");
    expect(report.watchdog).toBeNull();
    expect(pidsRunning(argv).length).toBeGreaterThan(0);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await waitFor(() => pidsRunning(argv).length === 0, "the sandboxed sleep to die with its host");
  });

  it("unsandboxed (control): the watchdog is started, and it is what kills the command", async () => {
    const argv = ["/bin/sleep", "32.37"];
    const { child, report } = await hostRunning("danger-full-access", "32.37");
    expect(report.watchdog).toEqual(expect.any(Number));
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    await waitFor(() => pidsRunning(argv).length === 0, "the unsandboxed sleep to be killed by the watchdog");
  });
}, { ok: existsSync("/bin/sleep"), reason: "/bin/sleep is missing" });
