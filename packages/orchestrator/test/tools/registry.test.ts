import { describe, expect, it } from "vitest";
import {
  argumentsJsonSchema,
  ExecCommandArgsSchema,
  InvalidToolArgumentsError,
  ShellArgsSchema,
  ShellCommandArgsSchema,
  ToolRegistry,
  UnknownToolError,
  WriteStdinArgsSchema,
} from "../support/internals.js";
import type { ShellArgs, ToolHandler } from "../support/internals.js";

function recordingHandler(): ToolHandler<ShellArgs> & { calls: ShellArgs[] } {
  const calls: ShellArgs[] = [];
  return {
    calls,
    description: "Runs a command given as an argv array.",
    schema: ShellArgsSchema,
    isMutating: (args) => args.command[0] !== "ls",
    handle: async (args) => {
      calls.push(args);
      return { content: args.command.join(" "), success: true };
    },
  };
}

function invalid(fn: () => unknown): InvalidToolArgumentsError {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidToolArgumentsError) return error;
    throw error;
  }
  throw new Error("expected InvalidToolArgumentsError");
}

describe("ToolRegistry", () => {
  it("dispatches function, local_shell, mcp and shorthand payloads to the handler", async () => {
    const handler = recordingHandler();
    const registry = new ToolRegistry().register("shell", handler).alias("container.exec", "shell");
    await registry.dispatch({ name: "shell", payload: { type: "function", arguments: '{"command":["echo","a"]}' } }, { callId: "1" });
    await registry.dispatch({ name: "container.exec", payload: { type: "local_shell", params: { command: ["echo", "b"] } } }, { callId: "2" });
    await registry.dispatch({ name: "shell", payload: { type: "mcp", arguments: { command: ["echo", "c"] } } }, { callId: "3" });
    await registry.dispatch({ name: "shell", payload: { type: "mcp", arguments: '{"command":["echo","d"]}' } }, { callId: "4" });
    await registry.dispatch({ name: "shell", arguments: { command: ["echo", "e"] } }, { callId: "5" });
    await registry.dispatch({ name: "shell", arguments: '{"command":["echo","f"]}' }, { callId: "6" });
    expect(handler.calls.map((c) => c.command[1])).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(registry.names({ advertisedOnly: true })).toEqual(["shell"]);
    expect(registry.names()).toEqual(["shell", "container.exec"]);
  });

  it("names the offending field and never reaches the handler", async () => {
    const handler = recordingHandler();
    const registry = new ToolRegistry().register("shell", handler);
    const cases: Array<[unknown, string]> = [
      ['{"command":"ls"}', "command"],
      ['{"command":[]}', "command"],
      ['{"command":["ls", 3]}', "command.1"],
      ['{"workdir":"/"}', "command"],
      ['{"command":["ls"],"timeout_ms":-1}', "timeout_ms"],
      ['{"command":["ls"],"timeout_ms":1.5}', "timeout_ms"],
      ['{"command":["ls"],"sandbox_permissions":"root"}', "sandbox_permissions"],
      ['{"command":["ls"],"bogus":1}', "bogus"],
      ["{not json", "(arguments)"],
      ['["ls"]', "(arguments)"],
    ];
    for (const [args, field] of cases) {
      const error = invalid(() => registry.parse({ name: "shell", payload: { type: "function", arguments: args as string } }));
      expect(error.field, String(args)).toBe(field);
      expect(error.code).toBe("ORCH_INVALID_ARGUMENTS");
      expect(error.message).toContain(`\`${field}\``);
      await expect(registry.dispatch({ name: "shell", arguments: args as string }, { callId: "x" })).rejects.toBeInstanceOf(
        InvalidToolArgumentsError,
      );
    }
    expect(handler.calls).toEqual([]);
  });

  it("tells a wrong type from a missing field, naming both types", () => {
    const registry = new ToolRegistry().register("shell", recordingHandler());
    const parse = (args: string) => invalid(() => registry.parse({ name: "shell", arguments: args })).message;
    expect(parse('{"command":"ls"}')).toContain("`command`: expected array, got string");
    expect(parse('{"command":["ls", 3]}')).toContain("`command.1`: expected string, got number");
    expect(parse('{"command":["ls"],"workdir":null}')).toContain("`workdir`: expected string, got null");
    expect(parse('{"workdir":"/"}')).toContain("`command`: required field is missing");
  });

  it("rejects unknown tools, freeform input to JSON-only tools and malformed envelopes", async () => {
    const registry = new ToolRegistry().register("shell", recordingHandler());
    expect(() => registry.parse({ name: "nope", arguments: "{}" })).toThrow(UnknownToolError);
    expect(invalid(() => registry.parse({ name: "shell", payload: { type: "custom", input: "ls" } })).field).toBe("(input)");
    expect(invalid(() => registry.parse({ name: "shell" })).field).toBe("payload");
    expect(invalid(() => registry.parse({ name: "" } as never)).field).toBe("name");
  });

  it("fills the freeform field from custom input", async () => {
    const registry = new ToolRegistry().register("shell_command", {
      description: "d",
      schema: ShellCommandArgsSchema,
      freeformField: "command",
      isMutating: () => true,
      handle: async (args) => ({ content: args.command, success: true }),
    });
    const out = await registry.dispatch({ name: "shell_command", payload: { type: "custom", input: "echo hi | wc -c" } }, { callId: "c" });
    expect(out.content).toBe("echo hi | wc -c");
  });

  it("asks the handler whether a call mutates; malformed calls count as mutating", async () => {
    const registry = new ToolRegistry().register("shell", recordingHandler());
    expect(await registry.isMutating({ name: "shell", arguments: { command: ["ls"] } })).toBe(false);
    expect(await registry.isMutating({ name: "shell", arguments: { command: ["rm", "x"] } })).toBe(true);
    expect(await registry.isMutating({ name: "shell", arguments: { command: 1 } })).toBe(true);
  });
});

describe("argument schemas", () => {
  it("accept the documented fields and keep `shell` absent when the model omits it", () => {
    const exec = ExecCommandArgsSchema.parse({ cmd: "echo hello" });
    expect(exec).toEqual({ cmd: "echo hello" });
    expect("shell" in exec).toBe(false);
    expect(WriteStdinArgsSchema.parse({ session_id: 1001 })).toEqual({ session_id: 1001 });
    expect(ShellCommandArgsSchema.parse({ command: "grep -r 'TODO' src/", timeout_ms: 5000 }).timeout_ms).toBe(5000);
    expect(WriteStdinArgsSchema.safeParse({ session_id: "1001" }).success).toBe(false);
  });
});

describe("tool definitions", () => {
  const registry = new ToolRegistry()
    .register("shell", { ...recordingHandler(), description: "Runs an argv." })
    .register("exec_command", {
      description: "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
      schema: ExecCommandArgsSchema,
      isMutating: () => true,
      handle: async () => ({ content: "", success: true }),
    });

  it("renders OpenAI function tools", () => {
    const [shell, exec] = registry.definitions("openai");
    expect(shell).toMatchObject({ type: "function", name: "shell", strict: false, description: "Runs an argv." });
    const params = (exec as { parameters: Record<string, unknown> }).parameters;
    expect(params).toMatchObject({ type: "object", required: ["cmd"], additionalProperties: false });
    expect(params).not.toHaveProperty("$schema");
    expect(Object.keys(params.properties as object)).toEqual([
      "cmd",
      "workdir",
      "shell",
      "login",
      "tty",
      "yield_time_ms",
      "max_output_tokens",
      "sandbox_permissions",
      "justification",
      "prefix_rule",
    ]);
    expect((params.properties as Record<string, unknown>).max_output_tokens).toEqual({
      type: "integer",
      minimum: 0,
      description: expect.stringContaining("tokens"),
    });
    const chat = registry.definitions("openai-chat", ["shell"])[0];
    expect(chat).toMatchObject({ type: "function", function: { name: "shell", parameters: { required: ["command"] } } });
  });

  it("renders Anthropic and MCP tools with the same JSON Schema", () => {
    const anthropic = registry.definitions("anthropic")[0] as { name: string; input_schema: unknown };
    const mcp = registry.definitions("mcp")[0] as { name: string; inputSchema: unknown };
    expect(anthropic.name).toBe("shell");
    expect(mcp.name).toBe("shell");
    expect(anthropic.input_schema).toEqual(mcp.inputSchema);
    expect(mcp.inputSchema).toEqual(argumentsJsonSchema(ShellArgsSchema));
    expect(mcp.inputSchema).toMatchObject({
      type: "object",
      properties: {
        command: { type: "array", items: { type: "string" }, minItems: 1 },
        sandbox_permissions: { enum: ["use_default", "require_escalated"] },
      },
      required: ["command"],
    });
  });

  it("refuses to render an unregistered tool", () => {
    expect(() => registry.definitions("mcp", ["write_stdin"])).toThrow(UnknownToolError);
  });
});
