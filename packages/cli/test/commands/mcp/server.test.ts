import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ElicitRequestSchema, type CallToolResult, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { elicitationMessage, startMcpServer, type PromptDecision, type PromptRequest, type ToolHost } from "../../../src/index.js";

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

function fakeHost(log: string[]) {
  let approve: ((r: PromptRequest) => Promise<PromptDecision>) | undefined;
  const host: ToolHost = {
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
    const unknown = await client.callTool({ name: "shell", arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/unknown tool "shell"/);
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
