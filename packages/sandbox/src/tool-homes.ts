import path from "node:path";
import { observedFs, type ObservedStats } from "./observed-fs.js";
import { isPathWithin, traceSymlinks, type LstatCache } from "./paths.js";

/**
 * Below the home directory: what the host reads at start-up or runs from settings (shell rc files,
 * git and package-manager settings, the desktop's and systemd's start-up entries), `/`-separated.
 */
const HOME_STARTUP_DIRS: readonly string[] = Object.freeze([
  ".config/fish", ".config/environment.d", ".config/systemd", ".config/autostart", ".config/git", ".config/pip", ".pip",
]);
const HOME_STARTUP_FILES: readonly string[] = Object.freeze([
  ".profile", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",
  ".gitconfig", ".yarnrc", ".yarnrc.yml",
]);

/** One credential store below the home directory. */
export interface HomeCredentialPath {
  /** Absolute path. */
  readonly path: string;
  /**
   * A directory is held read-only existing or not (a missing one as an empty placeholder, so a
   * command cannot create it); a file only when it exists (a directory where a tool expects a
   * file would break it, see `ToolHomeEntry.protectFiles`).
   */
  readonly directory: boolean;
}

// `/`-separated, relative to the home directory. ~/.docker whole: config.json holds registry
// tokens and names the credential helper program docker runs.
const CREDENTIAL_DIRS: readonly string[] = Object.freeze([
  ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".pki", ".password-store", ".config/gcloud", ".config/gh", ".local/share/keyrings",
]);
const CREDENTIAL_FILES: readonly string[] = Object.freeze([".netrc", ".git-credentials", ".npmrc", ".pypirc"]);

/**
 * The credential stores under `home`: ssh and gpg keys, cloud and cluster credentials, registry
 * tokens, password stores and keyrings (macOS: `~/Library/Keychains` too). The one list of them:
 * they stay read-only in every sandbox whose writable roots contain them (`toolHomeCarveOuts`), and
 * no denial ever suggests one, or a directory holding one, as a writable root.
 */
export function homeCredentialPaths(home: string, platform: NodeJS.Platform = process.platform): HomeCredentialPath[] {
  const dirs = platform === "darwin" ? [...CREDENTIAL_DIRS, "Library/Keychains"] : CREDENTIAL_DIRS;
  const at = (rel: string) => path.join(home, ...rel.split("/"));
  return [...dirs.map((d) => ({ path: at(d), directory: true })), ...CREDENTIAL_FILES.map((f) => ({ path: at(f), directory: false }))];
}

/** What the host reads at start-up below `home` (shell rc files, git settings, start-up entries): held like tool code, never suggested. */
export function homeStartupPaths(home: string): HomeCredentialPath[] {
  const at = (rel: string) => path.join(home, ...rel.split("/"));
  return [...HOME_STARTUP_DIRS.map((d) => ({ path: at(d), directory: true })), ...HOME_STARTUP_FILES.map((f) => ({ path: at(f), directory: false }))];
}

/** Where a tool keeps its home: variables that move it (the first absolute one wins) and its default under HOME. */
export interface ToolHomeLocation {
  /** Variables naming the home; a list variable (`GOPATH`) counts every absolute entry. */
  readonly variables: readonly string[];
  /** Default, relative to the home directory (`/`-separated); `""` is the home directory itself. */
  readonly default?: string;
  /** Default on macOS where it differs. */
  readonly darwinDefault?: string;
}

/** A tool home and what in it stays read-only when a writable root is, contains or lies inside it. */
export interface ToolHomeEntry {
  readonly tool: string;
  readonly home: ToolHomeLocation;
  /** Directories (relative to the home, `/`-separated) held read-only, existing or not; `"."` is the whole home. */
  readonly protect: readonly string[];
  /**
   * Files held read-only when they exist. A missing one cannot be held: the sandbox holds a missing
   * name with an empty directory, and a directory where a shell, git or npm expects a file breaks
   * them, inside the sandbox and on the host, for as long as the run lasts.
   */
  readonly protectFiles?: readonly string[];
  /** What the host does with them, which is why a sandboxed command must not write them. */
  readonly why: string;
}

/**
 * Tool homes whose contents the host later runs: programs on PATH, files shells source, settings
 * that name a program to run, and caches the host's tools use without checking them again. When a
 * writable root is one of these homes or contains it, the `protect` directories become read-only
 * carve-outs (missing ones are held too) and so do the `protectFiles` that exist; a root inside one
 * of them is read-only as a whole.
 * Python's site-packages are protected through the whole `lib` directory: a new `.pth` file, which
 * every Python start executes, cannot be pinned by name before it exists.
 */
export const TOOL_HOMES: readonly ToolHomeEntry[] = Object.freeze([
  {
    tool: "cargo",
    home: { variables: ["CARGO_HOME"], default: ".cargo" },
    protect: ["bin", "registry", "git"],
    protectFiles: ["env", "env.fish", "env.nu", "config", "config.toml", "credentials", "credentials.toml"],
    why:
      "bin is on PATH; shells source env; config.toml can name a program every cargo build runs (build.rustc-wrapper, a target runner); " +
      "registry and git hold the crates' sources (build scripts included) that host builds compile without fetching them again",
  },
  {
    tool: "rustup",
    home: { variables: ["RUSTUP_HOME"], default: ".rustup" },
    protect: ["."],
    why: "the toolchains the host's cargo and rustc run, and the settings that choose them",
  },
  {
    tool: "go",
    home: { variables: ["GOPATH"], default: "go" },
    // Not `src`: GOPATH-mode projects live there, and a workspace inside it must stay writable.
    protect: ["bin", "pkg"],
    why: "bin is on PATH (go install); pkg/mod holds module sources host builds compile without verifying them again",
  },
  {
    tool: "go",
    home: { variables: ["GOCACHE"], default: ".cache/go-build", darwinDefault: "Library/Caches/go-build" },
    protect: ["."],
    why: "compiled packages the host's go links into the programs it builds",
  },
  {
    tool: "python",
    home: { variables: ["PYTHONUSERBASE"], default: ".local", darwinDefault: "Library/Python" },
    protect: ["bin", "lib"],
    why: "bin is on PATH; lib holds the user site-packages, whose .pth files and usercustomize.py run at every Python start",
  },
  {
    tool: "pip",
    home: { variables: ["PIP_CACHE_DIR"], default: ".cache/pip", darwinDefault: "Library/Caches/pip" },
    protect: ["."],
    why: "the wheels pip built, which the host's pip installs without building them again",
  },
  {
    tool: "npm",
    home: { variables: ["npm_config_cache", "NPM_CONFIG_CACHE"], default: ".npm" },
    protect: ["_npx", "_cacache"],
    why: "_npx holds the packages npx runs; _cacache's index tells the host's npm which metadata and tarballs to install without fetching them",
  },
  {
    tool: "npm",
    home: { variables: ["npm_config_prefix", "NPM_CONFIG_PREFIX"] },
    protect: ["bin", "lib"],
    why: "the global installs (npm install -g): their programs are on PATH",
  },
  {
    tool: "yarn",
    home: { variables: ["YARN_CACHE_FOLDER"], default: ".cache/yarn", darwinDefault: "Library/Caches/Yarn" },
    protect: ["."],
    why: "package archives the host's yarn installs from",
  },
  {
    tool: "yarn",
    home: { variables: ["YARN_GLOBAL_FOLDER"], default: ".yarn" },
    protect: ["."],
    why: "yarn's global packages and their programs (~/.yarn/bin on PATH) and Yarn 2+'s shared cache",
  },
  {
    tool: "pnpm",
    home: { variables: ["PNPM_HOME"], default: ".local/share/pnpm", darwinDefault: "Library/pnpm" },
    protect: ["."],
    why: "pnpm's global programs (on PATH) and its store",
  },
  {
    tool: "shell, git, ssh and package managers",
    home: { variables: [], default: "" },
    // The credential stores are held through `homeCredentialPaths` (below), the one list of them.
    protect: HOME_STARTUP_DIRS,
    protectFiles: HOME_STARTUP_FILES,
    why:
      "files shells source at start, git settings that run programs (core.fsmonitor, core.pager, aliases), the desktop's and " +
      "systemd's start-up entries, and package-manager settings that choose the registry",
  },
]);

/** Every absolute location of a home: the variables' (GOPATH-style lists split) and the default under `home`. */
function locationsOf(entry: ToolHomeEntry, env: Readonly<Record<string, string | undefined>>, home: string | undefined, platform: NodeJS.Platform): string[] {
  const found: string[] = [];
  for (const name of entry.home.variables) {
    for (const part of (env[name] ?? "").split(path.delimiter)) if (part && path.isAbsolute(part)) found.push(part);
  }
  const rel = platform === "darwin" ? (entry.home.darwinDefault ?? entry.home.default) : entry.home.default;
  if (home !== undefined && rel !== undefined) found.push(rel === "" ? home : path.join(home, ...rel.split("/")));
  return found;
}

/** Who this process is, for judging mode bits; undefined where there are no uids (Windows). */
interface Identity {
  uid: number;
  gids: ReadonlySet<number>;
}

function identity(): Identity | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  return { uid, gids: new Set([...(process.getgroups?.() ?? []), ...(process.getgid ? [process.getgid()] : [])]) };
}

/**
 * What the mode bits of `st` grant `who` (`bits`: 4 read, 2 write, 1 search), judged by owner,
 * group and other as an unprivileged process is: root's capability to override them does not carry
 * into the sandbox's user namespace.
 */
function modeGrants(st: ObservedStats, bits: number, who: Identity | undefined): boolean {
  if (who === undefined) return true;
  const shift = st.uid === who.uid ? 6 : who.gids.has(st.gid) ? 3 : 0;
  return ((st.mode >> shift) & bits) === bits;
}

/**
 * Whether a sandboxed command of this user could put something at `p`: every directory on the way
 * can be searched, and `p` exists or its nearest existing ancestor can be written. A path behind a
 * directory this user cannot enter is out of the command's reach, and holding it would fail (the
 * sandbox could not find it to mount it).
 */
function reachable(p: string, who: Identity | undefined, cache: LstatCache): boolean {
  const lstat = (q: string): ObservedStats | undefined => {
    if (cache.has(q)) return cache.get(q);
    let st: ObservedStats | undefined;
    try {
      st = observedFs.lstat(q);
    } catch {
      st = undefined;
    }
    cache.set(q, st);
    return st;
  };
  const parts = p.split(path.sep).filter(Boolean);
  let cur = path.parse(p).root;
  let dir = lstat(cur);
  for (const [i, part] of parts.entries()) {
    if (!dir || !modeGrants(dir, 1, who)) return false;
    const next = cur.endsWith(path.sep) ? `${cur}${part}` : `${cur}${path.sep}${part}`;
    const st = lstat(next);
    if (!st) return dir.isDirectory() && modeGrants(dir, 3, who);
    if (i === parts.length - 1) return true;
    cur = next;
    dir = st;
  }
  return true;
}

/**
 * The tool-home paths ({@link TOOL_HOMES}) that a set of writable roots must keep read-only: each
 * protected path that lies inside a root, or that contains a root (the root is then read-only as a
 * whole); paths this user cannot reach are left out (see `reachable`). Homes are found from `hostEnv` (the host's own variables, `HOME` for the defaults: where
 * the user's tools look), each resolved through its symlinks, so a root compares with where the
 * home really is. Paths come back physical, ready for the caller's own tracing.
 */
export function toolHomeCarveOuts(
  roots: readonly string[],
  hostEnv: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
  cache?: LstatCache,
): string[] {
  if (platform === "win32" || roots.length === 0) return [];
  const homeVar = hostEnv["HOME"];
  const home = homeVar && path.isAbsolute(homeVar) ? homeVar : undefined;
  const out = new Set<string>();
  const who = identity();
  const lstats: LstatCache = cache ?? new Map();
  for (const entry of TOOL_HOMES) {
    for (const location of locationsOf(entry, hostEnv, home, platform)) {
      const real = traceSymlinks(location, lstats).real;
      const relates = (p: string) => roots.some((r) => isPathWithin(p, r) || isPathWithin(r, p));
      for (const sub of entry.protect) {
        const p = sub === "." ? real : path.join(real, ...sub.split("/"));
        if (relates(p) && reachable(p, who, lstats)) out.add(p);
      }
      for (const sub of entry.protectFiles ?? []) {
        const p = path.join(real, ...sub.split("/"));
        if (relates(p) && reachable(p, who, lstats) && lstats.get(p) !== undefined) out.add(p);
      }
    }
  }
  if (home !== undefined) {
    const realHome = traceSymlinks(home, lstats).real;
    for (const c of homeCredentialPaths(realHome, platform)) {
      const relates = roots.some((r) => isPathWithin(c.path, r) || isPathWithin(r, c.path));
      if (relates && reachable(c.path, who, lstats) && (c.directory || lstats.get(c.path) !== undefined)) out.add(c.path);
    }
  }
  return [...out];
}

/**
 * The tool home `dir` is, or lies in, with what stays read-only there: for telling a person what a
 * writable root would expose. `fullyReadOnly` when `dir` is inside a protected path (a root there
 * would be read-only as a whole). Undefined when `dir` belongs to no known home.
 */
export function toolHomeOf(
  dir: string,
  hostEnv: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
): { tool: string; home: string; readOnly: string[]; fullyReadOnly: boolean; why: string } | undefined {
  if (platform === "win32") return undefined;
  const homeVar = hostEnv["HOME"];
  const home = homeVar && path.isAbsolute(homeVar) ? homeVar : undefined;
  for (const entry of TOOL_HOMES) {
    if (entry.home.default === "") continue;
    for (const location of locationsOf(entry, hostEnv, home, platform)) {
      if (!isPathWithin(dir, location)) continue;
      const protectedPaths = entry.protect.map((sub) => (sub === "." ? location : path.join(location, ...sub.split("/"))));
      return {
        tool: entry.tool,
        home: location,
        readOnly: [...entry.protect, ...(entry.protectFiles ?? [])].filter((s) => s !== "."),
        fullyReadOnly: protectedPaths.some((p) => isPathWithin(dir, p)),
        why: entry.why,
      };
    }
  }
  return undefined;
}
