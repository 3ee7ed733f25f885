import type { NetworkRefusal } from "../network/run-network.js";
import type { RunRepositoriesReport } from "../pipeline/types.js";
import type { SandboxDenial } from "@shellgate/sandbox";
import type { z } from "zod";
import type { SandboxRetryStatus } from "../approval/retry-message.js";
import type { SandboxKept } from "../pipeline/types.js";
import { InvalidToolArgumentsError, UnknownToolError } from "../errors.js";
import { payloadToArguments, parseToolArguments, ToolCallSchema, describeIssue } from "./payload.js";
import type { ToolCall, ToolPayload } from "./payload.js";
import { renderToolDefinition } from "./definitions.js";
import type { ToolDefinitionByFormat, ToolDefinitionFormat } from "./definitions.js";

/** Per-call context a handler receives. */
export interface ToolContext {
  /** The call's id (generated when the caller gave none); events and traces carry it. */
  callId: string;
  /** The name the model used (an alias such as `container.exec` keeps its own name). */
  tool: string;
  /** Cancels the call: pending approval, a running one-shot process, or a session's collection wait. */
  signal?: AbortSignal;
  /** Receives every chunk of a one-shot command's output as it is read, with no cap (see `OutputSink`). */
  onOutput?: OutputSink;
}

/**
 * A direct, uncapped receiver of a one-shot command's output (`shell`, `shell_command`), for a caller
 * that shows or stores all of it (`shellgate exec`). Called synchronously for each chunk as it is read,
 * for every attempt of the call; it must not throw (a throw is swallowed, like an event listener's).
 * Interactive sessions (`exec_command`) do not feed it.
 */
export type OutputSink = (stream: "stdout" | "stderr", chunk: Uint8Array) => void;

/** What a handler returns: the text for the model plus machine-readable details for the integrator. */
export interface ToolOutput {
  /** Exactly what to show the model. */
  content: string;
  /** False for non-zero exits, timeouts, denials and errors. */
  success: boolean;
  /** Exit code when the process finished; null while a session is still running. */
  exitCode?: number | null;
  /** Set while a unified exec session stays alive. */
  sessionId?: number;
  /** File holding the full, untruncated output when the model saw a truncated version. */
  fullOutputPath?: string;
  /** Notes also shown to the model (e.g. the many-sessions warning). */
  warnings?: string[];
  /**
   * Set when the command failed in the sandbox and the retry without it did not run: no one could
   * approve it (`no_approver`) or the person denied it (`declined`). The content says so too.
   */
  sandboxRetry?: SandboxRetryStatus;
  /** What the sandbox refused and the way out (written for the model), when the run's evidence shows it. */
  sandboxDenial?: SandboxDenial;
  /** Hosts the session's network proxy refused during the run, with why and how to grant them. The content lists them too. */
  networkRefusals?: NetworkRefusal[];
  /** Why the run had less network than its grants say (the proxy could not start, or stopped). The content says so too. */
  networkNote?: string;
  /**
   * Set when allow rules matched but the command ran in the sandbox, because outside it the command
   * would have run what a sandboxed command could have written: why, and each resolved path. The content says so too.
   */
  sandboxKept?: SandboxKept;
  /**
   * Git repositories the sandboxed run created, or whose hooks or config it changed, in its writable
   * roots: for the person, whose next git command there would run them (see `exec.repositories`).
   */
  runRepositories?: RunRepositoriesReport;
}

/** One tool: its argument schema, whether a call may mutate, and how to run it. */
export interface ToolHandler<A = unknown> {
  /** One-line description advertised to the model. */
  readonly description: string;
  /** zod schema of the arguments; also the source of the advertised JSON Schema. */
  readonly schema: z.ZodType<A>;
  /** What the tool definition advertises when it differs from `schema` (e.g. a field hidden by config). */
  readonly advertisedSchema?: z.ZodType;
  /** The argument a `custom` (freeform) payload's raw input fills, when the tool accepts freeform input. */
  readonly freeformField?: string;
  /** Whether this invocation may change the machine (read-only commands are not mutating). */
  isMutating(args: A): boolean | Promise<boolean>;
  /** Run the call. Throw `OrchestratorError`s for failures the model should be told about. */
  handle(args: A, ctx: ToolContext): Promise<ToolOutput>;
}

/** A call resolved to its handler with validated arguments. */
export interface ParsedToolCall {
  callId: string | undefined;
  tool: string;
  handler: ToolHandler<unknown>;
  args: unknown;
}

interface Entry {
  handler: ToolHandler<unknown>;
  advertised: boolean;
}

/** Handlers by tool name; nothing is hard-wired, aliases are ordinary registrations that are not advertised. */
export class ToolRegistry {
  readonly #entries = new Map<string, Entry>();

  /** Register (or replace) the handler for `name`. */
  register<A>(name: string, handler: ToolHandler<A>, options: { advertise?: boolean } = {}): this {
    this.#entries.set(name, { handler: handler as ToolHandler<unknown>, advertised: options.advertise ?? true });
    return this;
  }

  /** Make `alias` dispatch to the handler currently registered under `target` (not advertised). */
  alias(alias: string, target: string): this {
    const entry = this.#entries.get(target);
    if (!entry) throw new UnknownToolError(target);
    this.#entries.set(alias, { handler: entry.handler, advertised: false });
    return this;
  }

  /** The handler registered under `name`, if any. */
  get(name: string): ToolHandler<unknown> | undefined {
    return this.#entries.get(name)?.handler;
  }

  /** Registered names; `advertisedOnly` leaves aliases out. */
  names(options: { advertisedOnly?: boolean } = {}): string[] {
    return [...this.#entries].filter(([, e]) => !options.advertisedOnly || e.advertised).map(([n]) => n);
  }

  /**
   * Tool definitions for the advertised tools (or the named ones, aliases included) in `format`.
   * @throws UnknownToolError for a name that is not registered.
   */
  definitions<F extends ToolDefinitionFormat>(format: F, names?: readonly string[]): Array<ToolDefinitionByFormat[F]> {
    const selected = names ?? this.names({ advertisedOnly: true });
    return selected.map((name) => {
      const handler = this.get(name);
      if (!handler) throw new UnknownToolError(name);
      return renderToolDefinition(name, handler.description, handler.advertisedSchema ?? handler.schema, format);
    });
  }

  /**
   * Resolve a call to its handler and validated arguments; starts nothing.
   * @throws UnknownToolError, InvalidToolArgumentsError (naming the field).
   */
  parse(call: ToolCall): ParsedToolCall {
    const checked = ToolCallSchema.safeParse(call);
    if (!checked.success) {
      const { field, message } = describeIssue(checked.error, call);
      const maybeName = typeof call === "object" && call !== null ? (call as { name?: unknown }).name : undefined;
      const name = typeof maybeName === "string" && maybeName !== "" ? maybeName : "(call)";
      throw new InvalidToolArgumentsError(name, field, `malformed tool call: ${message}`);
    }
    const { name, callId } = checked.data;
    const handler = this.get(name);
    if (!handler) throw new UnknownToolError(name);
    const payload: ToolPayload =
      checked.data.payload ??
      (typeof checked.data.arguments === "string"
        ? { type: "function", arguments: checked.data.arguments }
        : { type: "local_shell", params: checked.data.arguments });
    const raw = payloadToArguments(name, payload, handler.freeformField);
    const args = parseToolArguments(name, handler.schema, raw);
    return { callId, tool: name, handler, args };
  }

  /** Whether the call may mutate; unknown or malformed calls count as mutating. */
  async isMutating(call: ToolCall): Promise<boolean> {
    try {
      const parsed = this.parse(call);
      return await parsed.handler.isMutating(parsed.args);
    } catch {
      return true;
    }
  }

  /** Validate and run a call. Validation failures throw before any handler code runs. */
  async dispatch(call: ToolCall, ctx: Omit<ToolContext, "tool">): Promise<ToolOutput> {
    const parsed = this.parse(call);
    return parsed.handler.handle(parsed.args, { ...ctx, tool: parsed.tool });
  }
}
