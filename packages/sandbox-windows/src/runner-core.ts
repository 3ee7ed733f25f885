// What the runner process does, apart from loading the real Win32 layer: the restricted token,
// the job object, the process created suspended, joined to the job, resumed, waited for. The host
// spawns the runner (node.exe runner.js --request JSON) through its usual spawner, so timeouts,
// cancellation and output capture work as for any command; killing the runner closes its job
// handle, and KILL_ON_JOB_CLOSE takes the command's whole tree with it.
import type { RunnerRequest } from "./plan.js";
import type { Win32Api, Win32Handle } from "./win32-api.js";

const SID_RE = /^S-1-5-21-\d{1,10}-\d{1,10}-\d{1,10}-\d{1,10}$/;

/** Parse the runner's `--request` argument; throws with the reason when it is malformed. */
export function parseRunnerRequest(argv: readonly string[]): RunnerRequest {
  const i = argv.indexOf("--request");
  const raw = i >= 0 ? argv[i + 1] : undefined;
  if (raw === undefined) throw new Error("missing --request JSON");
  const r = JSON.parse(raw) as RunnerRequest;
  if (r?.v !== 1 || typeof r.commandLine !== "string" || typeof r.cwd !== "string" || !Array.isArray(r.capabilities)) throw new Error("malformed --request");
  // Never start a process with a token that restricts nothing: a plan's placeholders are not SIDs.
  if (r.capabilities.length === 0 || r.capabilities.some((c) => typeof c?.sid !== "string" || !SID_RE.test(c.sid))) {
    throw new Error("the request names no capability SIDs (a plan's <capability:…> placeholders are not runnable)");
  }
  return r;
}

/**
 * Run the request's command under a restricted token inside a kill-on-close job; returns its exit
 * code. Every handle is closed, the job last (which kills anything the command left behind).
 */
export async function runRestricted(request: RunnerRequest, api: Win32Api, env: Readonly<Record<string, string>>): Promise<number> {
  const opened: Win32Handle[] = [];
  let job: Win32Handle | undefined;
  try {
    const token = await api.createRestrictedToken(request.tokenFlags, request.capabilities.map((c) => c.sid));
    opened.push(token);
    job = await api.createJobObject(request.jobLimits);
    const { process: proc, thread } = await api.createProcessAsUser({ token, commandLine: request.commandLine, cwd: request.cwd, env, flags: request.processFlags });
    opened.push(thread, proc);
    await api.assignProcessToJob(job, proc);
    await api.resumeThread(thread);
    return await api.waitForExit(proc);
  } finally {
    for (const h of opened.reverse()) await api.closeHandle(h).catch(() => undefined);
    if (job) await api.closeHandle(job).catch(() => undefined);
  }
}
