import { splitCommandWords, type GitConfigEntry } from "./git-config-parse.js";

/**
 * Something a config entry makes git read or run, as written (not yet expanded: `~/`, relative
 * paths and the platform's separators are the caller's):
 * - `include`: a config file (`include.path`, `includeIf.<condition>.path`), relative to the
 *   including file's directory;
 * - `code-path`: a directory git runs or copies hooks from (`core.hooksPath`, `init.templateDir`),
 *   relative to the worktree's top;
 * - `program`: the program of a command value, relative to the worktree's top; held whether it
 *   exists or not, since the command could otherwise create it;
 * - `argument`: a later word of a command value that is a path; held only when it is a regular
 *   file, a script the program runs (`node ./x.js`), so that an argument like `s/a/b/` is not made
 *   into a placeholder directory and `cd /tmp` does not make a whole root read-only.
 */
export interface GitConfigReference {
  kind: "include" | "code-path" | "program" | "argument";
  value: string;
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
function isCommandKey({ section, subsection, name, value }: GitConfigEntry): boolean {
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
function isCodePathKey({ section, subsection, name }: GitConfigEntry): boolean {
  if (subsection !== undefined) return false;
  return (section === "core" && name === "hookspath") || (section === "init" && name === "templatedir");
}

/**
 * What `entry` makes git read or run (see `GitConfigReference`). A command value is split into
 * words as `sh` would (after a leading `!`); a word is a path when it holds a `/` or starts with `~`
 * (after `name=` in an option word); other words are found on `PATH` and are not referenced here.
 */
export function gitConfigReferences(entry: GitConfigEntry): GitConfigReference[] {
  const value = entry.value;
  if (value === undefined || value === "") return [];
  const isInclude = entry.name === "path" && (entry.section === "include" || (entry.section === "includeif" && entry.subsection !== undefined));
  if (isInclude) return [{ kind: "include", value }];
  if (isCodePathKey(entry)) return [{ kind: "code-path", value }];
  if (!isCommandKey(entry)) return [];
  const refs: GitConfigReference[] = [];
  for (const [i, raw] of splitCommandWords(value.startsWith("!") ? value.slice(1) : value).entries()) {
    const word = raw.startsWith("-") && raw.includes("=") ? raw.slice(raw.indexOf("=") + 1) : raw;
    if (word.includes("/") || word.startsWith("~")) refs.push({ kind: i === 0 ? "program" : "argument", value: word });
  }
  return refs;
}

/** The key of an entry as git spells it for a person: `section.subsection.name` (section and name lower-cased). */
export function gitConfigKey(entry: GitConfigEntry): string {
  return entry.subsection === undefined ? `${entry.section}.${entry.name}` : `${entry.section}.${entry.subsection}.${entry.name}`;
}
