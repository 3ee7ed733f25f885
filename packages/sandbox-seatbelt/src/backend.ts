import { existsSync } from "node:fs";
import { z } from "zod";
import {
  policyRequiresPlatformSandbox,
  sandboxEnvMarkers,
  SandboxUnavailableError,
  UNSANDBOXED,
  type BackendAvailability,
  type CommandSpec,
  type ExecEnv,
  type SandboxBackend,
  type SandboxPlan,
  type SandboxPolicy,
  type TransformOptions,
} from "@shellgate/sandbox";
import { checkCommand } from "./command.js";
import { SeatbeltSandboxError } from "./errors.js";
import { SANDBOX_EXEC_PATH, SEATBELT_DENIAL_SIGNALS } from "./launch-argv.js";
import { planSeatbeltRun, seatbeltRun, SEATBELT_ISOLATION } from "./plan.js";

/**
 * Options of `createSeatbeltSandboxBackend`. None yet: what is enforced comes from the policy
 * (network included), and the `sandbox-exec` binary is always `/usr/bin/sandbox-exec`. An unknown
 * key is refused rather than ignored, so a setting that does nothing never looks as if it did.
 */
export type SeatbeltSandboxBackendOptions = Record<string, never>;

const OptionsSchema = z.strictObject({});

function validateOptions(options: unknown): void {
  if (options === undefined) return;
  const parsed = OptionsSchema.safeParse(options);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const keys = issue && "keys" in issue && Array.isArray(issue.keys) ? (issue.keys as string[]) : [];
  if (keys.includes("sandboxExecPath")) {
    throw new SeatbeltSandboxError("invalid-options", `sandboxExecPath: not an option: the backend always runs ${SANDBOX_EXEC_PATH}, never another binary`);
  }
  const what = keys.length > 0 ? `unknown option${keys.length > 1 ? "s" : ""} ${keys.join(", ")}` : (issue?.message ?? "must be an object");
  throw new SeatbeltSandboxError("invalid-options", `options: ${what} (the Seatbelt backend takes none: the policy decides what is enforced)`);
}

/** `CODEX_SANDBOX=seatbelt`: the value Codex sets under Seatbelt, which tools already check. */
const ENV_MARKERS = Object.freeze({ CODEX_SANDBOX: "seatbelt" });

/**
 * Whether Seatbelt can run on a machine: macOS with `/usr/bin/sandbox-exec`. Pure given its inputs,
 * so that both answers are tested on any OS.
 */
export function seatbeltAvailability(platform: NodeJS.Platform, sandboxExecExists: boolean): BackendAvailability {
  if (platform !== "darwin") return { available: false, reason: `Seatbelt is macOS only (this is ${platform})` };
  if (!sandboxExecExists) return { available: false, reason: `${SANDBOX_EXEC_PATH} is missing` };
  return { available: true, isolation: SEATBELT_ISOLATION };
}

/**
 * The macOS Seatbelt backend: runs every command under `/usr/bin/sandbox-exec` with a profile
 * generated from the policy (deny by default; reads everywhere but the denied paths; writes only
 * in the writable roots minus their read-only carve-outs; network as the policy says, or only the
 * session proxy's two loopback ports when a route is given and the policy keeps the network off). Paths reach
 * the profile only as `-D` parameters, in their macOS-canonical form. `plan` works on any OS.
 * @throws SeatbeltSandboxError (`invalid-options`) for any option: there are none yet.
 */
export function createSeatbeltSandboxBackend(options?: SeatbeltSandboxBackendOptions): SandboxBackend {
  validateOptions(options);
  let availability: Promise<BackendAvailability> | undefined;
  const isAvailable = () => (availability ??= Promise.resolve(seatbeltAvailability(process.platform, existsSync(SANDBOX_EXEC_PATH))));

  async function transform(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions): Promise<ExecEnv> {
    await checkCommand(spec);
    if (!policyRequiresPlatformSandbox(policy)) {
      return { argv: [...spec.argv], cwd: spec.cwd, env: { ...spec.env, ...sandboxEnvMarkers(policy, UNSANDBOXED) }, sandboxType: UNSANDBOXED, isolation: "none" };
    }
    // The run is computed (and so its input validated) before availability is judged: bad input
    // is reported as such on every machine, not hidden behind "no sandbox here".
    const run = await seatbeltRun(spec, policy, opts);
    const available = await isAvailable();
    if (!available.available) {
      throw new SandboxUnavailableError(policy.mode, process.platform, [{ backend: "seatbelt", platform: "darwin", reason: available.reason }]);
    }
    const env: Record<string, string> = {};
    const unset = new Set(run.network.unset);
    for (const [k, v] of Object.entries(spec.env)) if (!unset.has(k)) env[k] = v;
    return {
      argv: run.argv,
      cwd: spec.cwd,
      env: { ...env, ...run.network.set, ...sandboxEnvMarkers(policy, "seatbelt", ENV_MARKERS) },
      sandboxType: "seatbelt",
      isolation: SEATBELT_ISOLATION,
      denialSignals: SEATBELT_DENIAL_SIGNALS,
      networkMode: run.network.mode,
    };
  }

  function plan(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions): Promise<SandboxPlan> {
    return planSeatbeltRun(spec, policy, opts);
  }

  return {
    name: "seatbelt",
    platform: "darwin",
    sandboxType: "seatbelt",
    envMarkers: ENV_MARKERS,
    denialSignals: SEATBELT_DENIAL_SIGNALS,
    proxyTransport: "loopback-tcp",
    isAvailable,
    plan,
    transform,
  };
}
