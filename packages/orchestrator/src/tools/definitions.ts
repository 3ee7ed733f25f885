import { z } from "zod";

/** Which wire format a tool definition is rendered for. */
export const ToolDefinitionFormatSchema = z.enum(["openai", "openai-chat", "anthropic", "mcp"]);
/**
 * `openai`: Responses API function tool `{type:"function", name, description, strict, parameters}`;
 * `openai-chat`: Chat Completions `{type:"function", function:{name, description, parameters}}`;
 * `anthropic`: Messages API tool `{name, description, input_schema}`;
 * `mcp`: MCP `tools/list` entry `{name, description, inputSchema}`.
 */
export type ToolDefinitionFormat = z.infer<typeof ToolDefinitionFormatSchema>;

/** A JSON Schema object (draft-07 subset produced from the zod schema). */
export type JsonSchema = Record<string, unknown>;

/** OpenAI Responses API function tool. */
export interface OpenAIFunctionTool {
  type: "function";
  name: string;
  description: string;
  strict: false;
  parameters: JsonSchema;
}
/** OpenAI Chat Completions function tool. */
export interface OpenAIChatFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema };
}
/** Anthropic Messages API tool. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}
/** MCP tool listing entry. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}
/** The definition type each format renders. */
export interface ToolDefinitionByFormat {
  openai: OpenAIFunctionTool;
  "openai-chat": OpenAIChatFunctionTool;
  anthropic: AnthropicTool;
  mcp: McpTool;
}
/** Any rendered tool definition. */
export type ToolDefinition = ToolDefinitionByFormat[ToolDefinitionFormat];

/**
 * JSON Schema for the arguments a schema accepts. Rendered on the input side (fields with defaults
 * stay optional), without `$schema` (OpenAI and Anthropic reject or ignore it) and without the
 * top-level description (it is the tool's description).
 */
export function argumentsJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: "input", target: "draft-7", unrepresentable: "throw" }) as JsonSchema;
  const { $schema: _s, description: _d, ...rest } = json;
  return stripSafeIntegerBounds(rest) as JsonSchema;
}

// zod renders `.int()` with ±2^53-1 bounds; they are noise to a model.
function stripSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeIntegerBounds);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if ((key === "maximum" && v === Number.MAX_SAFE_INTEGER) || (key === "minimum" && v === Number.MIN_SAFE_INTEGER)) {
      continue;
    }
    out[key] = stripSafeIntegerBounds(v);
  }
  return out;
}

/** Render one tool for the given wire format. */
export function renderToolDefinition<F extends ToolDefinitionFormat>(
  name: string,
  description: string,
  schema: z.ZodType,
  format: F,
): ToolDefinitionByFormat[F] {
  const parameters = argumentsJsonSchema(schema);
  const rendered: ToolDefinitionByFormat = {
    openai: { type: "function", name, description, strict: false, parameters },
    "openai-chat": { type: "function", function: { name, description, parameters } },
    anthropic: { name, description, input_schema: parameters },
    mcp: { name, description, inputSchema: parameters },
  };
  return rendered[format];
}
