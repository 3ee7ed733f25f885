import path from "node:path";
import {
  InvalidSandboxPathError,
  networkModeOf,
  PROXY_ENV_NAMES,
  proxyEnvironment,
  SandboxProxyUnsupportedError,
  type NetworkMode,
  type NetworkProxyRoute,
  type SandboxPolicy,
  type TransformOptions,
  type WritableRoot,
  isPathWithin,
  observedFs,
} from "@shellgate/sandbox";
import { LinuxSandboxError } from "./errors.js";

/**
 * Where the session proxy's sockets appear inside the sandbox. `/dev` is bubblewrap's own tmpfs
 * (`--dev`), so the mount point is made inside the sandbox, never on the host. The directory is a
 * tmpfs of its own, remounted read-only once both sockets are bound into it: it cannot be renamed
 * (a mount point: EBUSY), nothing can be created in it or removed from it (EROFS), and each socket
 * is a bind mount (EBUSY).
 */
const PROXY_MOUNT_DIR = "/dev/shellgate-proxy";

/**
 * The loopback ports the relays listen on inside the sandbox. The network namespace is the run's
 * own, so fixed ports collide with nothing; they are the ports tools expect of a local proxy.
 */
const PROXY_HTTP_PORT = 3128;
const PROXY_SOCKS_PORT = 1080;

/** One relay: `127.0.0.1:port` inside, joined to the proxy socket bound at `inside`, which is `host` on the host. */
interface ProxyRelay {
  protocol: "http" | "socks5";
  port: number;
  inside: string;
  host: string;
}

/** How a proxy-routed run reaches the session proxy. */
export interface ProxyRoutePlan {
  mountDir: string;
  relays: ProxyRelay[];
  /** What the command is told (`proxyEnvironment`). */
  env: Record<string, string>;
}

/**
 * Check the route and decide where its sockets go. A socket whose directory lies inside a writable
 * root is refused: the command could unlink or rename it there (the proxy would be gone for every
 * later run) and, were unix sockets ever allowed, put its own in its place. Paths are compared as
 * given and as the kernel resolves them.
 * @param checkSockets also require both paths to be sockets now (a run; a plan only reads what is there).
 * @throws InvalidSandboxPathError for a relative path, or (checkSockets) one that is not a socket.
 * @throws LinuxSandboxError (`not-enforceable`) for a socket directory or the mount point inside a writable root.
 * @throws SandboxProxyUnsupportedError for a route of another transport.
 */
async function planProxyRoute(
  route: NetworkProxyRoute,
  roots: readonly WritableRoot[],
  options: { checkSockets: boolean },
): Promise<ProxyRoutePlan> {
  if (route.transport !== "unix-socket") {
    throw new SandboxProxyUnsupportedError("linux", `it needs a unix-socket route, got ${route.transport}`);
  }
  for (const root of roots) {
    if (isPathWithin(PROXY_MOUNT_DIR, root.root)) {
      throw new LinuxSandboxError("not-enforceable", `the writable root ${root.root} contains ${PROXY_MOUNT_DIR}, where the proxy's sockets are bound; refusing to route this run through the proxy`);
    }
  }
  const sockets: Array<[field: string, file: string, protocol: ProxyRelay["protocol"], port: number, name: string]> = [
    ["networkProxy.httpSocket", route.httpSocket, "http", PROXY_HTTP_PORT, "http.sock"],
    ["networkProxy.socksSocket", route.socksSocket, "socks5", PROXY_SOCKS_PORT, "socks.sock"],
  ];
  const relays: ProxyRelay[] = [];
  for (const [field, file, protocol, port, name] of sockets) {
    if (!path.isAbsolute(file)) throw new InvalidSandboxPathError(field, file, "must be an absolute path");
    let real = path.resolve(file);
    if (options.checkSockets) {
      let stat;
      try {
        real = observedFs.realpath(file);
        stat = observedFs.stat(real);
      } catch (error) {
        throw new InvalidSandboxPathError(field, file, `cannot be read: ${(error as Error).message}`);
      }
      if (!stat?.isSocket()) throw new InvalidSandboxPathError(field, file, "is not a unix socket");
    } else {
      try {
        real = observedFs.realpath(file);
      } catch {
        // not there (yet): checked as written
      }
    }
    for (const dir of new Set([path.dirname(path.resolve(file)), path.dirname(real)])) {
      const exposed = roots.find((r) => isPathWithin(dir, r.root));
      if (exposed) {
        throw new LinuxSandboxError("not-enforceable", `the proxy socket ${file} lies in ${dir}, inside the writable root ${exposed.root}, where a sandboxed command could replace or remove it; refusing to route this run through it`);
      }
    }
    relays.push({ protocol, port, inside: path.posix.join(PROXY_MOUNT_DIR, name), host: real });
  }
  return {
    mountDir: PROXY_MOUNT_DIR,
    relays,
    env: proxyEnvironment({ http: `http://127.0.0.1:${PROXY_HTTP_PORT}`, socks: `socks5h://127.0.0.1:${PROXY_SOCKS_PORT}` }),
  };
}

/**
 * bubblewrap arguments binding the proxy's sockets; they come last, so that no later mount (a
 * writable root, a mask) can cover them. `-try`: a proxy that died (and removed its socket) since
 * the transform leaves nothing at the path, so each connection is refused by the relay, where a
 * failed bind would end the whole run before the command starts.
 */
export function proxyBwrapArgs(plan: ProxyRoutePlan): string[] {
  return [
    "--tmpfs", plan.mountDir,
    ...plan.relays.flatMap((r) => ["--ro-bind-try", r.host, r.inside]),
    "--remount-ro", plan.mountDir,
  ];
}

/** The helper's network arguments: `--net off|on`, or `--net proxy --relay PORT=SOCKET...`. */
export function helperNetworkArgs(mode: NetworkMode, proxy: ProxyRoutePlan | undefined): string[] {
  if (mode === "proxy") {
    if (!proxy) throw new Error("a proxy-routed run needs its route");
    return ["--net", "proxy", ...proxy.relays.flatMap((r) => ["--relay", `${r.port}=${r.inside}`])];
  }
  return ["--net", mode === "full" ? "on" : "off"];
}

/**
 * The command's environment for its network mode: a proxy-routed run is told where its proxy is
 * (whatever the host's variables said); a run without network loses the host's proxy variables,
 * which would name a proxy it cannot reach. With the whole network granted they stay, as on macOS:
 * behind a corporate proxy they are the only way out.
 */
export function networkEnv(env: Readonly<Record<string, string>>, proxy: ProxyRoutePlan | undefined, mode: NetworkMode = proxy ? "proxy" : "off"): Record<string, string> {
  if (mode === "full") return { ...env };
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!PROXY_ENV_NAMES.includes(name)) out[name] = value;
  }
  return proxy ? { ...out, ...proxy.env } : out;
}

/** Why the Landlock layer refuses a proxy-routed run. */
export const LANDLOCK_PROXY_REASON =
  "the Landlock fallback (used here because bubblewrap cannot run) has no network namespace of its own: the command could reach the host's network directly, not only the proxy, and Landlock cannot tell the proxy's socket from a host daemon's";

/** A run's network: its mode and, when proxy-routed, the route (shared by a run and a plan). */
export async function runNetwork(
  policy: SandboxPolicy,
  opts: TransformOptions,
  roots: readonly WritableRoot[],
  options: { checkSockets: boolean },
): Promise<{ mode: NetworkMode; proxy?: ProxyRoutePlan }> {
  const mode = networkModeOf(policy, opts.networkProxy);
  if (mode !== "proxy" || opts.networkProxy === undefined) return { mode };
  return { mode, proxy: await planProxyRoute(opts.networkProxy, roots, options) };
}
