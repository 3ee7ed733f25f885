// Network "blocking" without elevation: the environment-based scheme of the Codex Windows runner
// as Codex's Windows runner does. It only stops programs that honour these variables; anything that
// opens a socket itself still reaches the network. Plans and runs say so ("network: advisory").
import { proxyEnvironment, type ProxyUrls } from "@shellgate/sandbox";
import { winJoin } from "./win-path.js";

/** Proxy variables pointed at a dead local port (the discard port, where nothing listens). */
export const DEAD_PROXY = "http://127.0.0.1:9";

const PROXY_VARS = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "GIT_HTTP_PROXY", "GIT_HTTPS_PROXY"] as const;

/** Set only when the command's environment does not set them already (as the Codex runner does). */
const OFFLINE_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({
  SBX_NONET_ACTIVE: "1",
  NO_PROXY: "localhost,127.0.0.1,::1",
  PIP_NO_INDEX: "1",
  PIP_DISABLE_PIP_VERSION_CHECK: "1",
  NPM_CONFIG_OFFLINE: "true",
  CARGO_NET_OFFLINE: "true",
  GIT_SSH_COMMAND: "cmd /c exit 1",
  GIT_ALLOW_PROTOCOLS: "",
});

/** The programs the deny-bin directory shadows, each as a `.cmd` and a `.bat` stub that fails. */
export const DENYBIN_PROGRAMS: readonly string[] = Object.freeze(["ssh", "scp"]);

/** The stub's text: exit 1 with a message that names the sandbox (the denial heuristic reads "sandbox"). */
export const DENYBIN_STUB = "@echo %~n0: network access is blocked by the shellgate sandbox 1>&2\r\n@exit /b 1\r\n";

/** What the environment-based block changes. */
export interface NetworkEnvBlock {
  /** Variables set or changed (only these are the plan's `env`). */
  readonly set: Readonly<Record<string, string>>;
  /** Variables removed: other spellings of a name set here (Windows names are case-insensitive). */
  readonly unset: readonly string[];
  /** The deny-bin directory put first on PATH, and the stub files a run writes there. */
  readonly denybin: { readonly dir: string; readonly files: readonly string[] };
}

function keyOf(env: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
}

/**
 * The environment changes that keep well-behaved tools offline: proxies to a dead port (always
 * set: a real proxy left in place would defeat even this advisory block, which is stricter than
 * Codex's "only if unset"), offline flags for pip/npm/cargo/git (only if unset), a deny-bin
 * directory of failing `ssh`/`scp` stubs first on `PATH`, `.BAT;.CMD` first in `PATHEXT` so the
 * stubs win over `ssh.exe`.
 */
export function networkEnvBlock(env: Readonly<Record<string, string>>, denybinDir: string): NetworkEnvBlock {
  const set: Record<string, string> = {};
  const unset: string[] = [];
  for (const name of PROXY_VARS) {
    for (const k of Object.keys(env)) if (k.toUpperCase() === name && k !== name) unset.push(k);
    set[name] = DEAD_PROXY;
  }
  for (const [name, value] of Object.entries(OFFLINE_DEFAULTS)) if (keyOf(env, name) === undefined) set[name] = value;
  const pathKey = keyOf(env, "PATH") ?? "PATH";
  const current = env[pathKey] ?? "";
  set[pathKey] = current === "" ? denybinDir : `${denybinDir};${current}`;
  const extKey = keyOf(env, "PATHEXT") ?? "PATHEXT";
  const exts = (env[extKey] ?? ".COM;.EXE;.BAT;.CMD").split(";").filter((e) => e !== "");
  const rest = exts.filter((e) => e.toUpperCase() !== ".BAT" && e.toUpperCase() !== ".CMD");
  set[extKey] = [".BAT", ".CMD", ...rest].join(";");
  const files = DENYBIN_PROGRAMS.flatMap((p) => [winJoin(denybinDir, `${p}.cmd`), winJoin(denybinDir, `${p}.bat`)]);
  return { set, unset, denybin: { dir: denybinDir, files } };
}

/**
 * Values that name the POSIX null device mean Windows' `NUL` (as the Codex runner maps them), so a
 * `GIT_CONFIG_GLOBAL=/dev/null` keeps working.
 */
export function mapNullDevice(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v === "/dev/null") out[k] = "NUL";
  return out;
}

/** What a proxy-routed run changes in the environment. */
export interface ProxyEnv {
  /** The proxy variables, pointing at the session proxy. */
  readonly set: Readonly<Record<string, string>>;
  /** Other spellings of those names the command inherits (Windows names are case-insensitive). */
  readonly unset: readonly string[];
}

/**
 * The environment of a proxy-routed run: the shared `proxyEnvironment` for the session proxy, in
 * place of the network-off block, not on top of it. Its dead proxy would override the real one,
 * and its offline flags (`NPM_CONFIG_OFFLINE`, `PIP_NO_INDEX`…) and ssh stubs would stop the very
 * tools the proxy is there to let through, so none of them is set. An inherited spelling of a name
 * set here that differs only in case (`Http_Proxy`) is removed, since Windows would read either one.
 */
export function proxyEnvBlock(env: Readonly<Record<string, string>>, urls: ProxyUrls): ProxyEnv {
  const set = proxyEnvironment(urls);
  const names = new Set(Object.keys(set).map((k) => k.toUpperCase()));
  const unset = Object.keys(env).filter((k) => names.has(k.toUpperCase()) && !Object.hasOwn(set, k));
  return { set, unset };
}
