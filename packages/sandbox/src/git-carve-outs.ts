import path from "node:path";
import type { GitConfigOrigin } from "./errors.js";
import { splitCommandWords } from "./git-config-parse.js";
import { expandGitPath, keyOf, readGitConfigChain, readRegularFileNoFollow, type GitConfigReadContext, type GitSetting } from "./git-config-read.js";
import { lstatOrUndefined, traceSymlinks, type LstatCache } from "./paths.js";

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

/** Keys, as `section.name` without a subsection, whose value is a command git runs. */
const COMMAND_KEYS = new Set([
  "core.fsmonitor",
  "core.sshcommand",
  "core.editor",
  "core.pager",
  "core.askpass",
  "core.gitproxy",
  "sequence.editor",
  "diff.external",
  "gpg.program",
  "credential.helper",
  "interactive.difffilter",
  "sendemail.sendmailcmd",
  "uploadpack.packobjectshook",
]);

/** Whether `entry` holds a command git runs (`diff.<driver>.textconv`, `filter.<name>.clean`, …). */
function isCommandKey({ section, subsection, name, value }: GitSetting["entry"]): boolean {
  if (subsection === undefined) {
    if (COMMAND_KEYS.has(`${section}.${name}`)) return true;
    if (section === "pager") return true;
    return section === "alias" && (value ?? "").startsWith("!");
  }
  if (name === "textconv") return true;
  switch (section) {
    case "diff":
      return name === "command";
    case "merge":
      return name === "driver";
    case "filter":
      return name === "clean" || name === "smudge" || name === "process";
    case "credential":
      return name === "helper";
    case "gpg":
      return name === "program";
    case "difftool":
    case "mergetool":
      return name === "cmd";
    case "remote":
      return name === "uploadpack" || name === "receivepack";
    default:
      return false;
  }
}

/** Keys whose value is a directory or file git reads code from: hooks, and the template `git init` copies hooks from. */
function isCodePathKey({ section, subsection, name }: GitSetting["entry"]): boolean {
  if (subsection !== undefined) return false;
  return (section === "core" && name === "hookspath") || (section === "init" && name === "templatedir");
}

/**
 * The paths a command value names: every word that is a path (it holds a `/` or starts with `~`),
 * after a leading `!` and after `name=` in an option word. The first word is the program and is held
 * whether it exists or not (the command could otherwise create it); a later word only when it is a
 * regular file, a script the program runs (an argument like `s/a/b/` is not made into a placeholder
 * directory, and a directory argument like `cd /tmp` does not make a whole root read-only).
 */
function commandPaths(value: string, top: string | undefined, home: string | undefined): string[] {
  const words = splitCommandWords(value.startsWith("!") ? value.slice(1) : value);
  const found: string[] = [];
  for (const [i, raw] of words.entries()) {
    const word = raw.startsWith("-") && raw.includes("=") ? raw.slice(raw.indexOf("=") + 1) : raw;
    if (!word.includes("/") && !word.startsWith("~")) continue;
    const target = expandGitPath(word, top, home);
    if (target === undefined) continue;
    if (i === 0 || lstatOrUndefined(target)?.isFile()) found.push(target);
  }
  return found;
}

/** The text after `gitdir:` in a `.git` file, read safely; undefined when there is none. */
function gitdirOf(dotGit: string): string | undefined {
  const text = readRegularFileNoFollow(traceSymlinks(dotGit).real, dotGit);
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
      const common = readRegularFileNoFollow(commondirFile, commondirFile)?.trim();
      return { top, gitdir, common: common ? path.resolve(realGitdir, common) : gitdir };
    }
    if (path.dirname(top) === top) return undefined;
  }
}

/** The user-wide and system-wide config files git reads, in `env` (the host's environment). */
export function globalGitConfigFiles(env: Readonly<Record<string, string | undefined>>): string[] {
  const files: string[] = [];
  const home = env["HOME"];
  if (env["GIT_CONFIG_NOSYSTEM"] === undefined || /^(0|false|no|off)$/i.test(env["GIT_CONFIG_NOSYSTEM"] ?? "")) {
    files.push(env["GIT_CONFIG_SYSTEM"] || "/etc/gitconfig");
  }
  if (env["GIT_CONFIG_GLOBAL"]) {
    files.push(env["GIT_CONFIG_GLOBAL"]);
  } else {
    const xdg = env["XDG_CONFIG_HOME"] || (home ? path.join(home, ".config") : undefined);
    if (xdg) files.push(path.join(xdg, "git", "config"));
    if (home) files.push(path.join(home, ".gitconfig"));
  }
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
  for (const repo of repositories.values()) {
    for (const name of ["hooks", "info", "config"]) targets.push({ path: path.join(repo.common, name), origin: undefined });
    targets.push({ path: path.join(repo.gitdir, "config.worktree"), origin: undefined });
    const settings = [
      ...globalSettings,
      ...readGitConfigChain(path.join(repo.common, "config"), ctx),
      ...readGitConfigChain(path.join(repo.gitdir, "config.worktree"), ctx),
    ];
    for (const { entry, file } of settings) {
      if (entry.value === undefined) continue;
      const origin = { key: keyOf(entry), file, line: entry.line };
      if (isCodePathKey(entry)) {
        const target = expandGitPath(entry.value, repo.top, home);
        if (target !== undefined) targets.push({ path: target, origin });
      } else if (isCommandKey(entry)) {
        for (const target of commandPaths(entry.value, repo.top, home)) targets.push({ path: target, origin });
      }
    }
  }
  // Every config file read is held too (missing ones included: the command could create them).
  for (const { file, origin } of ctx.files) targets.push({ path: file, origin });
  return targets;
}
