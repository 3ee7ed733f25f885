import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
  type ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import type { OrchestratorEvent } from "@shellgate/orchestrator";
import { policyAllowsNetwork, type SandboxPolicy } from "@shellgate/sandbox";
import type { PromptDecision, PromptRequest } from "../../approval/types.js";
import { describeError } from "../../error-text.js";
import { UnknownMcpToolError } from "../../errors.js";
import { clientSupportsElicitation, createElicitationApproval } from "./approval.js";
import { eventDiagnostics } from "./diagnostics.js";
import { createMcpLog, type McpLog } from "./log.js";
import { recordNegotiatedVersion } from "./protocol-version.js";
import { MCP_TOOLS, type McpToolName } from "./tools.js";

export { MCP_TOOLS };

const TITLES: Record<McpToolName, string> = {
  shell: "Run a command given as an argv array (policy-checked, sandboxed)",
  shell_command: "Run a shell command (policy-checked, sandboxed)",
  exec_command: "Start a command or interactive session (policy-checked, sandboxed)",
  write_stdin: "Send input to a running session, or poll its output",
};

/**
 * The MCP annotations of a tool. Every tool runs or drives arbitrary commands: never read-only,
 * possibly destructive, not idempotent. `openWorldHint` follows the sandbox policy's network (a
 * sandboxed command reaches the network only when the policy lets it); commands an allow rule or a
 * person lets out of the sandbox have the network whatever the hint says.
 */
function mcpToolAnnotations(name: McpToolName, networkInSandbox: boolean): ToolAnnotations {
  return { title: TITLES[name], readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: networkInSandbox };
}

/** What a tool call returns: the model's text, plus the facts the server also sends as structured content. */
interface ToolHostOutput {
  content: string;
  success: boolean;
  exitCode?: number | null;
  sessionId?: number;
  fullOutputPath?: string;
  sandboxRetry?: string;
  /** The explained sandbox denial (`@shellgate/sandbox`'s `SandboxDenial`), written for the model. */
  sandboxDenial?: object;
  /** Why allow rules matched but the command ran in the sandbox (`SandboxKept`: the reason and each resolved path). */
  sandboxKept?: object;
  /** Git repositories the sandboxed run created or changed (`@shellgate/orchestrator`'s `RunRepositoriesReport`). */
  runRepositories?: object;
  error?: { code: string; message: string; field?: string };
}

/** The keys of a tool result that go into MCP `structuredContent`, when the call produced any of them. */
const STRUCTURED_KEYS = ["exitCode", "sessionId", "fullOutputPath", "sandboxRetry", "sandboxDenial", "sandboxKept", "runRepositories", "error"] as const;

/**
 * The machine-readable part of a result (MCP `structuredContent`): the exit code, session id, the
 * file with the full output, the explained sandbox denial, why allow rules did not lift the sandbox
 * (with the resolved paths), the git repositories the run left behind (which the client must show
 * the person) and the error code, so a client can act
 * on them without parsing the text. Undefined when there is nothing to add.
 */
function structuredResult(output: ToolHostOutput): Record<string, unknown> | undefined {
  const structured: Record<string, unknown> = {};
  for (const key of STRUCTURED_KEYS) if (output[key] !== undefined) structured[key] = output[key];
  return Object.keys(structured).length > 0 ? structured : undefined;
}

/** What the server needs from an orchestrator session (the Orchestrator class fits it). */
export interface ToolHost {
  /** MCP-format definitions (`{ name, description, inputSchema }`); other shapes are ignored. */
  toolDefinitions(format: "mcp"): ReadonlyArray<object>;
  handleToolCall(
    call: { name: string; arguments: Record<string, unknown> },
    options?: { signal?: AbortSignal },
  ): Promise<ToolHostOutput>;
  close(): Promise<void>;
  /** The sandbox policy commands run under; decides `openWorldHint` (absent: the network counts as possibly on). */
  readonly sandboxPolicy?: SandboxPolicy;
  /** Lifecycle events; those worth a person's attention (repositories a run created…) go to the client's log. */
  on?(listener: (event: OrchestratorEvent) => void): () => void;
}

/**
 * Creates the orchestrator session of a connection; `approve` is absent when the client cannot ask a
 * person; `log` sends shellgate's own diagnostics to the client (`notifications/message`).
 */
export type ToolHostFactory = (
  approve: ((request: PromptRequest, context?: { signal?: AbortSignal }) => Promise<PromptDecision>) | undefined,
  log: McpLog,
) => Promise<ToolHost>;

/** A running MCP server; `closed` settles once the connection ended and every process was cleaned up. */
export interface RunningMcpServer {
  server: Server;
  closed: Promise<void>;
  shutdown(why?: string): Promise<void>;
}

/**
 * A JSON-RPC error of the response itself (the SDK sends an error's numeric `code`, `message` and
 * `data` as they are), as opposed to a tool result flagged `isError`.
 */
function protocolError(code: number, message: string, data: Record<string, unknown>): Error {
  return Object.assign(new Error(message), { code, data });
}

/**
 * Serve `tools` (default {@link MCP_TOOLS}) over stdio. One orchestrator session per connection,
 * created when the client has initialized (so its elicitation capability and protocol version are
 * known) and closed — killing every process it started — when the client disconnects or the server
 * is asked to stop. The server declares `logging`: shellgate's own diagnostics go to the client as
 * log messages, filtered by the level it sets.
 */
export async function startMcpServer(options: {
  name: string;
  version: string;
  createHost: ToolHostFactory;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Lifecycle notes (connection end, cleanup); stdout is the protocol, so these go elsewhere (stderr). */
  log?: (message: string) => void;
  /** The tools listed and served (default {@link MCP_TOOLS}); a call of any other is a protocol error. */
  tools?: readonly McpToolName[];
}): Promise<RunningMcpServer> {
  const log = options.log ?? (() => undefined);
  const served: readonly string[] = options.tools ?? MCP_TOOLS;
  const server = new Server(
    { name: options.name, version: options.version },
    {
      capabilities: { tools: {}, logging: {} },
      instructions:
        "Shell tools guarded by shellgate: commands are checked against the user's rules, may need the user's approval, and run in a sandbox. A refusal explains why; do not retry a forbidden command in another form.",
    },
  );
  const mcpLog = createMcpLog(server);
  const transport = new StdioServerTransport(
    options.input as NodeJS.ReadStream | undefined,
    options.output as NodeJS.WriteStream | undefined,
  );
  const protocolVersion = recordNegotiatedVersion(transport);
  let hostPromise: Promise<ToolHost> | undefined;
  const host = () => {
    hostPromise ??= options
      .createHost(clientSupportsElicitation(server) ? createElicitationApproval(server, protocolVersion) : undefined, mcpLog)
      .then((h) => {
        h.on?.((event) => {
          for (const { level, message } of eventDiagnostics(event)) mcpLog.send(level, message);
        });
        return h;
      });
    return hostPromise;
  };
  server.oninitialized = () => {
    // Start loading rules and probing the sandbox now, so the first call does not pay for it.
    host().catch(() => undefined);
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const h = await host();
    const network = h.sandboxPolicy ? policyAllowsNetwork(h.sandboxPolicy) : true;
    const tools = h.toolDefinitions("mcp").filter(isMcpTool).filter((d) => served.includes(d.name));
    return {
      tools: tools.map((t): Tool => {
        const annotations = mcpToolAnnotations(t.name as McpToolName, network);
        return { name: t.name, title: annotations.title ?? t.name, description: t.description, inputSchema: t.inputSchema, annotations };
      }),
    };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const name = request.params.name;
    if (!served.includes(name)) {
      // Not a result the model reads: the client asked for something this server never listed (MCP: -32602).
      const error = new UnknownMcpToolError(name, served);
      throw protocolError(ErrorCode.InvalidParams, error.message, { code: error.code, tool: name, knownTools: error.knownTools });
    }
    try {
      const output = await (await host()).handleToolCall(
        { name, arguments: request.params.arguments ?? {} },
        { signal: extra.signal },
      );
      const structuredContent = structuredResult(output);
      return { isError: !output.success, content: [{ type: "text", text: output.content }], ...(structuredContent ? { structuredContent } : {}) };
    } catch (error) {
      // Refusals (forbidden, rejected, invalid arguments…) are results the model reads, not protocol errors.
      const code = (error as { code?: unknown } | null)?.code;
      const text = describeError(error);
      return {
        isError: true,
        content: [{ type: "text", text }],
        ...(typeof code === "string" ? { structuredContent: { error: { code, message: text } } } : {}),
      };
    }
  });

  const input = options.input ?? process.stdin;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let shuttingDown: Promise<void> | undefined;
  const shutdown = (why = "shutdown requested") => {
    // The body runs a microtask later, after `shuttingDown` is set: `server.close()` fires
    // `transport.onclose`, which calls back into `shutdown` and must find it already underway.
    shuttingDown ??= Promise.resolve().then(async () => {
      log(`${why}; stopping every process of this connection`);
      try {
        if (hostPromise) await (await hostPromise.catch(() => null))?.close();
      } finally {
        await server.close().catch(() => undefined);
        log("stopped");
        resolveClosed();
      }
    });
    return shuttingDown;
  };
  // The stdio transport does not notice the client going away; end of input is the disconnect.
  input.once("end", () => void shutdown("client disconnected (end of input)"));
  input.once("close", () => void shutdown("client disconnected (input closed)"));
  transport.onclose = () => void shutdown("transport closed");
  await server.connect(transport);
  return { server, closed, shutdown };
}

function isMcpTool(d: object): d is { name: string; description: string; inputSchema: { type: "object"; [key: string]: unknown } } {
  const t = d as { name?: unknown; inputSchema?: { type?: unknown } };
  return typeof t.name === "string" && typeof t.inputSchema === "object" && t.inputSchema?.type === "object";
}
