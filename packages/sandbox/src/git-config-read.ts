import path from "node:path";
import { GitConfigUnreadableError, UnpinnableProtectedPathError, type GitConfigOrigin } from "./errors.js";
import { parseGitConfig, type GitConfigEntry } from "./git-config-parse.js";
import { gitConfigKey as keyOf, gitConfigReferences } from "./git-config-refs.js";
import { OPEN_FLAGS, observedFs, type ObservedFile, type ObservedStats } from "./observed-fs.js";
import { traceSymlinks, type LstatCache } from "./paths.js";

/** Largest config file read; git's own files are a few kilobytes, and a bigger one is refused, not truncated. */
const MAX_GIT_CONFIG_BYTES = 1024 * 1024;

/** Include depth followed, as git's own limit: a deeper chain makes git itself fail. */
const MAX_GIT_INCLUDE_DEPTH = 10;

/** Config files read for one computation at most (includes fan out); beyond it the run is refused. */
const MAX_GIT_CONFIG_FILES = 64;

function kindOf(stat: ObservedStats): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isDirectory()) return "a directory";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  if (stat.isSymbolicLink()) return "a symlink";
  return "not a regular file";
}

/**
 * The text of a regular file at `real` (a physical path: its links already traced), read without
 * following a last-component link and without blocking: a FIFO opens at once non-blocking and is
 * then refused by its type, so a planted FIFO can neither hang the host nor feed it. `shown` names
 * the file in errors. Undefined when the file is missing or this user may not read it (git cannot
 * either, and reads nothing from it).
 * @throws GitConfigUnreadableError for anything but a regular file, or one larger than `MAX_GIT_CONFIG_BYTES`.
 */
function readRegularFileNoFollow(real: string, shown: string): string | undefined {
  let read: ObservedFile;
  try {
    read = observedFs.readFile(real, OPEN_FLAGS.O_RDONLY | OPEN_FLAGS.O_NOFOLLOW | OPEN_FLAGS.O_NONBLOCK | OPEN_FLAGS.O_NOCTTY, MAX_GIT_CONFIG_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES" || code === "EPERM") return undefined;
    if (code === "ELOOP") throw new GitConfigUnreadableError(shown, "it is a symlink that appeared while it was being read");
    if (code === "ENXIO") throw new GitConfigUnreadableError(shown, "it is a socket");
    throw new GitConfigUnreadableError(shown, `cannot be opened (${code ?? String(error)})`, undefined, { cause: error });
  }
  if (read.text === undefined) throw new GitConfigUnreadableError(shown, `it is ${kindOf(read.stats)}, not a regular file`);
  // A file that grew while it was read counts by what was read.
  if (read.size > MAX_GIT_CONFIG_BYTES || read.bytes > MAX_GIT_CONFIG_BYTES) {
    throw new GitConfigUnreadableError(shown, `it is larger than ${MAX_GIT_CONFIG_BYTES} bytes`);
  }
  return read.text;
}

/** One setting of a config file, with the file (as git would name it) it came from. */
export interface GitSetting {
  entry: GitConfigEntry;
  file: string;
}

/** A config file read (or missing), as git would open it, and the include key that named it. */
interface GitConfigFile {
  file: string;
  origin: GitConfigOrigin | undefined;
}

/** What reading configuration needs to know about the run being planned. */
export interface GitConfigReadContext {
  /** Whether a directory is writable in the run: a link there could be re-pointed. */
  isWritableDir: (dir: string) => boolean;
  /** The home directory `~/` stands for; undefined when unknown (such values are then not followed). */
  home: string | undefined;
  cache: LstatCache;
  /** Real paths read so far in this computation (cycles and shared includes are read once). */
  seen: Map<string, GitSetting[]>;
  /** Every config file reached, for pinning. */
  files: GitConfigFile[];
}


/**
 * Expand a path value the way git does for `include.path` and `core.hooksPath`: `~/` is the home
 * directory, a relative path is taken against `base`. Undefined for what cannot be placed here
 * (`~user/`, `%(prefix)/`, a relative path without a base, an empty value).
 */
export function expandGitPath(value: string, base: string | undefined, home: string | undefined): string | undefined {
  if (value === "") return undefined;
  if (value === "~" || value.startsWith("~/")) return home ? path.join(home, value.slice(1)) : undefined;
  if (value.startsWith("~") || value.startsWith("%(prefix)")) return undefined;
  if (path.isAbsolute(value)) return value;
  return base === undefined ? undefined : path.join(base, value);
}

/** Refuse a path reached through a link that sits in a writable directory. */
function checkTrace(given: string, links: readonly string[], ctx: GitConfigReadContext, origin: GitConfigOrigin | undefined): void {
  for (const link of links) {
    const dir = path.dirname(link);
    if (ctx.isWritableDir(dir)) throw new UnpinnableProtectedPathError(given, link, dir, origin);
  }
}

/**
 * Every setting of the config file `file` and, in place, of the files its `include.path` and
 * `includeIf.<condition>.path` name (conditions are not evaluated: a file that might be included
 * is read), to `MAX_GIT_INCLUDE_DEPTH`. Each file is traced first and refused when a link on its
 * way lies in a writable directory; it is then read without following links and without blocking.
 * A missing file reads as empty, as for git.
 * @throws UnpinnableProtectedPathError, GitConfigUnreadableError.
 */
export function readGitConfigChain(
  file: string,
  ctx: GitConfigReadContext,
  origin: GitConfigOrigin | undefined = undefined,
  depth = 0,
): GitSetting[] {
  const traced = traceSymlinks(file, ctx.cache);
  checkTrace(file, traced.links, ctx, origin);
  ctx.files.push({ file, origin });
  const known = ctx.seen.get(traced.real);
  if (known) return known;
  if (ctx.seen.size >= MAX_GIT_CONFIG_FILES) {
    throw new GitConfigUnreadableError(file, `more than ${MAX_GIT_CONFIG_FILES} config files are included`);
  }
  const settings: GitSetting[] = [];
  // Registered before the includes are read: a cycle meets this (partial) list and stops.
  ctx.seen.set(traced.real, settings);
  // `GIT_CONFIG_GLOBAL=/dev/null` is how a user (or a test) turns a config file off: git reads it as empty.
  if (traced.real === "/dev/null") return settings;
  const text = readRegularFileNoFollow(traced.real, file);
  if (text === undefined) return settings;
  for (const entry of parseGitConfig(text, file)) {
    settings.push({ entry, file });
    const include = gitConfigReferences(entry).find((ref) => ref.kind === "include");
    if (!include) continue;
    const target = expandGitPath(include.value, path.dirname(file), ctx.home);
    if (target === undefined) continue;
    if (depth + 1 > MAX_GIT_INCLUDE_DEPTH) continue;
    settings.push(...readGitConfigChain(target, ctx, { key: keyOf(entry), file, line: entry.line }, depth + 1));
  }
  return settings;
}
