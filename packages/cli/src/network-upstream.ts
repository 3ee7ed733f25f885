import type { UpstreamSettings } from "@shellgate/network-proxy";

// The same variables, in the same order, as @shellgate/network-proxy's `upstreamSettingsFromEnv`;
// read here without loading the proxy package, which every `exec` start would otherwise pay for.
// (test/network-upstream.test.ts holds the two to the same answers.)
const NAMES = {
  http: ["http_proxy", "HTTP_PROXY"],
  https: ["https_proxy", "HTTPS_PROXY"],
  all: ["all_proxy", "ALL_PROXY"],
  noProxy: ["no_proxy", "NO_PROXY"],
} as const;

/**
 * The host environment's upstream proxy for the per-run proxy (`networkUpstream`): `https_proxy`,
 * `http_proxy`, `all_proxy` and `no_proxy` (lower case first, then upper case; empty counts as
 * unset), or undefined when no proxy is set. Read from shellgate's own environment, never from what
 * a command gets (a proxy-routed command's proxy variables point at the per-run proxy).
 */
export function upstreamFromHostEnv(env: Readonly<Record<string, string | undefined>> = process.env): UpstreamSettings | undefined {
  const pick = (names: readonly string[]) => {
    for (const variable of names) {
      const url = env[variable]?.trim();
      if (url) return { url, variable };
    }
    return undefined;
  };
  const http = pick(NAMES.http);
  const https = pick(NAMES.https);
  const all = pick(NAMES.all);
  if (!http && !https && !all) return undefined;
  const noProxy = pick(NAMES.noProxy);
  return {
    ...(http ? { http } : {}),
    ...(https ? { https } : {}),
    ...(all ? { all } : {}),
    ...(noProxy ? { noProxy: { value: noProxy.url, variable: noProxy.variable } } : {}),
  };
}

/** The upstream as `doctor` and `check --host` show it: URLs with passwords as `***`, never the secret. */
export type UpstreamReport =
  | { configured: false }
  | {
      configured: true;
      /** For tunnels (HTTPS, SOCKS5 clients) and for plain HTTP. */
      tunnels?: { url: string; variable: string };
      plainHttp?: { url: string; variable: string };
      noProxy?: { value: string; variable: string };
      /** NO_PROXY entries that match nothing (CIDR ranges are not supported). */
      ignored: string[];
      /** Set when a setting cannot be used: every proxy-routed run then has no network. */
      error?: string;
    };

/** What `settings` mean to the proxy (loads the proxy package: for `doctor` and `check`, not `exec`). */
export async function describeUpstream(settings: UpstreamSettings | undefined): Promise<UpstreamReport> {
  if (!settings) return { configured: false };
  const { parseUpstream, redactProxyUrl } = await import("@shellgate/network-proxy");
  const shown = (s: { url: string; variable: string } | undefined) => (s ? { url: redactProxyUrl(s.url), variable: s.variable } : undefined);
  const tunnels = shown(settings.https ?? settings.all);
  const plainHttp = shown(settings.http ?? settings.all);
  const base = {
    configured: true as const,
    ...(tunnels ? { tunnels } : {}),
    ...(plainHttp ? { plainHttp } : {}),
    ...(settings.noProxy ? { noProxy: settings.noProxy } : {}),
  };
  try {
    return { ...base, ignored: parseUpstream(settings).ignored };
  } catch (error) {
    return { ...base, ignored: [], error: error instanceof Error ? error.message : String(error) };
  }
}
