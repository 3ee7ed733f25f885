import { isIP, isIPv6 } from "node:net";
import { InvalidHostError } from "./errors.js";

/** Longest DNS name (RFC 1035, without the root dot). */
const MAX_NAME_LENGTH = 253;

/** A DNS name after IDNA: plain ASCII labels. */
const NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/u;

// Characters that would make the WHATWG parser read the input as more than a host (userinfo, port,
// path, query, fragment) or that no host contains; they are refused instead of being parsed away.
const NOT_IN_A_HOST = /[\s/\\?#@%[\]<>^|"'`{}\u0000-\u001f\u007f]/u;

/**
 * The canonical form of a destination host, as `decide` sees it and the proxy then resolves or
 * connects to: trimmed, lower-case, trailing dots removed, IPv6 without brackets and compressed,
 * IPv4 in dotted-quad form, international names in punycode.
 *
 * Numeric IPv4 spellings (`2130706433`, `0x7f.1`, `0177.0.0.1`) become the dotted quad they mean,
 * because the resolver and the HTTP libraries would read them that way: a policy must see the
 * address the proxy would actually reach, not a spelling chosen to slip past a name match.
 * Throws `InvalidHostError` (code `NETPROXY_INVALID_HOST`) on anything else.
 */
export function normalizeRequestHost(host: string): string {
  if (typeof host !== "string") throw new InvalidHostError(String(host), "not a string");
  let text = host.trim();
  if (text === "") throw new InvalidHostError(host, "empty");
  if (text.length > 1024) throw new InvalidHostError(host, "too long");
  // Brackets belong to IPv6 literals only; "[evil.test]" is refused below like any other "[".
  if (text.startsWith("[") && text.endsWith("]") && isIPv6(text.slice(1, -1))) text = text.slice(1, -1);
  if (isIPv6(text)) return canonicalIPv6(host, text);
  if (NOT_IN_A_HOST.test(text)) throw new InvalidHostError(host, "contains a character no host name has");
  if (text.includes(":")) throw new InvalidHostError(host, "a port or an IPv6 address with a zone is not a host");
  let parsed: string;
  try {
    // The WHATWG host parser (the one `fetch` and proxy-chain use) does IDNA, case folding and the IPv4 number forms.
    parsed = new URL(`http://${text}/`).hostname;
  } catch (error) {
    throw new InvalidHostError(host, "not a valid host name", { cause: error });
  }
  const name = parsed.replace(/\.+$/u, "");
  if (name === "") throw new InvalidHostError(host, "empty");
  if (isIP(name) === 0) {
    if (name.length > MAX_NAME_LENGTH) throw new InvalidHostError(host, `longer than ${MAX_NAME_LENGTH} characters`);
    // After IDNA a name is plain ASCII; anything else (`*`, `$`...) could only be a trick played on
    // a policy that matches patterns, since no resolver answers for it.
    if (!NAME.test(name)) throw new InvalidHostError(host, "not a DNS name (letters, digits, '-', '_' and dots only)");
    if (name.split(".").some((label) => label.length > 63)) throw new InvalidHostError(host, "has a label longer than 63 characters");
  }
  return name;
}

function canonicalIPv6(original: string, text: string): string {
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch (error) {
    throw new InvalidHostError(original, "not a valid IPv6 address", { cause: error });
  }
}

/** `host:port` for messages, with brackets around an IPv6 literal so the port stays readable. */
export function formatHostPort(host: string, port: number): string {
  return `${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/** A port a connection can be made to. */
export function isValidPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}
