import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type LoggingMessageNotification,
} from "@modelcontextprotocol/sdk/types.js";
import type { OrchestratorEvent } from "@shellgate/orchestrator";
import { describe, expect, it } from "vitest";
import { elicitationMessage, parseToolsOption, startMcpServer, UsageError, type PromptDecision, type PromptRequest, type ToolHost } from "../../../src/index.js";

/** A client transport over a pair of in-process streams, standing in for the server's stdio. */
function streamTransport(toServer: PassThrough, fromServer: PassThrough): Transport {
  const buffer = new ReadBuffer();
  const transport: Transport = {
    async start() {
      fromServer.on("data", (chunk: Buffer) => {
        buffer.append(chunk);
        for (let m = buffer.readMessage(); m; m = buffer.readMessage()) transport.onmessage?.(m);
      });
    },
    async send(message: JSONRPCMessage) {
      toServer.write(serializeMessage(message));
    },
    async close() {
      toServer.end();
      transport.onclose?.();
    },
  };
  return transport;
}

const request: PromptRequest = { argv: ["git", "push"], cwd: "/w", reason: "pushing", proposedAmendment: ["git", "push"], matchedRules: [] };

function fakeHost(log: string[], listeners: Array<(event: OrchestratorEvent) => void> = []) {
  let approve: ((r: PromptRequest) => Promise<PromptDecision>) | undefined;
  const host: ToolHost = {
    on(listener) {
      listeners.push(listener);
      return () => undefined;
    },
    toolDefinitions: () => [
      { name: "shell", description: "argv", inputSchema: { type: "object" } },
      { name: "shell_command", description: "script", inputSchema: { type: "object", required: ["command"] } },
      { name: "exec_command", description: "session", inputSchema: { type: "object" } },
      { name: "write_stdin", description: "stdin", inputSchema: { type: "object" } },
      { type: "function", name: "not-mcp-shaped" },
    ],
    async handleToolCall(call) {
      if (call.name === "exec_command") throw new Error("boom: spawn failed");
      if (!approve) return { content: "no approver", success: false };
      const decision = await approve(request);
      log.push(JSON.stringify(decision));
      return { content: `decided ${JSON.stringify(decision)}`, success: true };
    },
    async close() {
      log.push("closed");
    },
  };
  return {
    factory: async (a: typeof approve) => {
      approve = a;
      return host;
    },
  };
}

async function start(elicit?: (message: string) => { action: "accept" | "decline" | "cancel"; content?: Record<string, string> }) {
  const log: string[] = [];
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const { factory } = fakeHost(log);
  const running = await startMcpServer({ name: "t", version: "0", input: toServer, output: fromServer, createHost: factory });
  const client = new Client({ name: "c", version: "0" }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (r) => elicit(r.params.message));
  await client.connect(streamTransport(toServer, fromServer));
  return { client, running, log };
}

const text = (r: unknown) => ((r as CallToolResult).content[0] as { text: string }).text;

describe("MCP server wiring (in-process)", () => {
  it("lists only the three tools, reports errors as tool results, and closes the host on disconnect", async () => {
    const { client, running, log } = await start();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["shell_command", "exec_command", "write_stdin"]);
    // A tool the server does not list is the client's mistake: a JSON-RPC error, not a result.
    await expect(client.callTool({ name: "shell", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(/unknown tool "shell"; this server's tools are shell_command, exec_command, write_stdin/),
      data: { code: "CLI_MCP_UNKNOWN_TOOL", tool: "shell" },
    });
    const failed = await client.callTool({ name: "exec_command", arguments: { cmd: "x" } });
    expect(failed.isError).toBe(true);
    expect(text(failed)).toBe("boom: spawn failed");
    const noApprover = await client.callTool({ name: "shell_command", arguments: { command: "x" } });
    expect(text(noApprover)).toBe("no approver");
    await client.close();
    await running.closed;
    expect(log).toEqual(["closed"]);
  });

  it.each([
    [{ action: "accept" as const, content: { decision: "once" } }, "approved"],
    [{ action: "accept" as const, content: { decision: "session" } }, "approved_for_session"],
    [{ action: "accept" as const, content: { decision: "always:0" } }, { decision: "approved_with_amendment", amendment: ["git", "push"] }],
    [{ action: "accept" as const, content: { decision: "always" } }, "denied"],
    [{ action: "accept" as const, content: { decision: "deny" } }, "denied"],
    [{ action: "decline" as const }, "denied"],
    [{ action: "cancel" as const }, "abort"],
  ])("elicitation answer %j → %j", async (answer, decision) => {
    const { client, running } = await start(() => answer);
    const r = await client.callTool({ name: "shell_command", arguments: { command: "git push" } });
    expect(text(r)).toBe(`decided ${JSON.stringify(decision)}`);
    await client.close();
    await running.closed;
  });

  it("sends the host's diagnostics to the client's log, escaped, at or above the level the client set", async () => {
    const listeners: Array<(event: OrchestratorEvent) => void> = [];
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const { factory } = fakeHost([], listeners);
    const running = await startMcpServer({ name: "t", version: "0", input: toServer, output: fromServer, createHost: factory });
    const client = new Client({ name: "c", version: "0" });
    const logs: LoggingMessageNotification["params"][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    await client.connect(streamTransport(toServer, fromServer));
    await client.listTools(); // the host exists from here on
    const created = (name: string): OrchestratorEvent => ({
      type: "exec.repositories",
      callId: "c1",
      repositories: [{ path: `/w/${name}`, gitPath: `/w/${name}/.git`, change: "created" }],
      complete: true,
      directories: 1,
      listed: 1,
    });
    listeners.forEach((l) => l(created("a\u001b[2Jb")));
    await client.setLoggingLevel("error");
    listeners.forEach((l) => l(created("filtered")));
    await client.setLoggingLevel("warning");
    listeners.forEach((l) => l(created("c")));
    await client.listTools(); // notifications sent before this answer have arrived with it
    expect(logs.map((l) => [l.level, l.logger, String(l.data).replace(/ its hooks.*/, "")])).toEqual([
      ["warning", "shellgate", "the command created a git repository at /w/a\\x1b[2Jb:"],
      ["warning", "shellgate", "the command created a git repository at /w/c:"],
    ]);
    await client.close();
    await running.closed;
  });

  it("--tools takes names separated by commas or repeated, each once, and refuses others naming the flag", () => {
    expect(parseToolsOption(undefined)).toEqual(["shell_command", "exec_command", "write_stdin"]);
    expect(parseToolsOption(["shell,exec_command", "write_stdin", "shell"])).toEqual(["shell", "exec_command", "write_stdin"]);
    expect(() => parseToolsOption(["shell,container.exec"])).toThrow(UsageError);
    expect(() => parseToolsOption(["shell,container.exec"])).toThrow(/^--tools: unknown tool "container.exec"/);
    expect(() => parseToolsOption([","])).toThrow(/^--tools: no tool named/);
  });

  it("tells the person what, where, why and which rule", () => {
    const message = elicitationMessage({
      argv: ["rm", "-r", "build dir"],
      cwd: "/w",
      reason: "deleting needs a person",
      matchedRules: [{ decision: "prompt", source: { file: "/r/default.rules", line: 7 } }],
    });
    expect(message).toContain("rm -r 'build dir'");
    expect(message).toContain("/w");
    expect(message).toContain("deleting needs a person");
    expect(message).toContain("/r/default.rules:7");
  });
});
