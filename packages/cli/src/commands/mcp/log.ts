import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { escapeForDisplay } from "@shellgate/orchestrator";

/** MCP log levels (RFC 5424 severities), least severe first. */
export const MCP_LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
/** One of {@link MCP_LOG_LEVELS}. */
export type McpLogLevel = (typeof MCP_LOG_LEVELS)[number];

/** Messages below this level are not sent until the client sets another with `logging/setLevel`. */
export const DEFAULT_MCP_LOG_LEVEL: McpLogLevel = "info";

/** The `logger` name of shellgate's own log messages. */
const MCP_LOGGER = "shellgate";

/** shellgate's own diagnostics, sent to the MCP client as `notifications/message`. */
export interface McpLog {
  /** The level below which messages are dropped (`logging/setLevel` changes it). */
  readonly level: McpLogLevel;
  /**
   * Send `message` at `level` when the client asked for that level or a less severe one. The whole
   * text is escaped for display: it may name files a sandboxed command created.
   */
  send(level: McpLogLevel, message: string): void;
}

/**
 * The log of one MCP connection: answers `logging/setLevel` (the server must declare the `logging`
 * capability) and sends what passes the level as `notifications/message` from logger `shellgate`.
 * A message that cannot be sent (the client went away) is dropped.
 */
export function createMcpLog(server: Server, initialLevel: McpLogLevel = DEFAULT_MCP_LOG_LEVEL): McpLog {
  let level = initialLevel;
  // Replaces the SDK's own handler, which would record the level where only the SDK looks.
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    level = request.params.level;
    return {};
  });
  return {
    get level() {
      return level;
    },
    send(messageLevel, message) {
      if (MCP_LOG_LEVELS.indexOf(messageLevel) < MCP_LOG_LEVELS.indexOf(level)) return;
      server.sendLoggingMessage({ level: messageLevel, logger: MCP_LOGGER, data: escapeForDisplay(message) }).catch(() => undefined);
    },
  };
}
