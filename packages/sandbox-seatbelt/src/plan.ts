import fs from "node:fs/promises";
import path from "node:path";
import {
  computeWritableRoots,
  PROTECTED_METADATA_NAMES,
  InvalidSandboxPathError,
  policyRequiresPlatformSandbox,
  type CommandSpec,
  type SandboxPlan,
  type SandboxPolicy,
  type TransformOptions,
} from "@shellgate/sandbox";
import { toDarwinCanonicalPath } from "./canonical-path.js";
import { SeatbeltSandboxError } from "./errors.js";
import { sandboxExecArgv, SANDBOX_EXEC_PATH } from "./launch-argv.js";
import { seatbeltNetwork, type SeatbeltNetwork } from "./network.js";
import { buildSeatbeltProfile, type ProfileInput, type SeatbeltProfile } from "./profile.js";

/** The isolation string of every Seatbelt run. */
export const SEATBELT_ISOLATION = "seatbelt";

/** What a Seatbelt run is made of: the profile, its parameters, the argv that carries both, and its network. */
export interface SeatbeltRun {
  argv: string[];
  profile: SeatbeltProfile;
  input: ProfileInput;
  network: SeatbeltNetwork;
}

function isWithin(child: string, parent: string): boolean {
  const rel = path.posix.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.posix.isAbsolute(rel));
}

const unique = (paths: Iterable<string>) => [...new Set(paths)];

/**
 * `p` with its symlinks resolved as far as it exists: the real path of its deepest existing
 * ancestor, then the rest as written. A denied path that does not exist yet is still denied.
 */
async function resolveExisting(p: string): Promise<string> {
  const rest: string[] = [];
  let dir = path.resolve(p);
  for (;;) {
    try {
      return path.join(await fs.realpath(dir), ...rest);
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return path.resolve(p);
      rest.unshift(path.basename(dir));
      dir = parent;
    }
  }
}

/** Directories strictly between `root` and `inner` (both canonical, `inner` inside `root`). */
function between(root: string, inner: string): string[] {
  const out: string[] = [];
  for (let dir = path.posix.dirname(inner); dir !== root && isWithin(dir, root); dir = path.posix.dirname(dir)) out.push(dir);
  return out;
}

/**
 * Turn the policy into the profile's input, every path macOS-canonical. The writable roots and
 * carve-outs are `computeWritableRoots`' (symlinks resolved with this machine's filesystem), then
 * moved under `/private` where macOS has them; denied paths are named both as given and resolved.
 * @throws InvalidSandboxPathError when the command's cwd lies inside a denied path.
 * @throws SeatbeltSandboxError (`not-expressible`) for a writable root inside a denied path.
 */
async function profileInput(
  spec: CommandSpec,
  policy: Extract<SandboxPolicy, { mode: "read-only" | "workspace-write" }>,
  opts: TransformOptions,
  network: SeatbeltNetwork,
): Promise<ProfileInput> {
  const roots = await computeWritableRoots(policy, {
    cwd: opts.sandboxPolicyCwd,
    env: spec.env,
    ...(opts.protectedPaths ? { protectedPaths: opts.protectedPaths } : {}),
    platform: "darwin",
  });
  const d = toDarwinCanonicalPath;
  const writableRoots = unique(roots.map((r) => d(r.root)));
  const readOnlyPaths = unique(roots.flatMap((r) => r.readOnlySubpaths.map(d)));
  // Defence in depth: every root must come back with its metadata carve-outs. A root whose name the
  // shared path tracing misread lost them (a backslash in a POSIX path was once split as a
  // separator); should that happen again, the run is refused, never started with `.git` writable.
  for (const root of writableRoots) {
    const uncovered = PROTECTED_METADATA_NAMES.find((name) => !readOnlyPaths.some((ro) => isWithin(path.posix.join(root, name), ro)));
    if (uncovered !== undefined) {
      throw new SeatbeltSandboxError(
        "not-expressible",
        `the writable root ${JSON.stringify(root)} came back without its read-only ${uncovered}; refusing to run with it writable`,
      );
    }
  }
  const denied = unique((await Promise.all(policy.deniedReadPaths.map(async (p) => [d(p), d(await resolveExisting(p))]))).flat());

  const cwd = d(await resolveExisting(spec.cwd));
  const hiding = denied.find((p) => isWithin(cwd, p));
  if (hiding) throw new InvalidSandboxPathError("cwd", spec.cwd, `lies inside the denied-read path ${hiding}`);
  for (const root of writableRoots) {
    const over = denied.find((p) => isWithin(root, p));
    if (over) {
      throw new SeatbeltSandboxError(
        "not-expressible",
        `the writable root ${root} lies inside the denied-read path ${over}: a directory cannot be both writable and hidden; ` +
          "remove the root or the denied path",
      );
    }
  }
  // A path rule holds a name, not a file: renaming a directory above a carve-out, a nested root or
  // a denied path would carry it out from under its rule. Those entries, and every root itself
  // (bubblewrap makes each a mount point, which cannot be renamed either), are pinned.
  const deniedAncestors = denied.flatMap((p) => {
    const root = writableRoots.filter((r) => isWithin(p, r) && r !== p).sort((a, b) => b.length - a.length)[0];
    return root ? between(root, p) : [];
  });
  const inReadOnly = (p: string) => readOnlyPaths.some((ro) => isWithin(p, ro));
  const pinnedPaths = unique([...writableRoots, ...roots.flatMap((r) => r.pinnedAncestors.map(d)), ...deniedAncestors]).filter((p) => !inReadOnly(p));
  return {
    writableRoots, readOnlyPaths, pinnedPaths, deniedReadPaths: denied,
    network: network.mode === "full",
    ...(opts.dedicatedTerminal ? { dedicatedTerminal: true } : {}),
    ...(network.proxy ? { proxy: { httpPort: network.proxy.httpPort, socksPort: network.proxy.socksPort } } : {}),
  };
}

/**
 * The Seatbelt run for `spec` under `policy` (which must need a sandbox): profile, parameters and
 * argv. Reads the filesystem (to resolve paths), changes nothing, runs nothing; any OS. `plan` and
 * `transform` both build their argv here, so a dry run shows exactly what a run spawns.
 */
export async function seatbeltRun(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions): Promise<SeatbeltRun> {
  if (policy.mode !== "read-only" && policy.mode !== "workspace-write") {
    throw new SeatbeltSandboxError("not-expressible", `policy "${policy.mode}" needs no Seatbelt profile`);
  }
  // The route is checked before the filesystem is read: a bad route is the caller's error whatever the paths.
  const network = seatbeltNetwork(spec, policy, opts.networkProxy);
  const input = await profileInput(spec, policy, opts, network);
  const profile = buildSeatbeltProfile(input);
  return { argv: sandboxExecArgv(profile.text, profile.params, spec.argv), profile, input, network };
}

/**
 * What the Seatbelt backend would run for `spec` under `policy`, on any OS, with no side effects:
 * the `sandbox-exec` argv (profile and `-D` parameters included) and the plan behind it. `env`
 * holds the proxy variables of a proxy-routed run, `unsetEnv` the inherited proxy variables a run
 * with the network off drops; the manager adds the markers.
 */
export async function planSeatbeltRun(spec: CommandSpec, policy: SandboxPolicy, opts: TransformOptions): Promise<SandboxPlan> {
  if (!policyRequiresPlatformSandbox(policy)) {
    return {
      backend: "seatbelt", sandboxType: "none", isolation: "none", argv: [...spec.argv], cwd: spec.cwd, env: {}, unsetEnv: [],
      plan: { sandboxed: false, reason: `policy "${policy.mode}" needs no platform sandbox` },
    };
  }
  const run = await seatbeltRun(spec, policy, opts);
  return {
    backend: "seatbelt",
    sandboxType: "seatbelt",
    isolation: SEATBELT_ISOLATION,
    argv: run.argv,
    cwd: spec.cwd,
    env: { ...run.network.set },
    unsetEnv: [...run.network.unset],
    plan: {
      network: run.input.network,
      networkMode: run.network.mode,
      ...(run.network.proxy
        ? {
            proxy: {
              transport: "loopback-tcp",
              httpPort: run.network.proxy.httpPort,
              socksPort: run.network.proxy.socksPort,
              http: run.network.proxy.http,
              socks: run.network.proxy.socks,
              enforced: "outbound only to localhost:<httpPort> and localhost:<socksPort> (TCP); no DNS, no listening, no other address",
            },
          }
        : {}),
      writableRoots: [...run.input.writableRoots],
      readOnlyPaths: [...run.input.readOnlyPaths],
      pinnedPaths: [...run.input.pinnedPaths],
      deniedReadPaths: [...run.input.deniedReadPaths],
      parameters: Object.fromEntries(run.profile.params.map((p) => [p.name, p.value])),
      profile: run.profile.text,
      assumed: {
        sandboxExecPath: SANDBOX_EXEC_PATH,
        canonicalPaths: "symlinks resolved on this machine, then /tmp, /var and /etc moved under /private as macOS has them",
        note: "a real run first checks that this is macOS and that /usr/bin/sandbox-exec exists",
      },
    },
  };
}
