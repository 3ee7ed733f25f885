// Shared plumbing for the real-sandbox tests: spawning, temp dirs, the escape-probe fixture.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseSandboxPolicy, type DeferredLaunch, type SandboxBackend, type SandboxPolicyInput } from "@shellgate/sandbox";
import { probeLinuxSandbox } from "../src/index.js";

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawn argv with a clean env, collect output; never rejects on a non-zero exit. */
export function run(argv: readonly string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = argv;
    if (!file) return reject(new Error("empty argv"));
    const child = spawn(file, args, { cwd: opts.cwd ?? os.tmpdir(), env: opts.env ?? baseEnv(), stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The environment sandboxed commands get in tests. */
export function baseEnv(): Record<string, string> {
  return { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: os.homedir(), LANG: "C" };
}

/**
 * Spawn the first step of a deferred launch (the sandbox, waiting on descriptor 3); after `waitMs`
 * write `payload` there (default: the launch's own; `null` writes nothing) and end it. Collects
 * output like `run`.
 */
export function runDeferred(
  deferred: DeferredLaunch,
  opts: { cwd: string; env: Record<string, string>; payload?: Uint8Array | null; waitMs?: number },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = deferred.argv;
    if (!file) return reject(new Error("empty argv"));
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const commandPipe = child.stdio[3] as NodeJS.WritableStream & { on(event: "error", listener: () => void): void };
    // A sandbox that refused the payload may be gone before it is all written.
    commandPipe.on("error", () => undefined);
    const payload = opts.payload === undefined ? deferred.payload : opts.payload;
    const send = setTimeout(() => (payload ? commandPipe.end(payload) : commandPipe.end()), opts.waitMs ?? 0);
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearTimeout(send);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** How a test starts a sandboxed run: its one-step argv, or the deferred launch with its payload. */
export type LaunchForm = "direct" | "deferred";

/** Run argv through `backend` under `policy` with cwd = `cwd` (also the policy cwd). */
export async function runSandboxed(
  backend: SandboxBackend,
  argv: readonly string[],
  policy: SandboxPolicyInput,
  cwd: string,
  env: Record<string, string> = baseEnv(),
  launch: LaunchForm = "direct",
): Promise<RunResult & { isolation: string }> {
  const execEnv = await backend.transform({ argv, cwd, env }, parseSandboxPolicy(policy), { sandboxPolicyCwd: cwd });
  try {
    if (launch === "deferred" && !execEnv.deferred) throw new Error(`no deferred launch for ${argv.join(" ")}`);
    const result = launch === "deferred" && execEnv.deferred
      ? await runDeferred(execEnv.deferred, { cwd: execEnv.cwd, env: { ...execEnv.env } })
      : await run(execEnv.argv, { cwd: execEnv.cwd, env: { ...execEnv.env } });
    return { ...result, isolation: execEnv.isolation };
  } finally {
    await execEnv.cleanup?.();
  }
}

/** bash -c SCRIPT */
export const sh = (script: string): string[] => ["/bin/sh", "-c", script];

/**
 * Directories for one test file: `ws` (the workspace) under os.tmpdir(), and `outside` under
 * /var/tmp — a place the sandbox can see (read-only) whatever the policy does with /tmp.
 */
export function makeDirs(label: string): { base: string; ws: string; outside: string; remove: () => void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), `sg-${label}-`));
  const outsideParent = fs.existsSync("/var/tmp") ? "/var/tmp" : os.homedir();
  const outside = fs.mkdtempSync(path.join(outsideParent, `sg-${label}-outside-`));
  const ws = path.join(base, "ws");
  fs.mkdirSync(path.join(ws, ".git", "hooks"), { recursive: true });
  return {
    base, ws, outside,
    remove: () => {
      fs.rmSync(base, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    },
  };
}

/** Compile the escape-probe fixture into `dir`; undefined when there is no C compiler. */
export function compileProbe(dir: string): string | undefined {
  const source = fileURLToPath(new URL("./fixtures/escape-probe.c", import.meta.url));
  const out = path.join(dir, "escape-probe");
  try {
    execFileSync(process.env["CC"] ?? "cc", ["-O1", "-o", out, source], { stdio: "pipe" });
    return out;
  } catch {
    return undefined;
  }
}

/** Compile the LD_PRELOAD fixture into `dir`; undefined when there is no C compiler. */
export function compilePreload(dir: string): string | undefined {
  const source = fileURLToPath(new URL("./fixtures/preload-writer.c", import.meta.url));
  const out = path.join(dir, "preload-writer.so");
  try {
    execFileSync(process.env["CC"] ?? "cc", ["-shared", "-fPIC", "-O1", "-o", out, source], { stdio: "pipe" });
    return out;
  } catch {
    return undefined;
  }
}

/** Why the bwrap layer cannot be tested here, or undefined when it can. */
export async function bwrapMissing(): Promise<string | undefined> {
  const report = await probeLinuxSandbox();
  if (report.platform !== "linux") return "not Linux";
  return report.level === "full" ? undefined : report.reasons.join("; ");
}

/** Why the Landlock layer cannot be tested here, or undefined when it can. */
export async function landlockMissing(): Promise<string | undefined> {
  const report = await probeLinuxSandbox();
  if (report.platform !== "linux") return "not Linux";
  if (!report.helper.available || !report.seccomp.available) return report.reasons.join("; ");
  return report.landlock.available ? undefined : report.landlock.detail;
}

/** Pids of processes whose command line is exactly `needle` (argv joined by spaces; scans /proc). */
export function processWithArgsExists(needle: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
      if (cmdline === needle) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/**
 * Why tests that switch to nobody from root cannot run here, or undefined when they can: they need
 * the checkout (the built package and its helper) reachable by other users, and a clone below a
 * private (0700) directory is not. `tooling/unprivileged` still runs the escape and limit suites as
 * nobody in that case, through a bind mount.
 */
export function nobodyCannotReach(): string | undefined {
  if (process.getuid?.() !== 0) return "not running as root";
  if (!fs.existsSync("/usr/bin/setpriv")) return "/usr/bin/setpriv is missing";
  let dir = fileURLToPath(new URL("..", import.meta.url));
  for (;;) {
    if ((fs.statSync(dir).mode & 0o001) === 0) {
      return `nobody cannot reach the checkout (${dir} is private); tooling/unprivileged covers the nobody runs`;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * A run's argv without the `--cgroup DIR` a root run's launching helper gets (its directory is made
 * per run, so a plan cannot show it); everything else, placeholders included, as spawned.
 */
export function withoutCgroup(argv: readonly string[]): string[] {
  return argv[1] === "--cgroup" ? [argv[0] as string, ...argv.slice(3)] : [...argv];
}

/** The bubblewrap part of a run's argv: what follows the launching helper's `--exec-only --`. */
export function bwrapPart(argv: readonly string[]): string[] {
  const i = argv.indexOf("--exec-only");
  return i >= 0 && argv[i + 1] === "--" ? argv.slice(i + 2) : [...argv];
}
