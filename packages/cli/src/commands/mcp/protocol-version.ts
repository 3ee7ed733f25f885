import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * The first protocol version whose elicitation schemas have titled enums as `oneOf` of
 * `{ const, title }` (SEP-1330); earlier clients know only `enum` with the non-standard `enumNames`.
 */
export const TITLED_ENUM_PROTOCOL_VERSION = "2025-11-25";

/** The protocol version a connection negotiated at `initialize`, once the server has answered it. */
export type NegotiatedVersion = () => string | undefined;

/**
 * Record the protocol version the server answers `initialize` with, by watching the transport's
 * outgoing messages: the SDK's server negotiates it but keeps it to itself, and what was sent is
 * what the client will speak. Call before `server.connect(transport)`.
 */
export function recordNegotiatedVersion(transport: Transport): NegotiatedVersion {
  let version: string | undefined;
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    if (version === undefined) version = initializeResultVersion(message);
    return send(message, options);
  };
  return () => version;
}

function initializeResultVersion(message: JSONRPCMessage): string | undefined {
  if (!("result" in message) || message.result === null || typeof message.result !== "object") return undefined;
  const result = message.result as { protocolVersion?: unknown; serverInfo?: unknown };
  return typeof result.protocolVersion === "string" && typeof result.serverInfo === "object" ? result.protocolVersion : undefined;
}

/**
 * Whether a client at `version` understands `oneOf`/`const` titled enums. Protocol versions are
 * dates (`YYYY-MM-DD`), so they compare as strings; an unknown version counts as an old one.
 */
export function supportsTitledEnums(version: string | undefined): boolean {
  return version !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= TITLED_ENUM_PROTOCOL_VERSION;
}
