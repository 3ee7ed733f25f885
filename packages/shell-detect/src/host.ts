import { accessSync, constants, statSync } from "node:fs";
import { userInfo } from "node:os";
import { posix, win32 } from "node:path";
import type { DetectOptions } from "./types.js";

/** DetectOptions with every input filled in from the real machine where the caller left it out. */
export interface Host {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  userShell: string | null;
  isExecutable: (path: string) => boolean;
  which: (name: string) => string | null;
}

/** True when `path` is a regular file we may execute (on Windows, existence as a file is enough). */
export function isExecutableFile(path: string, platform: NodeJS.Platform = process.platform): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (platform === "win32") return true;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function realUserShell(): string | null {
  try {
    const shell = userInfo().shell;
    return shell && shell.length > 0 ? shell : null;
  } catch {
    // No passwd entry for this uid (containers with arbitrary uids): the next source decides.
    return null;
  }
}

/** Case-insensitive env lookup on Windows, where `Path` and `PATH` are the same variable. */
export function envGet(env: Host["env"], platform: NodeJS.Platform, name: string): string | undefined {
  const direct = env[name];
  if (direct !== undefined || platform !== "win32") return direct;
  const key = Object.keys(env).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : env[key];
}

/** A PATH lookup that follows the target platform's rules (`;` and PATHEXT on Windows). */
function makeWhich(
  platform: NodeJS.Platform,
  env: Host["env"],
  isExecutable: (path: string) => boolean,
): (name: string) => string | null {
  const windows = platform === "win32";
  const path = windows ? win32 : posix;
  return (name) => {
    if (name.length === 0 || name.includes("/") || (windows && name.includes("\\"))) return null;
    const dirs = (envGet(env, platform, "PATH") ?? "")
      .split(path.delimiter)
      // Windows PATH entries may be quoted; an empty entry would mean the current directory: skipped.
      .map((d) => (windows ? d.replace(/^"(.*)"$/, "$1") : d))
      .filter((d) => d.length > 0);
    const exts = windows && !/\.[^.\\/]+$/.test(name)
      ? (envGet(env, platform, "PATHEXT") ?? ".COM;.EXE;.BAT;.CMD").split(";").filter((e) => e.length > 0)
      : [""];
    for (const dir of dirs) {
      for (const ext of exts) {
        const candidate = path.join(dir, name + ext.toLowerCase());
        if (isExecutable(candidate)) return candidate;
      }
    }
    return null;
  };
}

/** Fill in the machine's real inputs for whatever the caller did not inject. */
export function resolveHost(opts: DetectOptions = {}): Host {
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const isExecutable = opts.isExecutable ?? ((p: string) => isExecutableFile(p, platform));
  const userShell = opts.userShell !== undefined ? opts.userShell : platform === "win32" ? null : realUserShell();
  const which = opts.which ?? makeWhich(platform, env, isExecutable);
  return { platform, env, userShell, isExecutable, which };
}
