import { z } from "zod";
import { errorMessage, InvalidToolArgumentsError } from "../errors.js";

// Both places that take arguments take the same shapes; one instance serves both (zod schemas are immutable).
const argumentsSchema = z.union([z.string(), z.record(z.string(), z.unknown())]).optional();

/**
 * How a model delivered a tool call. `function`: JSON text arguments (OpenAI function tools);
 * `custom`: raw freeform input; `local_shell`: an already-decoded params object; `mcp`: an MCP
 * `tools/call` (arguments as JSON text or an object).
 */
export const ToolPayloadSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("function"), arguments: z.string() }),
  z.strictObject({ type: z.literal("custom"), input: z.string() }),
  z.strictObject({ type: z.literal("local_shell"), params: z.unknown() }),
  z.strictObject({
    type: z.literal("mcp"),
    server: z.string().optional(),
    tool: z.string().optional(),
    arguments: argumentsSchema,
  }),
]);
export type ToolPayload = z.infer<typeof ToolPayloadSchema>;

/**
 * A tool call as an integrator hands it over. Either `payload`, or the shorthand `arguments`
 * (a JSON string or an already-decoded object, e.g. Anthropic `tool_use.input`).
 */
export const ToolCallSchema = z
  .strictObject({
    callId: z.string().min(1).optional(),
    name: z.string().min(1),
    payload: ToolPayloadSchema.optional(),
    arguments: argumentsSchema,
  })
  .refine((c) => (c.payload === undefined) !== (c.arguments === undefined), {
    message: "exactly one of `payload` and `arguments` must be given",
    path: ["payload"],
  });
export type ToolCall = z.input<typeof ToolCallSchema>;

/** Render the first zod issue as `{ field, message }`; `field` is the dotted path ("command.0") or the unknown key. */
export function describeIssue(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  if (!issue) return { field: "(arguments)", message: "invalid value" };
  const base = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    return { field: base ? `${base}.${key}` : key, message: "unknown field" };
  }
  if (issue.code === "invalid_type" && issue.input === undefined) {
    return { field: base || "(arguments)", message: "required field is missing" };
  }
  return { field: base || "(arguments)", message: issue.message };
}

/**
 * Turn a payload into the raw argument object a tool's schema validates. `freeformField` names the
 * argument that a `custom` payload's raw input fills (e.g. `command` for `shell_command`).
 * @throws InvalidToolArgumentsError when the JSON is malformed or the tool takes no freeform input.
 */
export function payloadToArguments(tool: string, payload: ToolPayload, freeformField?: string): unknown {
  switch (payload.type) {
    case "function":
      return parseJsonArguments(tool, payload.arguments);
    case "custom":
      if (freeformField === undefined) {
        throw new InvalidToolArgumentsError(tool, "(input)", "this tool takes JSON arguments, not freeform input");
      }
      return { [freeformField]: payload.input };
    case "local_shell":
      return payload.params;
    case "mcp":
      if (payload.arguments === undefined) return {};
      return typeof payload.arguments === "string" ? parseJsonArguments(tool, payload.arguments) : payload.arguments;
  }
}

function parseJsonArguments(tool: string, text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidToolArgumentsError(tool, "(arguments)", `arguments are not valid JSON: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * Validate raw arguments against a tool's schema.
 * @throws InvalidToolArgumentsError naming the first offending field.
 */
export function parseToolArguments<S extends z.ZodType>(tool: string, schema: S, raw: unknown): z.infer<S> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new InvalidToolArgumentsError(tool, "(arguments)", "arguments must be a JSON object");
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const { field, message } = describeIssue(result.error);
    throw new InvalidToolArgumentsError(tool, field, message, { cause: result.error });
  }
  return result.data as z.infer<S>;
}
