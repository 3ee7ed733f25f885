import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { escapeForDisplay } from "@shellgate/orchestrator";
import { amendmentChoicesOf, amendmentEffect, displayArgv, interactiveSessionNote, isOffered, proposedChoiceIndex, reasonText } from "../../approval/render.js";
import type { PromptDecision, PromptRequest } from "../../approval/types.js";
import { titledChoiceSchema } from "./elicitation-schema.js";

/** How long a person has to answer an elicitation before the command counts as denied. */
const ELICITATION_TIMEOUT_MS = 10 * 60_000;

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
    request.network
      ? `A sandboxed command wants to reach ${escapeForDisplay(`${request.network.host}:${request.network.port}`)}. Allow it?`
      : request.retryAfterDenial
        ? "It failed in the sandbox. Run it again WITHOUT the sandbox?"
        : "An agent wants to run a command that needs your approval.",
    `Command: ${displayArgv(request.argv)}`,
    `Working directory: ${escapeForDisplay(request.cwd)}`,
  ];
  const why = reasonText(request);
  if (why) lines.push(`Why you are asked: ${escapeForDisplay(why)}`);
  if (request.justification) lines.push(`Agent's justification: ${escapeForDisplay(request.justification)}`);
  for (const rule of request.matchedRules ?? []) {
    if (rule.source) lines.push(escapeForDisplay(`Rule: ${rule.source.file}:${rule.source.line} (${rule.decision})`));
  }
  const session = interactiveSessionNote(request);
  if (session) lines.push(`Interactive session: ${escapeForDisplay(session.replace(/^this starts an interactive session: /, ""))}.`);
  if (amendmentOffered(request)) lines.push(`"Always allow" ${escapeForDisplay(amendmentEffect(request).replace(/^always allow /, ""))}.`);
  else if (request.amendmentWithheld) lines.push(`No "always allow": ${escapeForDisplay(request.amendmentWithheld)}.`);
  return lines.join("\n");
}

function amendmentOffered(request: PromptRequest): boolean {
  return (request.proposedAmendment?.length ?? 0) > 0 && isOffered(request, "approved_with_amendment");
}

type Choice = "once" | "session" | `always:${number}` | `always_unsandboxed:${number}` | "deny";

/**
 * One "always allow" choice per prefix the person may write (`always:N`, N indexing the request's
 * prefix choices; `always_unsandboxed:N` for the rule that lifts the sandbox), the proposed one first.
 */
function amendmentOptions(request: PromptRequest): Array<{ const: Choice; title: string }> {
  const prefixes = amendmentChoicesOf(request);
  const proposed = proposedChoiceIndex(request);
  const order = [proposed, ...prefixes.map((_, i) => i).filter((i) => i !== proposed)];
  const title = (i: number, unsandboxed: boolean) => {
    const effect = escapeForDisplay(amendmentEffect({ ...request, proposedAmendment: prefixes[i] ?? [] }, undefined, unsandboxed));
    return `${effect.charAt(0).toUpperCase()}${effect.slice(1)}`;
  };
  const options: Array<{ const: Choice; title: string }> = order.map((i) => ({ const: `always:${i}`, title: title(i, false) }));
  // Lifting the sandbox for good is a separate, explicit choice after the sandboxed default.
  if (request.amendmentSandbox && request.amendmentBypassesSandbox !== false) {
    for (const i of order) options.push({ const: `always_unsandboxed:${i}`, title: title(i, true) });
  }
  return options;
}

/** The prefix an `always:N` / `always_unsandboxed:N` answer names, or undefined for anything else. */
function answeredPrefix(request: PromptRequest, answer: string, kind: "always" | "always_unsandboxed"): string[] | undefined {
  const match = new RegExp(`^${kind}:(\\d{1,2})$`).exec(answer);
  const prefix = match ? amendmentChoicesOf(request)[Number(match[1])] : undefined;
  return prefix ? [...prefix] : undefined;
}

/**
 * An approval function that asks the MCP client's user through elicitation. Decline means deny;
 * cancel (the user dismissed the question) aborts the call; a transport failure or timeout denies.
 * `protocolVersion` gives the version the client negotiated, which decides the form of the choices.
 */
export function createElicitationApproval(
  server: Server,
  protocolVersion: () => string | undefined = () => undefined,
): (request: PromptRequest, context?: { signal?: AbortSignal }) => Promise<PromptDecision> {
  return async (request, context) => {
    const host = request.network ? escapeForDisplay(request.network.host) : "";
    const options: Array<{ const: Choice; title: string }> = [
      {
        const: "once",
        title: request.network
          ? `Allow ${host} for this command`
          : `${request.retryAfterDenial ? "Run it again without the sandbox, once" : "Run once"}${interactiveSessionNote(request) ? ", with every later input to the session" : ""}`,
      },
    ];
    const session = isOffered(request, "approved_for_session");
    if (session) {
      options.push({ const: "session", title: request.network ? `Allow ${host} for this session` : "Run, and don't ask again for this command in this session" });
    }
    const amendment = amendmentOffered(request);
    if (amendment) options.push(...amendmentOptions(request));
    options.push({ const: "deny", title: "Deny" });
    let result;
    try {
      result = await server.elicitInput(
        {
          mode: "form",
          message: elicitationMessage(request),
          requestedSchema: {
            type: "object",
            properties: { decision: titledChoiceSchema("Decision", options, protocolVersion()) },
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
    const answer = result.content?.["decision"];
    const always = amendment && typeof answer === "string" ? answeredPrefix(request, answer, "always") : undefined;
    if (always) return request.amendmentSandbox ? { decision: "approved_with_amendment", amendment: always, sandboxed: true } : { decision: "approved_with_amendment", amendment: always };
    const outside = amendment && request.amendmentSandbox && typeof answer === "string" ? answeredPrefix(request, answer, "always_unsandboxed") : undefined;
    if (outside) return { decision: "approved_with_amendment", amendment: outside, sandboxed: false };
    switch (answer) {
      case "once":
        return "approved";
      case "session":
        return session ? "approved_for_session" : "denied";
      default:
        return "denied";
    }
  };
}
