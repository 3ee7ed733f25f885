import { UNSANDBOXED, type SandboxType } from "./backend.js";
import { policyAllowsNetwork, type SandboxPolicy } from "./policy.js";

/** Set to the sandbox kind inside a sandboxed command; the Codex name, so existing tools recognise it. */
export const SANDBOX_ENV_VAR = "CODEX_SANDBOX";
/** Set to `1` whenever the policy keeps the network off, whatever enforces it (or nothing, under an external sandbox). */
export const NETWORK_DISABLED_ENV_VAR = "CODEX_SANDBOX_NETWORK_DISABLED";

/**
 * The marker variables a command spawned under `policy` must see. The backend's own markers
 * (`SandboxBackend.envMarkers`) replace the default `CODEX_SANDBOX=<sandboxType>`: Codex sets
 * `seatbelt` on macOS, shellgate's Linux and Windows backends set `linux` and `windows` so a command
 * can tell it is confined. Unsandboxed runs get no `CODEX_SANDBOX`; the network marker follows the
 * policy alone, whoever enforces it.
 */
export function sandboxEnvMarkers(
  policy: SandboxPolicy,
  sandboxType: SandboxType,
  backendMarkers?: Readonly<Record<string, string>>,
): Record<string, string> {
  const markers: Record<string, string> =
    sandboxType === UNSANDBOXED ? {} : backendMarkers ? { ...backendMarkers } : { [SANDBOX_ENV_VAR]: sandboxType };
  if (!policyAllowsNetwork(policy)) markers[NETWORK_DISABLED_ENV_VAR] = "1";
  return markers;
}
