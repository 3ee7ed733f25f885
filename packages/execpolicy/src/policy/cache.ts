/**
 * A cache of compiled policies on disk, keyed by the exact inputs: package format version, home
 * directory (`~/` host paths expand against it), and every file's path and full text, in order.
 * The inputs are stored in the entry and compared in full on a hit, so the file name only has to
 * spread entries, not identify them: a fast 64-bit hash names it, and a collision (accidental or
 * crafted by whoever writes a rules file) can only cause a miss, never a wrong policy. That keeps
 * `node:crypto` (several ms of a cached `policy-check`) off the start-up path.
 * A hit rebuilds the `Policy` from JSON without loading the parser at all, which is what keeps
 * `policy-check` start-up low. Any unreadable, corrupt or mismatching entry is ignored (and
 * overwritten on the next successful parse); writes are atomic (temp file + rename) and the
 * directory is created private (0700) because its contents decide what commands may run.
 */
import { lstatSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { policyCacheDir } from "@shellgate/user-paths";
import type { PolicyContents } from "./policy.js";
import { readRegularFileSync } from "./regular-file.js";
import type { PolicySource } from "./load-types.js";
import type { Decision, NetworkProtocol, NetworkRule, PrefixRule, RuleSandbox } from "./types.js";

// v2: rules may carry `sandbox`/`network` (an older entry could not hold them, so it must not be read).
// v3: the entry holds its inputs, compared in full on a hit; the key is a fast hash, not a digest,
// since a collision can only cause a miss.
const FORMAT = "shellgate-execpolicy-cache-v3";
const DECISIONS = new Set(["allow", "prompt", "forbidden"]);
const PROTOCOLS = new Set(["http", "https", "socks5_tcp", "socks5_udp"]);
const SANDBOXES = new Set(["read-only", "workspace-write"]);

/** Everything a compiled policy depends on, as one string (lengths first, so no two lists join alike). */
export function cacheInputs(sources: readonly PolicySource[]): string {
  let text = `${FORMAT}\0${homedir()}\0`;
  for (const s of sources) text += `${s.path.length}:${s.path}\0${s.source.length}:${s.source}\0`;
  return text;
}

/**
 * The entry's file name for `inputs`: two 32-bit FNV-1a hashes with different offsets, 16 hex
 * digits. Not a digest to trust: `decode` compares the stored inputs with these in full.
 */
export function cacheKey(inputs: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < inputs.length; i++) {
    const c = inputs.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 13);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

interface CacheEntry {
  format: string;
  key: string;
  /** `cacheInputs` of the sources it was compiled from: a hit must match it exactly. */
  inputs: string;
  contents: {
    files: string[];
    rules: Array<Omit<PrefixRule, "index">>;
    hostExecutables: Array<[string, string[]]>;
    networkRules: NetworkRule[];
  };
}

const isStr = (v: unknown): v is string => typeof v === "string";
const isStrArr = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
const isLoc = (v: unknown): boolean => {
  const o = v as { file?: unknown; line?: unknown; column?: unknown } | null;
  return !!o && isStr(o.file) && Number.isInteger(o.line) && Number.isInteger(o.column);
};

/** Validate a parsed cache entry; `undefined` when it is not exactly what we wrote. */
function decode(raw: unknown, key: string, inputs: string): PolicyContents | undefined {
  const e = raw as CacheEntry | null;
  if (!e || e.format !== FORMAT || e.key !== key || e.inputs !== inputs || typeof e.contents !== "object" || e.contents === null) return undefined;
  const c = e.contents;
  if (!isStrArr(c.files) || !Array.isArray(c.rules) || !Array.isArray(c.hostExecutables) || !Array.isArray(c.networkRules)) return undefined;
  const rules: PrefixRule[] = [];
  for (const r of c.rules) {
    if (!r || !isStr(r.program) || !Array.isArray(r.rest) || !r.rest.every(isStrArr) || !DECISIONS.has(r.decision) || !isLoc(r.source)) return undefined;
    if (r.justification !== undefined && !isStr(r.justification)) return undefined;
    if (r.sandbox !== undefined && !SANDBOXES.has(r.sandbox)) return undefined;
    // `network` only ever exists together with `sandbox` (the builtin refuses it alone).
    if (r.network !== undefined && (!isStrArr(r.network) || r.sandbox === undefined)) return undefined;
    const rule: { -readonly [K in keyof PrefixRule]: PrefixRule[K] } = { program: r.program, rest: r.rest, decision: r.decision as Decision, source: r.source, index: rules.length };
    if (r.justification !== undefined) rule.justification = r.justification;
    if (r.sandbox !== undefined) rule.sandbox = r.sandbox as RuleSandbox;
    if (r.network !== undefined) rule.network = r.network;
    rules.push(rule);
  }
  const hostExecutables = new Map<string, string[]>();
  for (const h of c.hostExecutables) {
    if (!Array.isArray(h) || !isStr(h[0]) || !isStrArr(h[1])) return undefined;
    hostExecutables.set(h[0], h[1]);
  }
  for (const n of c.networkRules) {
    if (!n || !isStr(n.host) || !PROTOCOLS.has(n.protocol as NetworkProtocol) || !DECISIONS.has(n.decision) || !isLoc(n.source)) return undefined;
  }
  return { files: c.files, rules, hostExecutables, networkRules: c.networkRules };
}

/**
 * Whether `dir` is a real directory (not a link) owned by this user and writable by no one else: only
 * then are its entries trusted, or new ones written. The default location is also held read-only in
 * every sandbox; this keeps a cache directory set elsewhere from being read through a planted link.
 */
function privateDir(dir: string): boolean {
  try {
    const info = lstatSync(dir);
    const uid = process.getuid?.();
    return info.isDirectory() && (uid === undefined || info.uid === uid) && (process.platform === "win32" || (info.mode & 0o022) === 0);
  } catch {
    return false;
  }
}

/** Look up compiled contents; `undefined` on any miss or problem (a directory that is not private is a miss). */
export async function readCache(dir: string, inputs: string): Promise<PolicyContents | undefined> {
  const key = cacheKey(inputs);
  try {
    if (!privateDir(dir)) return undefined;
    // Synchronous for the same start-up reason as `readPolicySources`.
    // Entries are written by rename, never as links: a link or anything but a regular file is no entry.
    return decode(JSON.parse(readRegularFileSync(join(dir, `${key}.json`), { followLinks: false }).toString("utf8")), key, inputs);
  } catch {
    return undefined;
  }
}

/** Store compiled contents (best effort: a failure to cache never fails the load). */
export async function writeCache(dir: string, inputs: string, contents: PolicyContents): Promise<void> {
  const key = cacheKey(inputs);
  const entry: CacheEntry = {
    format: FORMAT,
    key,
    inputs,
    contents: {
      files: contents.files,
      rules: contents.rules.map(({ index: _index, ...rest }) => rest),
      hostExecutables: [...contents.hostExecutables],
      networkRules: contents.networkRules,
    },
  };
  try {
    // Loaded here, not at the top: a cache hit never writes, and node:fs/promises (with the readline
    // code it loads) is a measurable part of a `policy-check` answered from the cache.
    const { mkdir, rename, writeFile } = await import("node:fs/promises");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (!privateDir(dir)) return;
    const tmp = join(dir, `.${key}.${process.pid}.${Date.now()}.tmp`);
    // Exclusive: never written through a name someone else created first.
    await writeFile(tmp, JSON.stringify(entry), { mode: 0o600, flag: "wx" });
    await rename(tmp, join(dir, `${key}.json`));
  } catch {
    // Read-only home, full disk...: the cache is an optimisation only.
  }
}

/**
 * The per-user compiled-policy cache of shellgate's tools: `$SHELLGATE_POLICY_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/shellgate/execpolicy` (an absolute `XDG_CACHE_HOME` only, as XDG asks), else
 * `~/.cache/shellgate/execpolicy` (@shellgate/user-paths' `policyCacheDir`). `env` defaults to `process.env`.
 */
export function defaultCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return policyCacheDir(env);
}
