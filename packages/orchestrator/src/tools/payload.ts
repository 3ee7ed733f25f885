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

/** One problem with a call's arguments, as the model is told it. */
export interface ArgumentIssue {
  /** The dotted path of the argument ("command", "command.0"), the unknown key, or "(arguments)". */
  field: string;
  /** `missing`: absent but required; `wrong_type`: present with another JSON type; `unknown_field`; `invalid`: anything else. */
  kind: "missing" | "wrong_type" | "unknown_field" | "invalid";
  /** "required field is missing", "expected string, got number", "unknown field", or zod's own message. */
  message: string;
}

/**
 * Every zod issue as an {@link ArgumentIssue}. `input` is what was validated: zod 4 leaves the
 * offending value out of its issues (unless asked to report it), so whether a field is missing or
 * has the wrong type is read from the input itself, at the path zod reports.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): ArgumentIssue[] {
  return issues.map((issue) => {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      const key = issue.keys[0] ?? "";
      return { field: base ? `${base}.${key}` : key, kind: "unknown_field", message: "unknown field" };
    }
    const field = base || "(arguments)";
    if (issue.code === "invalid_type") {
      const found = valueAt(input, issue.path);
      if (!found.present || found.value === undefined) return { field, kind: "missing", message: "required field is missing" };
      return { field, kind: "wrong_type", message: `expected ${issue.expected}, got ${jsonTypeOf(found.value)}` };
    }
    return { field, kind: "invalid", message: issue.message };
  });
}

/** The first issue of `error` (see {@link describeIssues}), for errors that name one field. */
export function describeIssue(error: z.ZodError, input: unknown): ArgumentIssue {
  return describeIssues(error.issues, input)[0] ?? { field: "(arguments)", kind: "invalid", message: "invalid value" };
}

function valueAt(input: unknown, path: readonly PropertyKey[]): { present: boolean; value?: unknown } {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== "object" || !Object.prototype.hasOwnProperty.call(current, key)) return { present: false };
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { present: true, value: current };
}

/** The JSON name of a value's type, as a model that wrote the JSON would call it. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
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
    const { field, message } = describeIssue(result.error, raw);
    throw new InvalidToolArgumentsError(tool, field, message, { cause: result.error });
  }
  return result.data as z.infer<S>;
}
