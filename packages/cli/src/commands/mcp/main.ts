import { loadPolicy } from "@shellgate/execpolicy";
import { configOverrides, CONFIG_OPTIONS, parseCommandArgs } from "../../args.js";
import { loadConfig } from "../../config/load.js";
import { describeError } from "../../error-text.js";
import { CliError, UsageError } from "../../errors.js";
import { CONFIG_ERROR_EXIT } from "../../exit-table.js";
import { weakerIsolationWarning } from "./diagnostics.js";
import { startMcpServer } from "./server.js";
import { MCP_OPTIONS, prewarmOverride } from "./options.js";
import { parseToolsOption, type McpToolName } from "./tools.js";
import { createCliOrchestrator } from "../../orchestrator-factory.js";
import { debugEnabled } from "../../run-command.js";
import { readPackageVersion } from "../../version.js";

/** The body of `shellgate mcp` (see its `--help`). Runs until the client disconnects. */
export async function mcpMain(args: string[]): Promise<number> {
  let config;
  let tools: McpToolName[];
  try {
    const parsed = parseCommandArgs(args, { ...CONFIG_OPTIONS, ...MCP_OPTIONS, help: { type: "boolean" } }, false);
    tools = parseToolsOption(parsed.values["tools"] as string[] | undefined);
    config = await loadConfig({ ...configOverrides(parsed.values), ...prewarmOverride(parsed.values) });
  } catch (error) {
    if (error instanceof CliError) {
      process.stderr.write(`shellgate mcp: ${describeError(error)}\n`);
      if (error instanceof UsageError) process.stderr.write("Run `shellgate mcp --help` for usage.\n");
      return error instanceof UsageError ? 2 : CONFIG_ERROR_EXIT;
    }
    throw error;
  }
  // Load the rules now so a broken rules file stops the server at start, with its diagnostic,
  // instead of failing every tool call later.
  if (config.rules.length > 0) {
    try {
      await loadPolicy(config.rules.map((r) => r.file));
    } catch (error) {
      process.stderr.write(`shellgate mcp: ${describeError(error)}\n`);
      return CONFIG_ERROR_EXIT;
    }
  }

  const debug = debugEnabled();
  const running = await startMcpServer({
    ...(debug ? { log: (message: string) => process.stderr.write(`shellgate mcp: ${message}\n`) } : {}),
    name: "shellgate",
    version: readPackageVersion(),
    tools,
    // One orchestrator serves every call of the connection, so "run for this session" means something here.
    createHost: async (approve, log) => {
      const orchestrator = await createCliOrchestrator(config, approve, {
        sessionApprovals: true,
        sessionPlaceholders: true,
        prewarmSandboxes: config.prewarmSandboxes,
      });
      // Said once, at the start: every command of the connection runs under it.
      void weakerIsolationWarning(orchestrator).then((warning) => warning && log.send("warning", warning));
      return orchestrator;
    },
  });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.once(signal, () => void running.shutdown(`received ${signal}`));
  }
  await running.closed;
  return 0;
}
