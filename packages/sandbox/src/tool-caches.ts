import fs from "node:fs";
import path from "node:path";
import { isPathWithin, realDirectoryOrUndefined } from "./paths.js";
import type { SandboxPolicy } from "./policy.js";

/** One variable that points a tool's cache at the sandbox's own directory. */
export interface ToolCacheVariable {
  /** The environment variable the tool reads. */
  readonly name: string;
  /** Where it points, relative to the sandbox tool-cache directory. */
  readonly subdir: string;
}

/** A tool whose downloads and build products a sandboxed run keeps apart from the host's. */
export interface ToolCacheEntry {
  readonly tool: string;
  readonly variables: readonly ToolCacheVariable[];
  /** What the variables move, and what a sandboxed run of the tool loses or keeps by it. */
  readonly note: string;
}

/**
 * The tools a sandboxed run gets private caches for. pnpm is not among them: its store variable
 * (`npm_config_store_dir`) makes every npm run warn about an unknown setting. The host's own
 * caches stay read-only to a sandboxed run:
 * they hold what the user's tools later run or link without checking again (`~/.npm/_npx`,
 * extracted crates, Go's build cache, pip's built wheels), so a sandboxed command that could write
 * them could plant code that runs outside the sandbox.
 */
export const SANDBOX_TOOL_CACHES: readonly ToolCacheEntry[] = Object.freeze([
  { tool: "npm", variables: [{ name: "npm_config_cache", subdir: "npm" }], note: "the package cache and npx's install directory (`_npx`)" },
  { tool: "pip", variables: [{ name: "PIP_CACHE_DIR", subdir: "pip" }], note: "downloads and the wheels pip builds" },
  {
    tool: "go",
    variables: [
      { name: "GOMODCACHE", subdir: "go/mod" },
      { name: "GOCACHE", subdir: "go/build" },
    ],
    note: "the module cache and the build cache; GOPATH (and `go install`'s `bin`) is left alone",
  },
  {
    tool: "cargo",
    variables: [{ name: "CARGO_HOME", subdir: "cargo" }],
    note:
      "cargo keeps its registry in CARGO_HOME and has no variable for the registry alone, so CARGO_HOME moves whole: " +
      "sandboxed cargo does not read ~/.cargo/config.toml or ~/.cargo/credentials.toml, and `cargo install` puts " +
      "programs in the sandbox's cargo/bin, which nothing on the host runs; rustup's toolchains (RUSTUP_HOME) are unchanged",
  },
  {
    tool: "yarn",
    variables: [
      { name: "YARN_CACHE_FOLDER", subdir: "yarn/cache" },
      { name: "YARN_GLOBAL_FOLDER", subdir: "yarn/global" },
    ],
    note: "the package cache (Yarn 1 and 2+) and Yarn 2+'s global folder, where its shared cache lives",
  },
]);

// Where the caches live is a per-user path like every other: @shellgate/user-paths computes it.
export { SANDBOX_TOOL_CACHE_DIR_NAME, sandboxToolCacheDir } from "@shellgate/user-paths";

/** Every variable of {@link SANDBOX_TOOL_CACHES} with the path it gets under `dir`. */
export function toolCacheVariables(dir: string): Array<{ tool: string; name: string; value: string }> {
  return SANDBOX_TOOL_CACHES.flatMap((entry) =>
    entry.variables.map((v) => ({ tool: entry.tool, name: v.name, value: path.join(dir, ...v.subdir.split("/")) })),
  );
}

/** Whether a run under the tool caches had them, and if not why. */
export type ToolCacheStatus =
  | {
      kind: "active";
      /** The directory (canonical) made a writable root of the run. */
      dir: string;
      /** Variables of the command's environment that named another location and were replaced (names only). */
      replaced: string[];
      /** Set when the directory lies inside this writable root of the run, and so was not made a root of its own. */
      within?: string;
    }
  | { kind: "off"; reason: string };

/** What {@link applyToolCaches} needs. */
export interface ApplyToolCachesInput {
  /** The run's policy; only `workspace-write` gets caches (nothing else has a writable root to add). */
  policy: SandboxPolicy;
  /** The command's complete environment. */
  env: Readonly<Record<string, string>>;
  /** The workspace (the policy cwd). */
  cwd: string;
  /** The tool-cache directory ({@link sandboxToolCacheDir}); undefined: no caches. */
  dir: string | undefined;
}

/** The run with its tool caches: the policy with the directory as one more writable root, and the environment. */
export interface ToolCacheRun {
  policy: SandboxPolicy;
  env: Record<string, string>;
  status: ToolCacheStatus;
}

/** The caller's own directory, made (0700) if missing: a directory, not a link, ours, no access for others. */
function ensurePrivateDir(dir: string): string | undefined {
  // Opened without following a link, so the checks and the chmod apply to the entry itself. Tried
  // first: the directory is there on every run but the first, and making it first would cost every
  // run a failed mkdir (an exception) and a walk of its parents.
  const open = () => fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  let fd: number;
  try {
    try {
      fd = open();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
      try {
        fs.mkdirSync(dir, { mode: 0o700 });
      } catch (made) {
        if ((made as NodeJS.ErrnoException).code !== "EEXIST") throw made;
      }
      fd = open();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENOTDIR") return "is not a directory (a symbolic link or a file)";
    throw error;
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return `is owned by uid ${st.uid}, not by this user (uid ${uid})`;
    if ((st.mode & 0o077) !== 0) fs.fchmodSync(fd, 0o700);
  } finally {
    fs.closeSync(fd);
  }
  return undefined;
}

/** The run's other writable roots, canonical: the workspace, the policy's roots and the temp dirs it keeps writable. */
function otherRoots(policy: Extract<SandboxPolicy, { mode: "workspace-write" }>, env: Readonly<Record<string, string>>, cwd: string): string[] {
  const candidates = [cwd, ...policy.writableRoots];
  const tmpdir = env["TMPDIR"];
  if (!policy.excludeTmpdirEnvVar && tmpdir && path.isAbsolute(tmpdir)) candidates.push(tmpdir);
  if (!policy.excludeSlashTmp && process.platform !== "win32") candidates.push("/tmp");
  return candidates.flatMap((p) => realDirectoryOrUndefined(p) ?? []);
}

/**
 * Give a sandboxed run its own tool caches ({@link SANDBOX_TOOL_CACHES}): the directory is created
 * (0700, checked without following links: a directory owned by this user), made one more writable
 * root of the policy, and the tools' variables point into it. The sandbox's values replace whatever
 * the command's environment had for them (any letter case, as npm reads its variables): a host cache
 * named there is exactly what must not become writable, and it does not — the run then simply uses
 * the sandbox's cache. Only for a run that will be sandboxed with writable roots: call it for the
 * policy the run gets, never for one that runs unsandboxed (those keep the host's caches and
 * variables). `off`, with the run unchanged, when the policy is not `workspace-write`, no directory
 * is known, or the directory is not a private one of this user. A directory inside another writable
 * root (a home under /tmp) is used where it is, without a root of its own (`within`).
 */
export function applyToolCaches(input: ApplyToolCachesInput): ToolCacheRun {
  const { policy, env } = input;
  const off = (reason: string): ToolCacheRun => ({ policy, env: { ...env }, status: { kind: "off", reason } });
  if (policy.mode !== "workspace-write") return off(`the ${policy.mode} policy has no writable roots`);
  if (input.dir === undefined) return off("no cache directory is known (neither XDG_CACHE_HOME nor HOME is an absolute path)");
  if (!path.isAbsolute(input.dir)) return off(`${input.dir} is not an absolute path`);
  let problem: string | undefined;
  try {
    problem = ensurePrivateDir(input.dir);
  } catch (error) {
    problem = `cannot be created: ${(error as Error).message}`;
  }
  if (problem) return off(`${input.dir} ${problem}`);
  const dir = fs.realpathSync.native(input.dir);
  // Inside another writable root (a home under /tmp) the directory is writable already, and is not
  // made a root of its own (a command could rename it away from under the mount); the variables
  // still point there, so the tools leave the host's caches alone. Whatever a command could do to it
  // there, it could do anyway: only sandboxed runs use it, and the next run checks it again.
  const inside = otherRoots(policy, env, input.cwd).find((root) => isPathWithin(dir, root));

  const variables = toolCacheVariables(dir);
  const next: Record<string, string> = { ...env };
  const replaced = new Set<string>();
  for (const v of variables) {
    for (const name of Object.keys(next)) {
      if (name.toLowerCase() !== v.name.toLowerCase()) continue;
      if (name !== v.name || next[name] !== v.value) replaced.add(name);
      delete next[name];
    }
    next[v.name] = v.value;
  }
  return {
    policy: inside ? policy : { ...policy, writableRoots: [...policy.writableRoots, dir] },
    env: next,
    status: { kind: "active", dir, replaced: [...replaced].sort(), ...(inside ? { within: inside } : {}) },
  };
}
