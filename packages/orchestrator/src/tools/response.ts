import {
  AbortedError,
  CancelledError,
  errorMessage,
  ForbiddenError,
  InvalidToolArgumentsError,
  OrchestratorError,
  RejectedError,
  SessionNotTtyError,
  UnknownSessionError,
  UnknownToolError,
} from "../errors.js";
import type { ToolOutput } from "./registry.js";

/** What `Orchestrator.handleToolCall` resolves to: the tool output plus the call's identity and any error. */
export interface ToolResponse extends ToolOutput {
  callId: string;
  /** The tool name as called. */
  tool: string;
  /** Set when the call failed before or instead of producing a process result. */
  error?: { code: string; message: string; field?: string };
}

/** The text the model sees for an error; the model is told what to fix, never given a stack. */
export function errorContentForModel(error: unknown): string {
  if (error instanceof RejectedError) {
    return error.message === "rejected by user" ? "exec command rejected by user" : `exec command rejected: ${error.message}`;
  }
  if (error instanceof ForbiddenError) return `exec command rejected: ${error.message}`;
  if (error instanceof AbortedError) return "exec command aborted by user";
  if (error instanceof CancelledError) return "exec command cancelled";
  if (
    error instanceof InvalidToolArgumentsError ||
    error instanceof UnknownToolError ||
    error instanceof UnknownSessionError ||
    error instanceof SessionNotTtyError
  ) {
    return error.message;
  }
  return `execution error: ${errorMessage(error)}`;
}

/** A failed call as a response: the model's text plus the typed error for the integrator. */
export function errorResponse(callId: string, tool: string, error: unknown): ToolResponse {
  const code =
    error instanceof OrchestratorError
      ? error.code
      : typeof (error as { code?: unknown })?.code === "string"
        ? (error as { code: string }).code
        : "ORCH_INTERNAL";
  const message = errorMessage(error);
  const field = error instanceof InvalidToolArgumentsError ? error.field : undefined;
  return {
    callId,
    tool,
    content: errorContentForModel(error),
    success: false,
    error: { code, message, ...(field !== undefined ? { field } : {}) },
  };
}

/** MCP `tools/call` result for a response. */
export function toMcpCallToolResult(response: ToolResponse): { content: Array<{ type: "text"; text: string }>; isError: boolean } {
  return { content: [{ type: "text", text: response.content }], isError: !response.success };
}

/** OpenAI Responses API `function_call_output` item for a response. */
export function toOpenAIFunctionCallOutput(response: ToolResponse): { type: "function_call_output"; call_id: string; output: string } {
  return { type: "function_call_output", call_id: response.callId, output: response.content };
}

/** Anthropic Messages API `tool_result` block for a response. */
export function toAnthropicToolResult(response: ToolResponse): {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error: boolean;
} {
  return { type: "tool_result", tool_use_id: response.callId, content: response.content, is_error: !response.success };
}
