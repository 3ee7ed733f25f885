import { normalizeNetworkHost } from "@shellgate/execpolicy";
import { z } from "zod";

/**
 * One host granted or refused outside the rules files, with where it came from so an explanation
 * can name it (`--allow-domain`, a config file…). Exact hosts only: like `network_rule`, a grant
 * never covers subdomains, so granting `git.example.com` does not grant `evil.git.example.com.attacker.test`
 * or even `api.git.example.com`.
 */
export interface HostGrant {
  /** Normalised as `network_rule` hosts are (lower case, no port, no trailing dot, IPv6 unbracketed). */
  host: string;
  /** Where the grant came from, for people: `--allow-domain`, `~/.shellgate/config.toml [network] allow`… */
  origin: string;
}

const hostName = z.string().min(1, "a host must not be empty");
const grantEntry = z.union([
  hostName,
  z.strictObject({ host: hostName, origin: z.string().min(1).optional() }),
]);

/**
 * The session's domain grants: `allow` hosts are reachable through the session proxy, `deny` hosts
 * never are (a deny wins over every allow, a rule's included). Entries are host names or
 * `{ host, origin }`; hosts are validated and normalised as `network_rule` hosts are.
 */
export const NetworkGrantsSchema = z.strictObject({
  allow: z.array(grantEntry).default([]),
  deny: z.array(grantEntry).default([]),
});
export type NetworkGrantsInput = z.input<typeof NetworkGrantsSchema>;

/** Validated, normalised grants. */
export interface NetworkGrants {
  allow: HostGrant[];
  deny: HostGrant[];
}

/**
 * Normalise parsed grant entries; `field` prefixes the path an invalid host is reported at
 * (`network.allow.2`). Throws `{ field, message }` for the caller to wrap in its own error type.
 */
export function normalizeGrants(input: z.output<typeof NetworkGrantsSchema>, defaultOrigin: string): NetworkGrants {
  const one = (list: "allow" | "deny") =>
    input[list].map((entry, i): HostGrant => {
      const raw = typeof entry === "string" ? entry : entry.host;
      const origin = typeof entry === "string" ? defaultOrigin : (entry.origin ?? defaultOrigin);
      try {
        return { host: normalizeNetworkHost(raw), origin };
      } catch (error) {
        const message = error instanceof Error ? error.message.replace(/^invalid rule: /, "") : String(error);
        throw Object.assign(new Error(message), { field: `${list}.${i}` });
      }
    });
  return { allow: one("allow"), deny: one("deny") };
}
