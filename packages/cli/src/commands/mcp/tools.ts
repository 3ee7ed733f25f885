import { UsageError } from "../../errors.js";

/** Every tool `shellgate mcp` can list; `--tools` picks among them. */
export const MCP_TOOL_NAMES = ["shell", "shell_command", "exec_command", "write_stdin"] as const;
/** One of {@link MCP_TOOL_NAMES}. */
export type McpToolName = (typeof MCP_TOOL_NAMES)[number];

/**
 * The tools listed when `--tools` is not given. The argv-style `shell` (Codex's `shell` tool) is left
 * out unless asked for: clients that know it ask by name, and a model offered both `shell` and
 * `shell_command` has two ways to do one thing.
 */
export const MCP_TOOLS = ["shell_command", "exec_command", "write_stdin"] as const satisfies readonly McpToolName[];

/**
 * The tools `--tools NAME[,NAME]` selects (the flag may be repeated), in the order given, each once.
 * @throws UsageError naming `--tools` for an empty list or a name that is not one of {@link MCP_TOOL_NAMES}.
 */
export function parseToolsOption(values: string | readonly string[] | undefined): McpToolName[] {
  if (values === undefined) return [...MCP_TOOLS];
  const names = (typeof values === "string" ? [values] : values).flatMap((v) => v.split(",")).map((n) => n.trim());
  const chosen: McpToolName[] = [];
  for (const name of names) {
    if (name === "") continue;
    if (!(MCP_TOOL_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(`--tools: unknown tool ${JSON.stringify(name)}; choose from ${MCP_TOOL_NAMES.join(", ")}`);
    }
    if (!chosen.includes(name as McpToolName)) chosen.push(name as McpToolName);
  }
  if (chosen.length === 0) throw new UsageError(`--tools: no tool named; choose from ${MCP_TOOL_NAMES.join(", ")}`);
  return chosen;
}
