import path from "node:path";
import { gitGlobalConfigFiles } from "@shellgate/user-paths";
import { SandboxNotRegularFileError, type GitConfigOrigin } from "./errors.js";
import { gitConfigKey as keyOf, gitConfigReferences } from "./git-config-refs.js";
import { expandGitPath, readGitConfigChain, type GitConfigReadContext } from "./git-config-read.js";
import { observedFs, type ObservedEntry } from "./observed-fs.js";
import { lstatIfReachable, lstatOrUndefined, readRegularFileSync, traceSymlinks, type LstatCache } from "./paths.js";

/**
 * A path git would run or read as configuration, to be held read-only where it lies in a writable
 * root; `origin` is the setting that named it (none for a repository's own `hooks`, `info`, `config`).
 */
export interface GitTarget {
  path: string;
  origin: GitConfigOrigin | undefined;
}

/** One repository whose configuration the host's git would read for a directory of the run. */
interface Repository {
  /** The worktree's top directory (relative settings are taken against it). */
  top: string;
  /** The directory holding `HEAD` and, for a linked worktree, `config.worktree`. */
  gitdir: string;
  /** The shared repository (`commondir`), or `gitdir` itself. */
  common: string;
}

/** A regular file's text, as `readRegularFileSync` reads it; undefined when it cannot be opened. */
function regularTextOrUndefined(file: string, followLinks: boolean): string | undefined {
  try {
    return readRegularFileSync(file, { followLinks });
  } catch (error) {
    // A FIFO, socket or device is refused unread (it would block the host); a missing or
    // unreadable file names nothing.
    if (error instanceof SandboxNotRegularFileError) throw error;
    return undefined;
  }
}

/** The text after `gitdir:` in a `.git` file, read safely; undefined when there is none. */
function gitdirOf(dotGit: string): string | undefined {
  const text = regularTextOrUndefined(traceSymlinks(dotGit).real, false);
  const line = text?.split(/\r?\n/).find((l) => /^gitdir:/i.test(l.trim()));
  const target = line?.trim().slice("gitdir:".length).trim();
  return target ? path.resolve(path.dirname(dotGit), target) : undefined;
}

/**
 * The repository git finds for `dir`: the nearest `.git` at or above it (a directory, or a file
 * whose `gitdir:` names one), with its shared `commondir`. Undefined outside any repository.
 */
function repositoryOf(dir: string, cache: LstatCache, isWritableDir: (dir: string) => boolean): Repository | undefined {
  for (let top = dir; ; top = path.dirname(top)) {
    const dotGit = path.join(top, ".git");
    const stat = cache.has(dotGit) ? cache.get(dotGit) : lstatOrUndefined(dotGit);
    if (stat) {
      // A `.git` link in a writable directory is refused with the other carve-outs; it is not followed here.
      if (stat.isSymbolicLink() && isWritableDir(top)) return undefined;
      const gitdir = stat.isFile() ? gitdirOf(dotGit) : dotGit;
      if (gitdir === undefined) return undefined;
      const realGitdir = traceSymlinks(gitdir, cache).real;
      const commondirFile = path.join(realGitdir, "commondir");
      const common = regularTextOrUndefined(commondirFile, true)?.trim();
      return { top, gitdir, common: common ? path.resolve(realGitdir, common) : gitdir };
    }
    if (path.dirname(top) === top) return undefined;
  }
}

/** Submodule repositories looked at per superproject, and how deep their names go (`modules/a/b`). */
const MAX_SUBMODULES = 256;
const MAX_SUBMODULE_DEPTH = 6;

/**
 * The submodule repositories under `<common>/modules` (a directory holding `HEAD` is one; nested
 * submodules have their own `modules/`), each with its worktree from its `core.worktree`, which git
 * writes relative to the module's directory. One without a worktree setting keeps relative values
 * unresolved (`top` is its own directory, where nothing relative of interest lies).
 */
function submodulesOf(common: string, ctx: GitConfigReadContext): Repository[] {
  const found: Repository[] = [];
  const visit = (dir: string, depth: number) => {
    if (depth > MAX_SUBMODULE_DEPTH || found.length >= MAX_SUBMODULES) return;
    let entries: ObservedEntry[];
    try {
      entries = observedFs.readdir(dir);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory || found.length >= MAX_SUBMODULES) continue;
      const gitdir = path.join(dir, entry.name);
      if (!lstatOrUndefined(path.join(gitdir, "HEAD"))?.isFile()) {
        visit(gitdir, depth + 1);
        continue;
      }
      const settings = readGitConfigChain(path.join(gitdir, "config"), ctx);
      const worktree = settings.filter(({ entry: e }) => e.section === "core" && e.subsection === undefined && e.name === "worktree").at(-1)?.entry.value;
      found.push({ top: worktree ? path.resolve(gitdir, worktree) : gitdir, gitdir, common: gitdir });
      visit(path.join(gitdir, "modules"), depth + 1);
    }
  };
  visit(path.join(common, "modules"), 0);
  return found;
}

/** The user-wide and system-wide config files git reads, in `env` (the host's environment). */
function globalGitConfigFiles(env: Readonly<Record<string, string | undefined>>): string[] {
  const files: string[] = [];
  if (env["GIT_CONFIG_NOSYSTEM"] === undefined || /^(0|false|no|off)$/i.test(env["GIT_CONFIG_NOSYSTEM"] ?? "")) {
    files.push(env["GIT_CONFIG_SYSTEM"] || "/etc/gitconfig");
  }
  files.push(...gitGlobalConfigFiles(env));
  return files.filter((f) => path.isAbsolute(f));
}

/** What `gitCarveOuts` needs from the computation of writable roots. */
export interface GitCarveOutOptions {
  /** Whether a directory is writable in the run (inside a root, not inside a carve-out). */
  isWritableDir: (dir: string) => boolean;
  /** The host's environment, whose git runs later: `HOME`, `XDG_CONFIG_HOME`, `GIT_CONFIG_*`. */
  env: Readonly<Record<string, string | undefined>>;
  cache: LstatCache;
}

/**
 * Everything git would run or read as configuration for the repositories of `roots` (the one at or
 * above each root): the repository's `config`, `config.worktree`, `hooks` and `info` (a link there
 * leads elsewhere, and the target is what must be held); every config file read, includes followed;
 * `core.hooksPath` and `init.templateDir`; and the program paths of every setting that names a
 * command (`core.fsmonitor`, `core.sshCommand`, `filter.*.clean`, `diff.*.textconv`, …). Relative
 * values are taken against the worktree's top, as git runs them there. The caller traces each one,
 * refuses one reached through a link in a writable directory, and holds those inside a root.
 * Attributes files and `.gitmodules` are not followed: they only select filters and drivers that
 * config defines, and they cannot name a program of their own.
 * @throws UnpinnableProtectedPathError for a config file reached through a link in a writable directory.
 * @throws GitConfigUnreadableError for a config file that is not a regular file, too large, or malformed.
 */
export function gitCarveOuts(roots: readonly string[], options: GitCarveOutOptions): GitTarget[] {
  const home = options.env["HOME"] && path.isAbsolute(options.env["HOME"]) ? options.env["HOME"] : undefined;
  const ctx: GitConfigReadContext = { isWritableDir: options.isWritableDir, home, cache: options.cache, seen: new Map(), files: [] };
  const globalSettings = globalGitConfigFiles(options.env).flatMap((file) => readGitConfigChain(file, ctx));
  const targets: GitTarget[] = [];
  const repositories = new Map<string, Repository>();
  for (const root of roots) {
    const repo = repositoryOf(root, options.cache, options.isWritableDir);
    if (repo && !repositories.has(repo.gitdir)) repositories.set(repo.gitdir, repo);
  }
  const found = [...repositories.values()];
  // Submodules: their repositories live in the superproject's `modules/`, held with it, but their
  // config can name hooks and programs in their own worktree, which lies in the root.
  for (const repo of repositories.values()) found.push(...submodulesOf(repo.common, ctx));
  for (const repo of found) {
    for (const name of ["hooks", "info", "config"]) targets.push({ path: path.join(repo.common, name), origin: undefined });
    targets.push({ path: path.join(repo.gitdir, "config.worktree"), origin: undefined });
    const settings = [
      ...globalSettings,
      ...readGitConfigChain(path.join(repo.common, "config"), ctx),
      ...readGitConfigChain(path.join(repo.gitdir, "config.worktree"), ctx),
    ];
    for (const { entry, file } of settings) {
      const origin = { key: keyOf(entry), file, line: entry.line };
      for (const ref of gitConfigReferences(entry)) {
        if (ref.kind === "include") continue; // read (and held) by readGitConfigChain
        const target = expandGitPath(ref.value, repo.top, home);
        if (target === undefined) continue;
        // A script argument is held only when it is one: see `gitConfigReferences`.
        if (ref.kind === "argument" && !lstatIfReachable(target)?.isFile()) continue;
        targets.push({ path: target, origin });
      }
    }
  }
  // Every config file read is held too, a missing one included where a config names it (an
  // include the command could otherwise create). The files git looks for on its own (`~/.gitconfig`,
  // `$XDG_CONFIG_HOME/git/config`, the system file) are held only when they exist: a missing one
  // could be held only by an empty directory, and git — the person's too, while the run lasts —
  // fails on a directory in a config file's place. (A home inside a writable root is a broad grant;
  // the missing file is then creatable, as the missing rc files of a tool home are.)
  const defaults = new Set(globalGitConfigFiles(options.env));
  for (const { file, origin } of ctx.files) {
    if (defaults.has(file) && lstatIfReachable(file) === undefined) continue;
    targets.push({ path: file, origin });
  }
  return targets;
}
