import { supportsTitledEnums } from "./protocol-version.js";

/** One choice of an elicitation question: the value sent back and the text the person reads. */
export interface ElicitationChoice {
  const: string;
  title: string;
}

/**
 * The schema of a single-choice question with titled choices, in the form the client's protocol
 * version knows: `oneOf` of `{ const, title }` from 2025-11-25 on, `enum` with `enumNames` (the
 * titles, in the same order) before it. An old client given `oneOf` shows no choices at all.
 */
export function titledChoiceSchema(title: string, choices: readonly ElicitationChoice[], protocolVersion: string | undefined) {
  if (supportsTitledEnums(protocolVersion)) {
    return { type: "string" as const, title, oneOf: choices.map((c) => ({ const: c.const, title: c.title })) };
  }
  return { type: "string" as const, title, enum: choices.map((c) => c.const), enumNames: choices.map((c) => c.title) };
}
