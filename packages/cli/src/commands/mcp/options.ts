import { UsageError } from "../../errors.js";
import type { ConfigOverrides } from "../../config/load.js";

/** The options only `shellgate mcp` takes, besides the shared configuration ones. */
export const MCP_OPTIONS = {
  tools: { type: "string", multiple: true },
  prewarm: { type: "boolean" },
  "no-prewarm": { type: "boolean" },
} as const;

/**
 * `--prewarm` / `--no-prewarm` as a configuration override (none when neither is given).
 * @throws UsageError when both are given.
 */
export function prewarmOverride(values: Record<string, unknown>): Pick<ConfigOverrides, "prewarmSandboxes"> {
  if (values["prewarm"] === true && values["no-prewarm"] === true) throw new UsageError("--prewarm and --no-prewarm: give one of them");
  if (values["prewarm"] === true) return { prewarmSandboxes: true };
  if (values["no-prewarm"] === true) return { prewarmSandboxes: false };
  return {};
}
