import { isIPv4, isIPv6 } from "node:net";
import { InvalidAddressError } from "./errors.js";

/** What an IP address reaches. Only `public` may be connected to without an explicit grant by name. */
export type AddressClass = "public" | "loopback" | "private" | "link-local" | "unspecified" | "multicast" | "broadcast" | "reserved";

type Range = readonly [prefix: readonly number[], bits: number, kind: AddressClass];

// IPv4 special-purpose ranges (IANA registry, RFC 6890 and later). CGNAT (100.64/10) counts as
// private: it is somebody's internal network, never a public destination.
const V4: readonly Range[] = [
  [[0, 0, 0, 0], 32, "unspecified"],
  [[0], 8, "reserved"],
  [[10], 8, "private"],
  [[100, 64], 10, "private"],
  [[127], 8, "loopback"],
  [[169, 254], 16, "link-local"],
  [[172, 16], 12, "private"],
  [[192, 0, 0], 24, "reserved"],
  [[192, 0, 2], 24, "reserved"],
  [[192, 88, 99], 24, "reserved"],
  [[192, 168], 16, "private"],
  [[198, 18], 15, "reserved"],
  [[198, 51, 100], 24, "reserved"],
  [[203, 0, 113], 24, "reserved"],
  [[224], 4, "multicast"],
  [[255, 255, 255, 255], 32, "broadcast"],
  [[240], 4, "reserved"],
];

// IPv6 ranges checked before the global-unicast test. Ranges that embed an IPv4 address
// (mapped, NAT64, 6to4) are classified by that address instead, below.
const V6: readonly Range[] = [
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, "private"],
  [[0x01, 0, 0, 0, 0, 0, 0, 0], 64, "reserved"],
  [[0x20, 0x01, 0x0d, 0xb8], 32, "reserved"],
  [[0x3f, 0xff], 20, "reserved"],
  [[0x20, 0x01, 0x00], 23, "reserved"],
  [[0xfc], 7, "private"],
  [[0xfe, 0x80], 10, "link-local"],
  [[0xfe, 0xc0], 10, "private"],
  [[0xff], 8, "multicast"],
];

function matches(bytes: readonly number[], [prefix, bits]: Range): boolean {
  for (let i = 0; i * 8 < bits; i++) {
    const take = Math.min(8, bits - i * 8);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function classifyV4(bytes: readonly number[]): AddressClass {
  return V4.find((range) => matches(bytes, range))?.[2] ?? "public";
}

/** 16 bytes of an address `isIPv6` accepted (including a dotted IPv4 tail; zones are refused before). */
function ipv6Bytes(address: string): number[] {
  let text = address;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    tail.push(...text.slice(lastColon + 1).split(".").map(Number));
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = "", rest] = text.split("::") as [string, string | undefined];
  const groups = (s: string) => (s === "" ? [] : s.split(":").map((g) => Number.parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * What `address` reaches: `loopback`, `private` (RFC 1918, CGNAT 100.64/10, IPv6 ULA fc00::/7 and
 * the deprecated site-local fec0::/10), `link-local` (169.254/16 with the cloud metadata services,
 * fe80::/10), `unspecified` (0.0.0.0, ::, which Linux connects to the local host), `multicast`,
 * `broadcast` (255.255.255.255), `reserved` (documentation, benchmarking, fake-IP 198.18/15, 0/8,
 * 240/4, and every IPv6 address outside
 * 2000::/3) or `public`. IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible, NAT64 (64:ff9b::/96) and 6to4
 * (2002::/16) addresses are judged by the IPv4 address inside, so none of them is a way around the
 * IPv4 ranges. Accepts brackets; throws `InvalidAddressError` on anything that is not an IP address.
 */
export function classifyAddress(address: string): AddressClass {
  const text = typeof address === "string" && address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (typeof text === "string" && isIPv4(text)) return classifyV4(text.split(".").map(Number));
  if (typeof text !== "string" || !isIPv6(text) || text.includes("%")) throw new InvalidAddressError(String(address));
  const b = ipv6Bytes(text.toLowerCase());
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 16)) return "unspecified";
  if (zeros(0, 15) && b[15] === 1) return "loopback";
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return classifyV4(b.slice(12));
  if (zeros(0, 12)) return "reserved"; // IPv4-compatible (deprecated): never a real destination
  if (zeros(4, 12) && b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) return embedded(b.slice(12));
  if (b[0] === 0x20 && b[1] === 0x02) return embedded(b.slice(2, 6));
  const special = V6.find((range) => matches(b, range));
  if (special) return special[2];
  return ((b[0] ?? 0) & 0xe0) === 0x20 ? "public" : "reserved";
}

// A public IPv4 address behind a translation prefix is public; anything else inside one is at
// best someone's internal network, so it is private rather than its IPv4 class (an IPv6 route to
// "127.0.0.1" does not reach this host's loopback, but it must not be allowed either).
function embedded(v4: readonly number[]): AddressClass {
  const kind = classifyV4(v4);
  return kind === "public" ? "public" : "private";
}
