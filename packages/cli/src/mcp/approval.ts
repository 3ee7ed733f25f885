import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { escapeForDisplay } from "@shellgate/orchestrator";
import { displayArgv } from "../approval/render.js";
import type { PromptDecision, PromptRequest } from "../approval/types.js";

/** How long a person has to answer an elicitation before the command counts as denied. */
export const ELICITATION_TIMEOUT_MS = 10 * 60_000;

/** Whether the connected client said it can show forms (MCP elicitation, form mode). */
export function clientSupportsElicitation(server: Server): boolean {
  const elicitation = server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  // An empty object predates the form/url split and means form support.
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** The message shown to the person in the client; every field is escaped (no raw control, bidi or invisible character). */
export function elicitationMessage(request: PromptRequest): string {
  const lines = [
    request.retryAfterDenial
      ? "The sandbox probably blocked this command. Run it again without the sandbox?"
      : "An agent wants to run a command that needs your approval.",
    `Command: ${displayArgv(request.argv)}`,
    `Working directory: ${escapeForDisplay(request.cwd)}`,
  ];
  if (request.reason) lines.push(`Reason: ${escapeForDisplay(request.reason)}`);
  if (request.justification) lines.push(`Agent's justification: ${escapeForDisplay(request.justification)}`);
  for (const rule of request.matchedRules ?? []) {
    if (rule.source) lines.push(escapeForDisplay(`Rule: ${rule.source.file}:${rule.source.line} (${rule.decision})`));
  }
  return lines.join("\n");
}

type Choice = "once" | "session" | "always" | "deny";

/**
 * An approval function that asks the MCP client's user through elicitation. Decline means deny;
 * cancel (the user dismissed the question) aborts the call; a transport failure or timeout denies.
 */
export function createElicitationApproval(
  server: Server,
): (request: PromptRequest, context?: { signal?: AbortSignal }) => Promise<PromptDecision> {
  return async (request, context) => {
    const options: Array<{ const: Choice; title: string }> = [
      { const: "once", title: "Run once" },
      { const: "session", title: "Run, and don't ask again for this command in this session" },
    ];
    const amendment = request.proposedAmendment && request.proposedAmendment.length > 0 ? [...request.proposedAmendment] : null;
    if (amendment) options.push({ const: "always", title: `Always allow commands starting with \`${displayArgv(amendment)}\` (adds a rule)` });
    options.push({ const: "deny", title: "Deny" });
    let result;
    try {
      result = await server.elicitInput(
        {
          mode: "form",
          message: elicitationMessage(request),
          requestedSchema: {
            type: "object",
            properties: { decision: { type: "string", title: "Decision", oneOf: options } },
            required: ["decision"],
          },
        },
        { timeout: ELICITATION_TIMEOUT_MS, ...(context?.signal ? { signal: context.signal } : {}) },
      );
    } catch {
      return "denied";
    }
    if (result.action === "cancel") return "abort";
    if (result.action !== "accept") return "denied";
    switch (result.content?.["decision"] as Choice | undefined) {
      case "once":
        return "approved";
      case "session":
        return "approved_for_session";
      case "always":
        return amendment ? { decision: "approved_with_amendment", amendment } : "denied";
      default:
        return "denied";
    }
  };
}
