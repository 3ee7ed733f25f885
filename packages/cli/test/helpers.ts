import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spawnPty } from "@shellgate/pty";
import { failInCi } from "@shellgate/test-support";

/** The built bin; tests run against it (build first: `npx tsc -b packages/cli`). */
// The committed launchers, which run the bundle: what `npx shellgate` runs for users.
export const BIN = fileURLToPath(new URL("../bin/shellgate.js", import.meta.url));
export const POLICY_CHECK_BIN = fileURLToPath(new URL("../bin/policy-check.js", import.meta.url));
let sandboxMissing: Promise<string | undefined> | undefined;

/** Why the full Linux sandbox (bubblewrap with namespaces, seccomp) cannot run here; undefined when it can. Probed once. */
function whySandboxMissing(): Promise<string | undefined> {
  sandboxMissing ??= (async () => {
    if (process.platform !== "linux") return `not Linux (${process.platform})`;
    const { probeLinuxSandbox } = await import("@shellgate/sandbox-linux");
    const report = await probeLinuxSandbox();
    return report.level === "full" ? undefined : report.reasons.join("; ") || `only the ${report.level} sandbox works here`;
  })();
  return sandboxMissing;
}

/**
 * The one guard of the real-sandbox tests: why they cannot run here (undefined when they can), for
 * `describe.skipIf(skip !== undefined)`. Where bubblewrap or user namespaces are missing they are
 * skipped, except under `CI=true`: CI installs the sandbox, and a broken one must not turn these
 * tests into skips and leave the run green. There, the calling file gets a failing test that names
 * the reason (as packages/sandbox-linux/test/probe.test.ts does for the probe).
 */
export async function realSandboxSkip(): Promise<string | undefined> {
  return failInCi(await whySandboxMissing(), "the real sandbox is available (CI=true)");
}
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The PATH a person's shell would have: the test runner's, without the `node_modules/.bin`
 * directories npm puts first. In a checkout under a writable root (a clone in /tmp) those are
 * places a sandboxed command could fill, so an allow rule's command would rightly stay sandboxed
 * and tests of the unsandboxed path would depend on where the checkout is.
 */
export function hostPath(): string {
  const entries = (process.env["PATH"] ?? "/usr/bin:/bin").split(path.delimiter);
  // npm adds one for the package, the workspace root and every directory above it (/tmp/node_modules/.bin).
  const kept = entries.filter((dir) => dir !== "" && !dir.startsWith(REPO_ROOT) && !/[\\/]node_modules[\\/]\.bin[\\/]?$/.test(dir));
  return kept.join(path.delimiter);
}

if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (cd /work/main && npx tsc -b packages/cli)`);

/** A scratch home: HOME and XDG_CONFIG_HOME point into it, so no real user config or rules leak in. */
export interface Scratch {
  root: string;
  project: string;
  env: Record<string, string>;
  userRulesFile: string;
  write(rel: string, text: string): string;
  cleanup(): void;
}

/** Create a scratch home and project directory under the OS temp dir. */
export function makeScratch(): Scratch {
  const root = mkdtempSync(path.join(os.tmpdir(), "sg-cli-"));
  const project = path.join(root, "project");
  mkdirSync(project, { recursive: true });
  mkdirSync(path.join(root, "home"), { recursive: true });
  const env: Record<string, string> = {
    PATH: hostPath(),
    HOME: path.join(root, "home"),
    XDG_CONFIG_HOME: path.join(root, "xdg"),
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
  return {
    root,
    project,
    env,
    userRulesFile: path.join(root, "xdg", "shellgate", "rules", "default.rules"),
    write(rel, text) {
      const file = path.resolve(root, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The outcome of running the bin to completion. */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `node shellgate.js ...args` with stdin closed (not a terminal); resolves when it exits. */
export function runBin(args: string[], options: { env: Record<string, string>; cwd: string; bin?: string }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [options.bin ?? BIN, ...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Whether a process with this pid still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll `check` until it returns true or `tries` run out (no timing assertions: only bounded waiting). */
export async function eventually(check: () => boolean | Promise<boolean>, tries = 100, delayMs = 50): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, delayMs));
  }
  return false;
}

/**
 * Run `shellgate ARGS` on a real pseudo-terminal, as a person at a terminal would: press each step's
 * `key` once its `waitFor` text appeared on the screen after the previous key. Returns the exit code
 * and everything the terminal showed.
 */
export async function drivePty(
  args: string[],
  steps: Array<{ waitFor: string; key: string }>,
  options: { cwd: string; env: Record<string, string>; cols?: number; rows?: number },
): Promise<{ code: number; screen: string }> {
  const handle = spawnPty({
    argv: [process.execPath, BIN, ...args],
    cwd: options.cwd,
    env: options.env,
    timeoutMs: 30_000,
    cols: options.cols ?? 120,
    rows: options.rows ?? 40,
  });
  let screen = "";
  const waiters: Array<{ text: string; from: number; resolve: () => void }> = [];
  handle.onOutput((chunk) => {
    screen += Buffer.from(chunk.data).toString("utf8");
    for (const w of [...waiters]) {
      if (screen.indexOf(w.text, w.from) >= 0) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  let from = 0;
  for (const step of steps) {
    const start = from;
    await new Promise<void>((resolve) => {
      if (screen.indexOf(step.waitFor, start) >= 0) resolve();
      else waiters.push({ text: step.waitFor, from: start, resolve });
    });
    from = screen.length;
    handle.write(step.key);
  }
  const result = await handle.result();
  return { code: result.exitCode, screen };
}

/**
 * Why `runBinInNetns` cannot run here, or undefined. `sandbox`: the run also needs the real sandbox,
 * whose trust checks want root-owned binaries, which stay root-owned inside the namespace only for
 * a test run as root (as CI runs; unprivileged, they show as the overflow user).
 */
export function netnsSkip(sandbox = false): string | undefined {
  if (process.platform !== "linux") return "not Linux";
  if (sandbox && process.getuid?.() !== 0) return "a sandboxed run in a network namespace of the test's own needs the tests to run as root";
  const probe = spawnSync("unshare", ["-rnm", "sh", "-c", "ip link set lo up && mount --bind /dev/null /dev/null"], { stdio: "ignore", timeout: 10_000 });
  return probe.status === 0 ? undefined : "unshare -rnm (user, network and mount namespaces) or ip is not available";
}

/**
 * `runBin` in a new user, network and mount namespace of its own: only a loopback interface (which
 * also holds `addresses`, e.g. a documentation address a test server listens on), and an
 * /etc/hosts of `hosts` (name → address) bound over the real one, which stays untouched. Nothing
 * reaches the outside, so a name that is not in `hosts` does not resolve. `server`: a node script
 * (ES module body) started in the same namespace first; the command starts once it printed a line,
 * and everything it printed is `serverOutput`.
 */
export function runBinInNetns(
  args: string[],
  options: { env: Record<string, string>; cwd: string; hosts?: Record<string, string>; addresses?: readonly string[]; server?: string; timeoutMs?: number },
): Promise<RunResult & { serverOutput: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "sg-netns-"));
  const hostsFile = path.join(dir, "hosts");
  writeFileSync(hostsFile, ["127.0.0.1 localhost", "::1 localhost", ...Object.entries(options.hosts ?? {}).map(([name, address]) => `${address} ${name}`), ""].join("\n"));
  const serverFile = path.join(dir, "server.mjs");
  if (options.server !== undefined) writeFileSync(serverFile, options.server);
  const setup = [
    `mount --bind "${hostsFile}" /etc/hosts`,
    "ip link set lo up",
    ...(options.addresses ?? []).map((a) => `ip addr add ${a}/${a.includes(":") ? 128 : 32} dev lo`),
  ];
  // The server's first line says it listens; the command runs after it, and the server dies with the namespace's shell.
  const start =
    options.server === undefined ? "" : `"$0" "${serverFile}" > "${dir}/server.out" 2>&1 & spid=$!; until [ -s "${dir}/server.out" ] || ! kill -0 $spid 2>/dev/null; do sleep 0.05; done; `;
  const script = `${setup.join(" && ")} && ${start}"$0" "$@"; code=$?; [ -n "$spid" ] && kill $spid 2>/dev/null; exit $code`;
  return new Promise((resolve, reject) => {
    const child = spawn("unshare", ["-rnm", "sh", "-c", script, process.execPath, BIN, ...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      let serverOutput = "";
      try {
        serverOutput = readFileSync(path.join(dir, "server.out"), "utf8");
      } catch {
        // no server, or it never wrote
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stdout, stderr, serverOutput });
    });
  });
}

/**
 * Fresh canonical directories under the OS temp dir, readable by whoever runs the tests (the trust
 * suites also run as `nobody`); `cleanup` removes every one made.
 */
export function scratchDirs(prefix: string): { make(label: string): string; cleanup(): void } {
  const made: string[] = [];
  return {
    make(label) {
      const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), `${prefix}-${label}-`)));
      chmodSync(dir, 0o755);
      made.push(dir);
      return dir;
    },
    cleanup: () => made.forEach((d) => rmSync(d, { recursive: true, force: true })),
  };
}

/** An environment whose home, config and cache live in `root` (the home is made); git reads no user or system config. */
export function isolatedGitEnv(root: string): Record<string, string> {
  mkdirSync(path.join(root, "home"), { recursive: true });
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: path.join(root, "home"),
    XDG_CONFIG_HOME: path.join(root, "home", "xdg"),
    XDG_CACHE_HOME: path.join(root, "home", "cache"),
    SHELL: "/bin/sh",
    LANG: "C",
    NO_COLOR: "1",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
  };
}
