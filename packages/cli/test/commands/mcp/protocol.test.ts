// `shellgate mcp` as MCP clients speak to it, through the official SDK client over stdio (the built
// bin), at the SDK's current protocol version and at 2025-06-18, the version before titled enums.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ElicitRequestSchema,
  LATEST_PROTOCOL_VERSION,
  LoggingMessageNotificationSchema,
  type CallToolResult,
  type ElicitRequest,
  type JSONRPCMessage,
  type LoggingMessageNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, eventually, makeScratch, runBin, type Scratch } from "../../helpers.js";

let s: Scratch;
let rules: string;
beforeAll(() => {
  s = makeScratch();
  rules = s.write("rules/protocol.rules", 'prefix_rule(pattern=["touch"], decision="prompt", justification="creating files needs a person")\n');
});
afterAll(() => s.cleanup());

const OLD_VERSION = "2025-06-18";

interface Connection {
  client: Client;
  /** The version the server answered `initialize` with (the SDK hands it to the transport). */
  negotiated: () => string | undefined;
  logs: LoggingMessageNotification["params"][];
  elicitations: ElicitRequest["params"][];
}

/**
 * A client connected to `shellgate mcp ARGS` that negotiates `version`: the SDK always offers its
 * latest, so for an older one the initialize request is rewritten on its way out, as an older client
 * would send it. Every elicitation is recorded and approved once; every log message is recorded.
 */
async function connect(version: string, args: string[] = []): Promise<Connection> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "--rules", rules, ...args],
    env: s.env,
    cwd: s.project,
    stderr: "pipe",
  });
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage) => {
    if ("method" in message && message.method === "initialize" && message.params) {
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    }
    return send(message);
  };
  let negotiated: string | undefined;
  // The SDK client hands the version the server answered with to a transport that takes it.
  (transport as Transport).setProtocolVersion = (v: string) => void (negotiated = v);
  const client = new Client({ name: "shellgate-protocol-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  const logs: Connection["logs"] = [];
  const elicitations: Connection["elicitations"] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicitations.push(request.params);
    return { action: "accept", content: { decision: "once" } };
  });
  await client.connect(transport);
  return { client, negotiated: () => negotiated, logs, elicitations };
}

const text = (result: unknown) => ((result as CallToolResult).content ?? []).map((c) => (c.type === "text" ? c.text : "")).join("");

describe.each([LATEST_PROTOCOL_VERSION, OLD_VERSION])("shellgate mcp at protocol version %s (official SDK client)", (version) => {
  it("negotiates the version the client asked for", async () => {
    const { client, negotiated } = await connect(version);
    try {
      expect(negotiated()).toBe(version);
    } finally {
      await client.close();
    }
  });

  it("answers a call of an unknown tool with JSON-RPC error -32602 naming it and the known tools", async () => {
    const { client } = await connect(version);
    try {
      const error = await client.callTool({ name: "rm_rf", arguments: {} }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: -32602,
        data: { code: "CLI_MCP_UNKNOWN_TOOL", tool: "rm_rf", knownTools: ["shell_command", "exec_command", "write_stdin"] },
      });
      expect((error as Error).message).toContain('unknown tool "rm_rf"; this server\'s tools are shell_command, exec_command, write_stdin');
    } finally {
      await client.close();
    }
  });

  it("reports an argument of the wrong type as a wrong type, and a missing one as missing", async () => {
    const { client } = await connect(version);
    try {
      const wrong = await client.callTool({ name: "shell_command", arguments: { command: 42 } });
      expect(wrong.isError).toBe(true);
      expect(text(wrong)).toContain("`command`: expected string, got number");
      expect(wrong.structuredContent).toMatchObject({ error: { code: "ORCH_INVALID_ARGUMENTS", field: "command" } });
      const missing = await client.callTool({ name: "write_stdin", arguments: { chars: "x" } });
      expect(text(missing)).toContain("`session_id`: required field is missing");
    } finally {
      await client.close();
    }
  });

  it("asks through elicitation with the choices in the form of the negotiated version", async () => {
    const { client, elicitations } = await connect(version);
    try {
      const approved = await client.callTool({ name: "shell_command", arguments: { command: "touch asked.txt && echo made", login: false } });
      expect(text(approved)).toContain("made");
      expect(elicitations).toHaveLength(1);
      const asked = elicitations[0];
      const decision = (asked && "requestedSchema" in asked ? asked.requestedSchema.properties["decision"] : undefined) as Record<string, unknown>;
      if (version === OLD_VERSION) {
        // Before 2025-11-25 a titled enum is `enum` plus `enumNames`; `oneOf` would show no choices.
        expect(decision).not.toHaveProperty("oneOf");
        expect(decision["enum"]).toEqual(expect.arrayContaining(["once", "deny"]));
        expect((decision["enumNames"] as string[]).length).toBe((decision["enum"] as string[]).length);
        expect(decision["enumNames"]).toContain("Deny");
      } else {
        expect(decision).not.toHaveProperty("enum");
        expect(decision).not.toHaveProperty("enumNames");
        expect(decision["oneOf"]).toEqual(expect.arrayContaining([{ const: "once", title: expect.any(String) }, { const: "deny", title: "Deny" }]));
      }
    } finally {
      await client.close();
    }
  });

  it("declares logging, and sends its diagnostics as log messages at or above the level the client set", async () => {
    const { client, logs } = await connect(version);
    try {
      expect(client.getServerCapabilities()?.logging).toEqual({});
      // Asked to leave the sandbox and approved: a notice. Below "error", so not sent.
      const escalated = { command: "echo outside", login: false, sandbox_permissions: "require_escalated", justification: "test?" };
      await client.setLoggingLevel("error");
      expect(text(await client.callTool({ name: "shell_command", arguments: escalated }))).toContain("outside");
      await client.setLoggingLevel("notice");
      expect(text(await client.callTool({ name: "shell_command", arguments: escalated }))).toContain("outside");
      await eventually(() => logs.length > 0);
      expect(logs).toEqual([
        { level: "notice", logger: "shellgate", data: expect.stringMatching(/^shell_command \(call call_[-0-9a-f]+\): the command ran outside the sandbox, as approved$/) },
      ]);
    } finally {
      await client.close();
    }
  });

  it("--tools shell lists and runs the argv-style shell tool, and only it", async () => {
    const { client } = await connect(version, ["--tools", "shell"]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["shell"]);
      expect(tools[0]?.inputSchema.properties?.["command"]).toMatchObject({ type: "array", items: { type: "string" } });
      const run = await client.callTool({ name: "shell", arguments: { command: ["echo", "argv", "style"] } });
      expect(run.isError ?? false, text(run)).toBe(false);
      expect(text(run)).toContain("argv style");
      await expect(client.callTool({ name: "shell_command", arguments: { command: "echo x" } })).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });
});

it("refuses an unknown --tools name with exit 2, naming the flag and the tools it knows", async () => {
  const r = await runBin(["mcp", "--tools", "shell,bogus"], { env: s.env, cwd: s.project });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain('--tools: unknown tool "bogus"; choose from shell, shell_command, exec_command, write_stdin');
});
