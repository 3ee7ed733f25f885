import type { SandboxType } from "./backend.js";
import { policyAllowsNetwork, type SandboxPolicy } from "./policy.js";

/** Set to the sandbox kind inside a sandboxed command; the Codex name, so existing tools recognise it. */
export const SANDBOX_ENV_VAR = "CODEX_SANDBOX";
/** Set to `1` whenever the policy keeps the network off, whatever enforces it (or nothing, under an external sandbox). */
export const NETWORK_DISABLED_ENV_VAR = "CODEX_SANDBOX_NETWORK_DISABLED";

/**
 * `CODEX_SANDBOX` value per sandbox type. `seatbelt` is what Codex sets on macOS. Codex sets
 * nothing on Linux and Windows; shellgate sets `linux` and `windows` so a command can tell it is
 * confined — tools comparing against `seatbelt` are unaffected.
 */
export const SANDBOX_ENV_VALUES: Readonly<Record<Exclude<SandboxType, "none">, string>> = Object.freeze({
  seatbelt: "seatbelt",
  linux: "linux",
  windows: "windows",
});

/**
 * The marker variables a command spawned under `policy` with `sandboxType` must see.
 * Unsandboxed runs get no `CODEX_SANDBOX`; the network marker follows the policy alone.
 */
export function sandboxEnvMarkers(policy: SandboxPolicy, sandboxType: SandboxType): Record<string, string> {
  const markers: Record<string, string> = {};
  if (sandboxType !== "none") markers[SANDBOX_ENV_VAR] = SANDBOX_ENV_VALUES[sandboxType];
  if (!policyAllowsNetwork(policy)) markers[NETWORK_DISABLED_ENV_VAR] = "1";
  return markers;
}
