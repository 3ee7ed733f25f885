import { classifyAddress, type AddressClass } from "./address-class.js";

/**
 * What the host's verdict grants beyond public addresses. `allowNamed`: the host was allowed by
 * name (a grant, an allow rule, a person's approval), so whatever unicast address its resolver
 * answers is where the user meant it to go: a private network, or a reserved range that VPN and
 * proxy resolvers hand out (fake-IP 198.18/15, documentation ranges). `allowPrivate`: the host was
 * granted by name in the configuration (a flag, a config file, a rule), which also opens loopback
 * and link-local (the host's own services, the cloud metadata endpoint); it implies `allowNamed`.
 */
export interface DestinationGrant {
  allowNamed?: boolean;
  allowPrivate?: boolean;
}

/**
 * What an address class needs to be reached: `nothing` (public), `named` (the host allowed by
 * name), `explicit` (the host granted by name in the configuration), or `never` (unspecified,
 * multicast and broadcast are not destinations; a scoped or unreadable address names none).
 */
export type AddressNeed = "nothing" | "named" | "explicit" | "never";

/**
 * Why an address was refused, for machines (`shellgate check --host`'s `refusedBy`):
 * `never-reachable`, `needs-name-grant` (private or reserved, and the host was not allowed by name),
 * `needs-explicit-grant` (loopback or link-local, and the host was not granted in the configuration).
 */
export type AddressRefusedBy = "never-reachable" | "needs-name-grant" | "needs-explicit-grant";

/** The need of an address class. */
export function addressNeeds(kind: AddressClass | "invalid"): AddressNeed {
  switch (kind) {
    case "public":
      return "nothing";
    case "private":
    case "reserved":
      return "named";
    case "loopback":
    case "link-local":
      return "explicit";
    default:
      return "never";
  }
}

/** One address judged for a host. */
export interface AddressJudgement {
  address: string;
  /** `invalid` for an answer that is not a plain IP address (a scoped IPv6 address: nothing to reach). */
  kind: AddressClass | "invalid";
  /** Set when the address may not be reached under the grant. */
  refusedBy?: AddressRefusedBy;
  /** The refusal in words, as the proxy gives it. */
  reason?: string;
}

function classOf(address: string): AddressClass | "invalid" {
  try {
    return classifyAddress(address);
  } catch {
    return "invalid";
  }
}

/**
 * Whether `address` (one of `host`'s answers, or the literal the host is) may be reached under
 * `grant`: undefined when it may, else what refuses it and why in words.
 */
export function addressRefusal(host: string, address: string, grant: DestinationGrant): { kind: AddressClass | "invalid"; refusedBy: AddressRefusedBy; reason: string } | undefined {
  const kind = classOf(address);
  const need = addressNeeds(kind);
  const named = grant.allowNamed === true || grant.allowPrivate === true;
  let refusedBy: AddressRefusedBy | undefined;
  if (need === "never") refusedBy = "never-reachable";
  else if (need === "named" && !named) refusedBy = "needs-name-grant";
  else if (need === "explicit" && grant.allowPrivate !== true) refusedBy = "needs-explicit-grant";
  if (refusedBy === undefined) return undefined;
  const shown = kind === "invalid" ? "not a plain IP address" : `a ${kind} address`;
  const what = address === host ? `${address} is ${shown}` : `${host} resolves to ${address}, ${shown}`;
  const rule =
    refusedBy === "never-reachable"
      ? "never reachable through the proxy"
      : refusedBy === "needs-name-grant"
        ? "reachable only for a host allowed by name"
        : "reachable only for a host granted by name in the configuration";
  return { kind, refusedBy, reason: `${what}, ${rule}` };
}

/**
 * Every address of a host judged under `grant`, in the resolver's order. The proxy connects only
 * when none is refused (the connect loop may reach any of them), so one refused address refuses
 * the host; `refused` is the first.
 */
export function checkDestination(host: string, addresses: readonly string[], grant: DestinationGrant): { addresses: AddressJudgement[]; refused?: AddressJudgement } {
  const judged = addresses.map((address): AddressJudgement => {
    const refusal = addressRefusal(host, address, grant);
    return refusal ? { address, ...refusal } : { address, kind: classOf(address) };
  });
  const refused = judged.find((a) => a.refusedBy !== undefined);
  return refused ? { addresses: judged, refused } : { addresses: judged };
}
