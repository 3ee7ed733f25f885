import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { programName, wrappedCommands } from "@shellgate/execpolicy";
import {
  computeWritableRoots,
  gitConfigKey,
  gitConfigReferences,
  isPathWithin,
  parseGitConfig,
  readRegularFileSync,
  traceSymlinks,
  type GitConfigEntry,
  type LstatCache,
  type ObservedStats,
  observedFs,
  type SandboxPolicy,
  type WritableRoot,
} from "@shellgate/sandbox";
import type { ApprovalPolicy } from "./approval-policy.js";
import { renderCommand, type ExecApprovalRequirement } from "./requirement.js";

/**
 * What an unsandboxed run would execute or read that a sandboxed command could have written:
 * - `program`: the program file (or a symlink on the way to it) lies in a writable root;
 * - `path_entry`: a PATH directory searched before the program is found lies in a writable root,
 *   so a sandboxed command can put a program of that name there at any time;
 * - `git_dir`: the repository git would use (its `.git`, the `gitdir:` it points to, its shared
 *   `commondir`) lies in a writable root and is not one the sandbox holds read-only;
 * - `git_config`: the repository's configuration (read-only to the sandbox or not) names a hooks
 *   directory, a program or an included file that lies where a sandboxed command can write
 *   (`core.hooksPath = .husky`, `core.fsmonitor = ./mon.sh`);
 * - `working_directory`: a script changes directory in a way that cannot be followed (`cd -`),
 *   so where its relative paths and repositories lead is unknown.
 */
export type SandboxWrittenKind = "program" | "path_entry" | "git_dir" | "git_config" | "working_directory";

/** One finding: the command it concerns, the path a sandboxed command can write, and the fact in words. */
export interface SandboxWrittenCode {
  kind: SandboxWrittenKind;
  command: string[];
  /** The resolved path (real path, or the symlink a sandboxed command can replace). */
  path: string;
  /** One sentence for people and models (raw: escape it before display). */
  text: string;
}

/** What the check needs: the command as given, its segments, and the run's directory, environment and writable roots. */
export interface SandboxWrittenInput {
  argv: readonly string[];
  /** Admission's segments; a split shell wrapper's commands in order. */
  segments: readonly (readonly string[])[];
  /** Whether the segments are the commands of a shell script (then `argv[0]` is the shell, and `cd` moves the rest). */
  script: boolean;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether a sandboxed command of this session could write the canonical path `p`. */
  writable: (p: string) => boolean;
}

/** Programs a shell runs itself, never from PATH: a script's `echo` is no file anyone wrote. */
const SHELL_BUILTINS = new Set([
  "cd", "pushd", "popd", "echo", "printf", "test", "[", "true", "false", ":", "export", "set", "unset", "pwd", "read", "exit", "return",
  "shift", "type", "local", "declare", "alias", "unalias", "wait", "jobs", "umask", "ulimit", "let", "getopts", "hash", "trap",
]);

/** git subcommands that use no repository of the working directory. */
const GIT_WITHOUT_REPOSITORY = new Set(["init", "clone", "version", "help", "ls-remote"]);

/** Whether a sandboxed command can write `p` under these roots (canonical paths; carve-outs stay read-only). */
export function writableUnder(roots: readonly WritableRoot[]): (p: string) => boolean {
  return (p) => roots.some((r) => isPathWithin(p, r.root) && !r.readOnlySubpaths.some((s) => isPathWithin(p, s)));
}

/**
 * The writable roots of a run exactly as the backend computes them (same cwd, environment and
 * protected paths), as a predicate; never writable for a policy without roots.
 */
export async function sandboxWritable(
  policy: SandboxPolicy,
  options: { cwd: string; env: Readonly<Record<string, string | undefined>>; protectedPaths?: readonly string[] },
): Promise<(p: string) => boolean> {
  const roots = await computeWritableRoots(policy, {
    cwd: options.cwd,
    env: options.env,
    ...(options.protectedPaths ? { protectedPaths: options.protectedPaths } : {}),
  });
  return writableUnder(roots);
}

/** lstat results of one check (a call looks up the same directories many times: PATH, git's walk). */
let lstatCache: LstatCache | undefined;

function lstatCached(p: string): ObservedStats | undefined {
  if (lstatCache?.has(p)) return lstatCache.get(p);
  const stat = observedFs.lstat(p);
  lstatCache?.set(p, stat);
  return stat;
}

/** `p` physically (the sandbox's own tracing): every symlink on the way followed and returned, missing tails kept as written. */
function trace(p: string): { real: string; links: string[] } {
  return traceSymlinks(p, lstatCache);
}

/** The first place on the way to `p` a sandboxed command controls: the real path, or a symlink it can replace. */
function controlledAlong(p: string, writable: (p: string) => boolean): string | undefined {
  const t = trace(p);
  if (writable(t.real)) return t.real;
  return t.links.find((link) => writable(link));
}

/** Whether a sandboxed command controls the program at absolute path `p`: its real path, or a symlink on the way. */
export function programControlled(writable: (p: string) => boolean): (p: string) => boolean {
  return (p) => controlledAlong(p, writable) !== undefined;
}

function isExecutableFile(p: string): boolean {
  const own = lstatCached(p);
  if (own === undefined) return false;
  try {
    if (!(own.isFile() || fs.statSync(p).isFile())) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function expandHome(p: string, env: SandboxWrittenInput["env"]): string {
  const home = env["HOME"] ?? os.homedir();
  return p === "~" ? home : p.startsWith("~/") ? path.join(home, p.slice(2)) : p;
}

/**
 * Everything an unsandboxed run of `input.argv` would execute, or let git read, that a sandboxed
 * command could have written (see `SandboxWrittenKind`). Looks at the program of the command (the
 * shell of a split wrapper too), of every script segment, and of every command a wrapper runs
 * (`env ./x`, `timeout 5 ./x`); resolves bare names through the run's PATH; compares real paths and
 * also counts a symlink on the way that a sandboxed command can replace. Runs nothing.
 */
export function findSandboxWrittenCode(input: SandboxWrittenInput): SandboxWrittenCode[] {
  const found: SandboxWrittenCode[] = [];
  const seen = new Set<string>();
  const add = (f: SandboxWrittenCode) => {
    const key = `${f.kind}\0${f.path}`;
    if (!seen.has(key)) {
      seen.add(key);
      found.push(f);
    }
  };
  const commands: Array<{ command: readonly string[]; cwd: string | undefined; builtins: boolean }> = [];
  if (input.script && input.argv[0] !== undefined) commands.push({ command: [input.argv[0]], cwd: input.cwd, builtins: false });
  let cwd: string | undefined = input.cwd;
  for (const segment of input.segments) {
    commands.push({ command: segment, cwd, builtins: input.script });
    if (input.script && (segment[0] === "cd" || segment[0] === "pushd")) cwd = changedDirectory(cwd, segment, input.env);
  }
  lstatCache = new Map();
  try {
    for (const { command, cwd: at, builtins } of commands) checkCommand(command, at, builtins, input, add, 0);
  } finally {
    lstatCache = undefined;
  }
  return found;
}

/** The directory after `cd ARG` (undefined when it cannot be known: `cd -`, options, several words). */
function changedDirectory(cwd: string | undefined, segment: readonly string[], env: SandboxWrittenInput["env"]): string | undefined {
  if (cwd === undefined) return undefined;
  const args = segment.slice(1);
  if (args.length === 0) return env["HOME"] ?? os.homedir();
  if (args.length !== 1 || args[0]!.startsWith("-") || args[0]!.startsWith("+")) return undefined;
  return path.resolve(cwd, expandHome(args[0]!, env));
}

function checkCommand(
  command: readonly string[],
  cwd: string | undefined,
  builtins: boolean,
  input: SandboxWrittenInput,
  add: (f: SandboxWrittenCode) => void,
  depth: number,
): void {
  const program = command[0];
  if (program === undefined || program === "" || (builtins && SHELL_BUILTINS.has(program))) return;
  const shown = [...command];
  if (cwd === undefined && (program.includes("/") || programName(program) === "git")) {
    add({ kind: "working_directory", command: shown, path: program, text: `\`${renderCommand(command)}\` runs after a change of directory that cannot be followed, so what it runs is not known` });
    return;
  }
  const here = cwd ?? "/";
  checkProgram(program, here, input, shown, add);
  if (programName(program) === "git") checkGit(command, here, input, shown, add);
  if (depth < 4) {
    for (const inner of wrappedCommands(command)) checkCommand(inner, cwd, false, input, add, depth + 1);
  }
}

/** Resolve `program` as the launch would; report what a sandboxed command controls. Returns the resolved path, when found. */
function checkProgram(
  program: string,
  cwd: string,
  input: SandboxWrittenInput,
  command: string[],
  add: (f: SandboxWrittenCode) => void,
): string | undefined {
  const text = (where: string) => `\`${renderCommand([program])}\` is ${where}, which a sandboxed command can write`;
  if (program.includes("/") || program === "~") {
    const absolute = path.resolve(cwd, expandHome(program, input.env));
    const hit = controlledAlong(absolute, input.writable);
    if (hit) add({ kind: "program", command, path: hit, text: text(hit) });
    return absolute;
  }
  const searchPath = input.env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin";
  for (const entry of searchPath.split(":")) {
    const dir = path.resolve(cwd, entry === "" ? "." : expandHome(entry, input.env));
    const dirHit = controlledAlong(dir, input.writable);
    if (dirHit) {
      const candidate = path.join(dir, program);
      add({
        kind: "path_entry",
        command,
        path: candidate,
        text: `\`${renderCommand([program])}\` is looked up first in ${dir} (on PATH), where a sandboxed command can put a program of that name`,
      });
      return isExecutableFile(candidate) ? candidate : undefined;
    }
    const candidate = path.join(dir, program);
    if (isExecutableFile(candidate)) {
      const hit = controlledAlong(candidate, input.writable);
      if (hit) add({ kind: "program", command, path: hit, text: text(hit) });
      return candidate;
    }
  }
  return undefined;
}

/** Whether `dir` has the layout git takes for a repository directory (bare, or a `.git`). */
function looksLikeGitDir(dir: string): boolean {
  try {
    return fs.statSync(path.join(dir, "HEAD")).isFile() && fs.statSync(path.join(dir, "objects")).isDirectory() && fs.statSync(path.join(dir, "refs")).isDirectory();
  } catch {
    return false;
  }
}

/** The `gitdir:` of a `.git` file, resolved against its directory. */
function gitdirOf(gitFile: string): string | undefined {
  let text: string;
  try {
    // Non-blocking and regular files only: a FIFO planted as `.git` must not hang the host.
    text = readRegularFileSync(gitFile, { followLinks: false });
  } catch {
    return undefined;
  }
  const line = text.split(/\r?\n/).find((l) => /^gitdir:/i.test(l.trim()));
  const target = line?.trim().slice("gitdir:".length).trim();
  return target ? path.resolve(path.dirname(gitFile), target) : undefined;
}

/**
 * Report the repository an unsandboxed git would use when a sandboxed command could have written
 * it (its config names programs to run: fsmonitor, hooks, pagers, filters), following `-C`,
 * `--git-dir`, `GIT_DIR` and git's own discovery from the working directory upwards (a `.git`
 * directory or file, or a bare repository), as the repositories are when the check runs.
 */
function checkGit(command: readonly string[], cwd: string, input: SandboxWrittenInput, shown: string[], add: (f: SandboxWrittenCode) => void): void {
  let dir = cwd;
  let gitDir = input.env["GIT_DIR"] ? path.resolve(cwd, input.env["GIT_DIR"]) : undefined;
  const execPath = input.env["GIT_EXEC_PATH"];
  if (execPath) checkExecPath(path.resolve(cwd, execPath), input, shown, add);
  let sub: string | undefined;
  for (let i = 1; i < command.length; i++) {
    const w = command[i]!;
    if (w === "-C" && command[i + 1] !== undefined) {
      dir = path.resolve(dir, expandHome(command[++i]!, input.env));
    } else if (w === "--git-dir" && command[i + 1] !== undefined) {
      gitDir = path.resolve(dir, command[++i]!);
    } else if (w.startsWith("--git-dir=")) {
      gitDir = path.resolve(dir, w.slice("--git-dir=".length));
    } else if (w.startsWith("--exec-path=")) {
      checkExecPath(path.resolve(dir, w.slice("--exec-path=".length)), input, shown, add);
    } else if (w === "-c" || w === "--work-tree" || w === "--namespace" || w === "--config-env") {
      i++;
    } else if (!w.startsWith("-")) {
      sub = w;
      break;
    }
  }
  if (gitDir !== undefined) {
    reportGitDir(gitDir, shown, input, add, `git is told to use the repository ${gitDir}`);
    return;
  }
  if (sub === undefined || GIT_WITHOUT_REPOSITORY.has(sub)) return;
  let d = trace(dir).real;
  for (;;) {
    const dotGit = path.join(d, ".git");
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(dotGit);
    } catch {
      stat = undefined;
    }
    if (stat) {
      if (reportGitDir(dotGit, shown, input, add, `git uses the repository ${dotGit}`)) return;
      if (stat.isFile()) {
        const target = gitdirOf(dotGit);
        if (target) reportGitDir(target, shown, input, add, `git uses the repository ${target} (named by ${dotGit})`);
      }
      return;
    }
    if (looksLikeGitDir(d)) {
      reportGitDir(d, shown, input, add, `git uses the bare repository ${d}`);
      return;
    }
    const parent = path.dirname(d);
    if (parent === d) return;
    d = parent;
  }
}

/** Report `gitDir` (and the shared repository its `commondir` names) when a sandboxed command controls it; true when reported. */
function reportGitDir(gitDir: string, command: string[], input: SandboxWrittenInput, add: (f: SandboxWrittenCode) => void, what: string): boolean {
  const hit = controlledAlong(gitDir, input.writable);
  if (hit) {
    add({ kind: "git_dir", command, path: hit, text: `${what}, which a sandboxed command can write (its configuration and hooks run with git)` });
    return true;
  }
  const real = trace(gitDir).real;
  let common = "";
  try {
    common = readRegularFileSync(path.join(real, "commondir")).trim();
  } catch {
    // no shared repository named: an ordinary gitdir
  }
  const shared = common ? path.resolve(real, common) : undefined;
  if (shared) {
    const sharedHit = controlledAlong(shared, input.writable);
    if (sharedHit) {
      add({ kind: "git_dir", command, path: sharedHit, text: `${what}, whose shared repository ${shared} a sandboxed command can write` });
      return true;
    }
  }
  const worktree = path.basename(gitDir) === ".git" ? path.dirname(gitDir) : gitDir;
  const configs = [path.join(real, "config"), path.join(real, "config.worktree"), ...(shared ? [path.join(shared, "config")] : [])];
  return checkGitConfigs(configs, worktree, command, input, add);
}

/** How deep includes are followed, as git itself does. */
const MAX_INCLUDE_DEPTH = 10;

/**
 * Report configuration files of a repository that name, by path, something a sandboxed command
 * could have written: a hooks directory, a program (fsmonitor, pager, filters, diff and merge
 * drivers, credential helpers, `!` aliases), a script a program is given, or an included
 * configuration file (whose own entries are judged too). Which keys count is `gitConfigReferences`,
 * the same judgement the sandbox pins by. Relative paths are taken from the working tree, where git
 * runs them (an include from the including file's directory). Files are read non-blocking and as
 * regular files only; one that exists but cannot be read that way (a FIFO, a directory, malformed
 * text) is reported as well, since git would read it. True when anything was reported.
 */
function checkGitConfigs(configs: readonly string[], worktree: string, command: string[], input: SandboxWrittenInput, add: (f: SandboxWrittenCode) => void): boolean {
  let reported = false;
  const seen = new Set<string>();
  const visit = (file: string, depth: number): void => {
    if (seen.has(file) || depth > MAX_INCLUDE_DEPTH) return;
    seen.add(file);
    let entries: GitConfigEntry[];
    try {
      entries = parseGitConfig(readRegularFileSync(file), file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      reported = true;
      add({ kind: "git_config", command, path: file, text: `the repository's configuration ${file} cannot be read as a plain configuration file (${(error as Error).message}); git reads it` });
      return;
    }
    for (const entry of entries) {
      for (const ref of gitConfigReferences(entry)) {
        // A bare program name is looked up on PATH, which the program check judges.
        if (ref.kind === "program" && !ref.value.includes("/") && !ref.value.startsWith("~")) continue;
        const target = path.resolve(ref.kind === "include" ? path.dirname(file) : worktree, expandHome(ref.value, input.env));
        // A later word is a script only when it is one (`node ./x.js`), not `s/a/b/` or `cd /tmp`.
        if (ref.kind === "argument" && !isRegularFile(target)) continue;
        const hit = controlledAlong(target, input.writable);
        if (!hit) {
          if (ref.kind === "include") visit(target, depth + 1);
          continue;
        }
        reported = true;
        add({
          kind: "git_config",
          command,
          path: hit,
          text: `the repository's configuration ${file} sets ${gitConfigKey(entry)} to ${ref.value}, which a sandboxed command can write (git runs what is there)`,
        });
      }
    }
  };
  for (const file of configs) visit(file, 0);
  return reported;
}

function isRegularFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function checkExecPath(dir: string, input: SandboxWrittenInput, command: string[], add: (f: SandboxWrittenCode) => void): void {
  const hit = controlledAlong(dir, input.writable);
  if (hit) add({ kind: "path_entry", command, path: hit, text: `git runs its subcommands from ${dir}, which a sandboxed command can write` });
}

/** The sentence that says why a command an allow rule matched still runs in the sandbox. */
export function sandboxKeptReason(argv: readonly string[], found: readonly SandboxWrittenCode[]): string {
  return `allow rules match \`${renderCommand(argv)}\`, but outside the sandbox it would run what a sandboxed command could have written: ${found
    .map((f) => f.text)
    .join("; ")}; so it runs in the sandbox`;
}

/**
 * An allow rule's run outside the sandbox, withheld: a `skip` that would bypass the sandbox runs in
 * it instead when anything it would execute could have been written by a sandboxed command, and
 * under `untrusted` (the policy that asks before what it cannot vouch for) a person is asked first,
 * with the reason naming the paths. Anything else is returned as it is.
 */
export function withSandboxKept(
  requirement: ExecApprovalRequirement,
  found: readonly SandboxWrittenCode[],
  approvalPolicy: ApprovalPolicy,
  argv: readonly string[],
): ExecApprovalRequirement {
  if (found.length === 0 || requirement.kind !== "skip" || !requirement.bypassSandbox) return requirement;
  const amendment = requirement.proposedAmendment ? { proposedAmendment: requirement.proposedAmendment } : {};
  if (approvalPolicy === "untrusted") return { kind: "needs_approval", reason: sandboxKeptReason(argv, found), ...amendment };
  return { kind: "skip", bypassSandbox: false, ...amendment };
}
