import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { z } from "zod";
import { DEFAULT_MAX_CONNECTIONS } from "./connection-budget.js";
import { InvalidProxyOptionsError } from "./errors.js";
import { parseUpstream, type ParsedUpstream, type UpstreamSettings } from "./upstream.js";
import type { NetworkProxyOptions, NetworkRequestEvent, ProxyDecide, ProxyListen, ProxyResolver } from "./types.js";

/** Default budget for connecting to a destination. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

// sun_path holds 108 bytes on Linux and 104 on macOS, NUL included; the longer of the two socket
// names must fit on both, or the proxy would start on one and not the other.
const MAX_SOCKET_PATH_BYTES = 103;
const LONGEST_SOCKET_NAME = "/socks.sock";

const UpstreamSettingSchema = z.strictObject({ url: z.string().min(1), variable: z.string().min(1) });

const fn = (what: string) => z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", { message: `must be a function (${what})` });

/** The plain-data parts of `NetworkProxyOptions`, checked at the boundary; functions are only checked to be functions. */
export const NetworkProxyOptionsSchema = z.strictObject({
  decide: fn("request => verdict"),
  listen: z.discriminatedUnion("transport", [
    z.strictObject({
      transport: z.literal("unix-socket"),
      directory: z
        .string()
        .min(1)
        .refine((d) => isAbsolute(d), { message: "must be an absolute path" })
        .refine((d) => !d.includes("\u0000"), { message: "must not contain NUL" })
        .refine((d) => Buffer.byteLength(d.replace(/\/+$/u, "") + LONGEST_SOCKET_NAME) <= MAX_SOCKET_PATH_BYTES, {
          message: `too long: the socket paths inside it must fit in ${MAX_SOCKET_PATH_BYTES} bytes`,
        }),
    }),
    z.strictObject({ transport: z.literal("loopback-tcp") }),
  ]),
  resolver: fn("host => addresses").optional(),
  onRequest: fn("event => void").optional(),
  connectTimeoutMs: z.number().int().min(1).max(600_000).optional(),
  maxConnections: z.number().int().min(1).max(65_536).optional(),
  tunnelSplicer: z
    .string()
    .min(1)
    .refine((p) => isAbsolute(p), { message: "must be an absolute path" })
    .refine((p) => !p.includes("\u0000"), { message: "must not contain NUL" })
    // Checked at start so that a wrong path fails loudly here, not as a silent fallback per tunnel.
    .refine(isExecutableFile, { message: "must be an existing executable file" })
    .optional(),
  upstream: z
    .strictObject({
      http: UpstreamSettingSchema.optional(),
      https: UpstreamSettingSchema.optional(),
      all: UpstreamSettingSchema.optional(),
      noProxy: z.strictObject({ value: z.string(), variable: z.string().min(1) }).optional(),
    })
    .optional(),
});

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Options with every default filled in. */
export interface ResolvedProxyOptions {
  decide: ProxyDecide;
  listen: ProxyListen;
  resolver: ProxyResolver | undefined;
  onRequest: ((event: NetworkRequestEvent) => void) | undefined;
  connectTimeoutMs: number;
  maxConnections: number;
  tunnelSplicer: string | undefined;
  /** Parsed; a setting it cannot use has already thrown `UnsupportedUpstreamError`. */
  upstream: ParsedUpstream | undefined;
}

/**
 * Validates `options`; throws `InvalidProxyOptionsError` naming the first bad field (`listen.directory`,
 * `connectTimeoutMs`...), or `UnsupportedUpstreamError` naming the variable of an upstream it cannot use.
 */
export function parseNetworkProxyOptions(options: unknown): ResolvedProxyOptions {
  const parsed = NetworkProxyOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "options";
    throw new InvalidProxyOptionsError(field, issue?.message ?? "invalid", { cause: parsed.error });
  }
  const o = parsed.data;
  const input = options as NetworkProxyOptions;
  const listen: ProxyListen =
    o.listen.transport === "unix-socket" ? { transport: "unix-socket", directory: o.listen.directory.replace(/(.)\/+$/u, "$1") } : { transport: "loopback-tcp" };
  return {
    // The functions are taken from the input itself: zod passes them through, but their types are the caller's.
    decide: input.decide,
    listen,
    resolver: input.resolver,
    onRequest: input.onRequest,
    connectTimeoutMs: o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    maxConnections: o.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    tunnelSplicer: o.tunnelSplicer,
    upstream: o.upstream === undefined ? undefined : parseUpstream(o.upstream as UpstreamSettings),
  };
}
