import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { SandboxBackend } from "../backend.js";
import { SandboxError } from "../errors.js";
import { SandboxManager } from "../manager.js";
import { parseSandboxPolicy, type SandboxPolicy } from "../policy.js";
import type { ConformanceCase } from "./cases.js";
import { openLayout, type ConformanceLayout, type LayoutOptions } from "./layout.js";

/** What one run of a case's script showed. */
export interface RunOutcome {
  /** `reached`: the script got through; `blocked`: it was refused; `none`: it printed no verdict. */
  verdict: "reached" | "blocked" | "none";
  /** The refusal's code or message, when blocked. */
  detail: string;
  exitCode: number | null;
  signal: string | null;
  /** The end of stderr, for failure messages. */
  stderr: string;
  /** The case's host file check, made on the host after the run (undefined when it has none). */
  hostEffect?: boolean;
}

/** The verdict on one case for one backend. */
export interface ConformanceResult {
  id: string;
  title: string;
  expect: "blocked" | "allowed";
  status: "passed" | "failed" | "skipped";
  /** Why it failed or was skipped; for a pass, what the sandboxed run showed. */
  reason: string;
  control?: RunOutcome;
  sandboxed?: RunOutcome;
}

/** Options of one case's run. */
export interface CaseRunOptions extends LayoutOptions {
  /** Per-run limit in milliseconds (default 15 000); a run past it is killed and fails. */
  timeoutMs?: number;
  /** The environment the script runs with (default: PATH only). */
  env?: Record<string, string>;
}

const VERDICT = /^(REACHED|BLOCKED: ?(.*))$/;

/** The script as `node -e` runs it: the prelude that gives it `fs`, `path`, `net`, `L` and the verdicts. */
function program(c: ConformanceCase): string {
  return [
    `const fs = require("node:fs"), path = require("node:path"), net = require("node:net");`,
    `const L = JSON.parse(process.argv[1]);`,
    `const reached = () => { process.stdout.write("\\nREACHED\\n"); process.exit(0); };`,
    `const blocked = (why) => { process.stdout.write("\\nBLOCKED: " + String(why) + "\\n"); process.exit(0); };`,
    `setTimeout(() => blocked("timed out"), 5000);`,
    `try { ${c.script} } catch (e) { blocked(e && (e.code || e.message)); }`,
  ].join("\n");
}

/**
 * The case's policy for this layout. The workspace is the only writable root: `/tmp` and `$TMPDIR`
 * are left out, so that "outside" means everything else, and so that a runner staged under `/tmp`
 * (the backend's own files with it) is not inside a writable root.
 */
export function casePolicy(c: ConformanceCase, layout: ConformanceLayout): SandboxPolicy {
  const onlyWorkspace = { excludeSlashTmp: true, excludeTmpdirEnvVar: true };
  switch (c.policy) {
    case "read-only":
      return parseSandboxPolicy({ mode: "read-only" });
    case "workspace-write":
      return parseSandboxPolicy({ mode: "workspace-write", ...onlyWorkspace });
    case "workspace-write-deny-read":
      return parseSandboxPolicy({ mode: "workspace-write", ...onlyWorkspace, deniedReadPaths: [layout.deniedFile] });
  }
}

function spawnScript(argv: readonly string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<Omit<RunOutcome, "hostEffect">> {
  return new Promise((resolve) => {
    const [file, ...args] = argv;
    const child = spawn(file as string, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    const finish = (exitCode: number | null, signal: string | null, spawnError?: Error) => {
      clearTimeout(timer);
      const last = stdout.split("\n").map((l) => l.trim()).filter(Boolean).at(-1) ?? "";
      const m = VERDICT.exec(last);
      const why = spawnError ? `could not start: ${spawnError.message}` : timedOut ? `killed after ${timeoutMs} ms` : "";
      resolve({
        verdict: m ? (m[1] === "REACHED" ? "reached" : "blocked") : "none",
        detail: m?.[2] ?? why,
        exitCode,
        signal,
        stderr: stderr.trim(),
      });
    };
    child.on("error", (error) => finish(null, null, error));
    child.on("close", (code, signal) => finish(code, signal));
  });
}

function hostEffect(c: ConformanceCase, layout: ConformanceLayout): boolean | undefined {
  if (!c.host) return undefined;
  return existsSync(path.join(c.host.in === "workspace" ? layout.workspace : layout.outside, c.host.exists));
}

/** Whether a run got through: its own word, or the file it left on the host. */
function gotThrough(o: RunOutcome): boolean {
  return o.verdict === "reached" || o.hostEffect === true;
}

function describeRun(o: RunOutcome): string {
  const said = o.verdict === "none" ? `no verdict (exit ${o.exitCode ?? o.signal}${o.detail ? `, ${o.detail}` : ""})` : o.verdict === "blocked" ? `blocked (${o.detail})` : "reached";
  const effect = o.hostEffect === undefined ? "" : o.hostEffect ? "; the file is there on the host" : "; nothing on the host";
  const err = o.stderr ? `; stderr: ${o.stderr.split("\n").slice(-3).join(" | ")}` : "";
  return `${said}${effect}${err}`;
}

/**
 * Run one case: unsandboxed as the control, then through `backend` (selected by name from a
 * manager of its own, so its markers and refusal of unsandboxed results apply), each in a fresh
 * layout. Never throws for what a run does. A backend that refuses with a `SandboxError` passes a
 * `blocked` case (it ran nothing) and fails an `allowed` one; any other error fails the case.
 */
export async function runConformanceCase(backend: SandboxBackend, c: ConformanceCase, options: CaseRunOptions = {}): Promise<ConformanceResult> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const env = options.env ?? { PATH: process.env["PATH"] ?? "/usr/bin:/bin" };
  const base = { id: c.id, title: c.title, expect: c.expect };
  const run = async (sandboxed: boolean): Promise<RunOutcome> => {
    const { layout, close } = await openLayout(options);
    try {
      const argv = [process.execPath, "-e", program(c), JSON.stringify(layout)];
      let launch: { argv: readonly string[]; cwd: string; env: Record<string, string>; cleanup?: () => Promise<void> } = { argv, cwd: layout.workspace, env };
      if (sandboxed) {
        const manager = new SandboxManager({ platform: backend.platform });
        manager.register(backend);
        const prepared = await manager.prepare({ argv, cwd: layout.workspace, env }, casePolicy(c, layout), {
          sandboxPolicyCwd: layout.workspace,
          backend: backend.name,
        });
        launch = { argv: prepared.argv, cwd: prepared.cwd, env: { ...prepared.env }, ...(prepared.cleanup ? { cleanup: prepared.cleanup } : {}) };
      }
      try {
        const outcome = await spawnScript(launch.argv, launch.cwd, launch.env, timeoutMs);
        const effect = hostEffect(c, layout);
        return { ...outcome, ...(effect === undefined ? {} : { hostEffect: effect }) };
      } finally {
        await launch.cleanup?.();
      }
    } finally {
      await close();
    }
  };
  const control = await run(false);
  if (!gotThrough(control)) {
    return { ...base, status: "failed", reason: `the unsandboxed control did not get through, so the case proves nothing here: ${describeRun(control)}`, control };
  }
  let sandboxed: RunOutcome;
  try {
    sandboxed = await run(true);
  } catch (error) {
    // Refusing to run what it cannot confine is a correct answer to an escape (the Landlock layer
    // refuses denied reads); the `allowed` cases keep a backend that refuses everything from passing.
    if (c.expect === "blocked" && error instanceof SandboxError) {
      return { ...base, status: "passed", reason: `refused to run: ${error.message}`, control };
    }
    return { ...base, status: "failed", reason: `the backend could not prepare the run: ${(error as Error).message}`, control };
  }
  if (c.expect === "allowed") {
    const ok = gotThrough(sandboxed) && sandboxed.hostEffect !== false;
    return { ...base, status: ok ? "passed" : "failed", reason: ok ? "works inside the sandbox" : `must work inside the sandbox but: ${describeRun(sandboxed)}`, control, sandboxed };
  }
  if (gotThrough(sandboxed)) return { ...base, status: "failed", reason: `ESCAPE: ${describeRun(sandboxed)}`, control, sandboxed };
  if (sandboxed.verdict !== "blocked") {
    // Without the script's own verdict the refusal may be anything (node did not start at all).
    return { ...base, status: "failed", reason: `the sandboxed script never reported: ${describeRun(sandboxed)}`, control, sandboxed };
  }
  return { ...base, status: "passed", reason: `blocked (${sandboxed.detail})`, control, sandboxed };
}
