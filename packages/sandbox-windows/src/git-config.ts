// What git would run or read for a repository in a writable root, on Windows paths: the same
// references as the shared computation (`gitConfigReferences` of `@shellgate/sandbox`), resolved
// with Windows rules and read through the planner's file system view.
import { GitConfigUnreadableError, gitConfigKey, gitConfigReferences, parseGitConfig, type GitConfigOrigin } from "@shellgate/sandbox";
import type { WinFsView } from "./win-fs.js";
import { isWithinWin, resolveFrom, winDirname, winJoin, winKey } from "./win-path.js";

/** Include depth followed, as git's own limit. */
const MAX_INCLUDE_DEPTH = 10;
/** Config files read at most for one plan; more refuse the run. */
const MAX_CONFIG_FILES = 64;

/** A path git would run or read, with the setting that named it (none for the repository's own files). */
export interface WinGitTarget {
  path: string;
  origin: GitConfigOrigin | undefined;
}

/** What `windowsGitCarveOuts` needs from the computation of writable roots. */
export interface WinGitOptions {
  fs: WinFsView;
  /** The environment of the person's git: `HOME` or `USERPROFILE`, `GIT_CONFIG_GLOBAL`. */
  env: Readonly<Record<string, string>>;
  /** The writable roots (canonical). */
  roots: readonly string[];
  /**
   * Throws when `target` (inside `root`) is reached through a junction or link, which a command
   * could re-point; called before a config file inside a root is read.
   */
  check: (root: string, target: string, origin: GitConfigOrigin | undefined) => Promise<void>;
  /** Looks up an environment variable as Windows does (case-insensitively). */
  envValue: (env: Readonly<Record<string, string>>, name: string) => string | undefined;
}

/** `~/x` against the home directory, anything else against `base` as git would. */
function expand(value: string, base: string | undefined, home: string | undefined): string | undefined {
  if (value === "~" || value.startsWith("~/") || value.startsWith("~\\")) return home ? resolveFrom(home, value.slice(2) || ".") : undefined;
  if (value.startsWith("~") || value.startsWith("%(prefix)")) return undefined;
  return base === undefined ? undefined : resolveFrom(base, value);
}

/**
 * Every path git would run or read as configuration for the repository at the top of each root:
 * its `config`, `config.worktree`, `hooks` and `info`, every config file included (followed in
 * place, whatever the condition), `core.hooksPath`, `init.templateDir` and the programs of command
 * settings (see `gitConfigReferences`), from the repository's config and the user's global one.
 * @throws UnpinnableProtectedPathError (from `check`) for a config file reached through a junction or link in a root.
 * @throws GitConfigUnreadableError for a malformed config file, or more than 64 of them.
 */
export async function windowsGitCarveOuts(repos: ReadonlyArray<{ top: string; gitdir: string; common: string }>, options: WinGitOptions): Promise<WinGitTarget[]> {
  const { fs, env } = options;
  const home = options.envValue(env, "HOME") ?? options.envValue(env, "USERPROFILE");
  const seen = new Map<string, Array<{ entry: ReturnType<typeof parseGitConfig>[number]; file: string }>>();
  const files: WinGitTarget[] = [];

  const read = async (file: string, origin: GitConfigOrigin | undefined, depth: number): Promise<Array<{ entry: ReturnType<typeof parseGitConfig>[number]; file: string }>> => {
    const root = options.roots.find((r) => isWithinWin(file, r));
    if (root) await options.check(root, file, origin);
    files.push({ path: file, origin });
    const known = seen.get(winKey(file));
    if (known) return known;
    if (seen.size >= MAX_CONFIG_FILES) throw new GitConfigUnreadableError(file, `more than ${MAX_CONFIG_FILES} config files are included`);
    const settings: Array<{ entry: ReturnType<typeof parseGitConfig>[number]; file: string }> = [];
    seen.set(winKey(file), settings);
    const text = await fs.readText(file);
    if (text === undefined) return settings;
    for (const entry of parseGitConfig(text, file)) {
      settings.push({ entry, file });
      const include = gitConfigReferences(entry).find((ref) => ref.kind === "include");
      if (!include || depth + 1 > MAX_INCLUDE_DEPTH) continue;
      const target = expand(include.value, winDirname(file), home);
      if (target) settings.push(...(await read(target, { key: gitConfigKey(entry), file, line: entry.line }, depth + 1)));
    }
    return settings;
  };

  const globalFiles: string[] = [];
  const configured = options.envValue(env, "GIT_CONFIG_GLOBAL");
  if (configured) {
    // Only an absolute path can be placed here (a relative one is taken against git's own cwd).
    const p = /^[A-Za-z]:[\\/]|^[\\/]{2}/.test(configured) ? resolveFrom(configured, ".") : undefined;
    if (p) globalFiles.push(p);
  } else if (home) {
    // Git for Windows' defaults; a moved XDG config directory is not followed here (see the README).
    globalFiles.push(winJoin(home, ".config", "git", "config"), winJoin(home, ".gitconfig"));
  }
  const globalSettings = [];
  for (const f of globalFiles) globalSettings.push(...(await read(f, undefined, 0)));

  const targets: WinGitTarget[] = [];
  for (const repo of repos) {
    for (const name of ["hooks", "info", "config"]) targets.push({ path: winJoin(repo.common, name), origin: undefined });
    targets.push({ path: winJoin(repo.gitdir, "config.worktree"), origin: undefined });
    const settings = [...globalSettings, ...(await read(winJoin(repo.common, "config"), undefined, 0)), ...(await read(winJoin(repo.gitdir, "config.worktree"), undefined, 0))];
    for (const { entry, file } of settings) {
      const origin = { key: gitConfigKey(entry), file, line: entry.line };
      for (const ref of gitConfigReferences(entry)) {
        if (ref.kind === "include") continue;
        const target = expand(ref.value, repo.top, home);
        if (!target) continue;
        if (ref.kind === "argument" && (await fs.entry(target)).kind !== "file") continue;
        targets.push({ path: target, origin });
      }
    }
  }
  return [...targets, ...files];
}
