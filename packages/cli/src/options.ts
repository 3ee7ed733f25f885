// Kept free of heavy imports so that `--help` loads nothing heavy (errors.ts imports nothing).
import type { ParseArgsConfig } from "node:util";
import { UsageError } from "./errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The options every command that runs commands shares (exec, mcp, doctor). */
export const CONFIG_OPTIONS = {
  rules: { type: "string", multiple: true },
  "no-default-rules": { type: "boolean" },
  "approval-policy": { type: "string" },
  sandbox: { type: "string" },
  "writable-root": { type: "string", multiple: true },
  network: { type: "string" },
  "allow-domain": { type: "string", multiple: true },
  cwd: { type: "string" },
  "allow-broad-workspace": { type: "boolean" },
  "allow-weaker-isolation": { type: "boolean" },
  "process-limit": { type: "string" },
  login: { type: "boolean" },
  "no-login": { type: "boolean" },
} as const satisfies Options;

/** The help lines of {@link CONFIG_OPTIONS}. */
export const CONFIG_OPTIONS_HELP = `  -r, --rules FILE           add a rules file (repeatable; after the configured ones)
      --no-default-rules     use only the --rules files (skip user, Codex and config rules)
      --approval-policy P    untrusted | on-failure | on-request | never   (default on-request)
      --sandbox MODE         read-only | workspace-write | danger-full-access | external-sandbox
                             (default workspace-write)
      --writable-root DIR    another writable directory under workspace-write (repeatable)
      --network [on|off]     network access for workspace-write / external-sandbox (default off);
                             a bare --network is on, --no-network is off
      --allow-domain HOST    let sandboxed commands reach HOST (exact name, repeatable) through
                             shellgate's network proxy; nothing else is reachable (config:
                             [network] allow = [...], deny = [...]; network_rule in rules files);
                             through HTTPS_PROXY/HTTP_PROXY/ALL_PROXY when set (NO_PROXY honoured)
      --cwd DIR              working directory (default: the current directory)
      --allow-broad-workspace
                             let the workspace or a writable root be / or your home directory
                             under workspace-write (refused otherwise; config: allow_broad_workspace)
      --allow-weaker-isolation
                             accept the Landlock+seccomp fallback when bubblewrap cannot run here
                             (no namespaces, no read-only carve-outs inside writable roots; user
                             config: allow_weaker_isolation = true)
      --process-limit N|off  the most processes (threads included) a sandboxed command may run at
                             once, from 8 (default 4096; off: none; config: process_limit)
      --login, --no-login    run scripts through your shell as a login shell (bash -lc: your
                             profile runs first; the default) or not (bash -c: no profile noise, but
                             no PATH or version managers the profile sets up; a model's login: true
                             is refused). config: allow_login_shell = true | false`;

/** The help paragraph on configuration files and project trust. */
export const CONFIG_FILES_HELP = `Configuration: ~/.config/shellgate/config.toml (yours), then <workspace>/.shellgate/config.toml
(the project's, read in the workspace itself only, never above it). Flags win over both. A project
file may only make the policy stricter unless your own config trusts the project:
  [projects."/abs/path/to/project"]
  trust_level = "trusted"`;

/**
 * Every option of any shellgate command that takes a value as the next argument. Used to find where a
 * command's own options end before the command's option table is loaded (`--debug`, `--help`).
 */
const VALUE_FLAGS: ReadonlySet<string> = new Set([
  "--rules", "-r", "--approval-policy", "--sandbox", "--writable-root", "--cwd", "--timeout", "--mode", "--deny-read",
  "--allow-domain", "--host", "--process-limit",
]);

/** The values `--network=VALUE` takes. */
const NETWORK_VALUES: readonly string[] = ["on", "off", "true", "false"];

/**
 * The words a bare `--network` takes as its value when one follows it; anything else is the next
 * argument (`true` and `false` are commands: `shellgate sandbox --network true` runs `true`).
 */
const NETWORK_WORDS: readonly string[] = ["on", "off"];

/** A command line split into shellgate's own options and the command to run. */
export interface SplitCommandLine {
  /** shellgate's options, with `--network`/`--no-network` normalised to `--network=on|off|VALUE`. */
  own: string[];
  /** The command: everything after `--`, else from the first word that is not an option (empty: none). */
  command: string[];
  /** Whether the command was introduced by `--`. */
  terminator: boolean;
  /** How many of the original arguments are shellgate's own (the command starts there, after a `--`). */
  ownCount: number;
}

/**
 * Split arguments the way `policy-check` and `shellgate sandbox` do: shellgate's options come first, and
 * the command starts after `--` or at the first word that is not an option (so `exec ls -la` runs
 * `ls -la`; options after the command word belong to the command). `valueFlags` are the options that
 * take the next argument as their value. `--network` takes `on|off` only when that word follows it,
 * so a bare `--network` means on everywhere; `--no-network` means off.
 */
export function splitCommandLine(args: readonly string[], valueFlags: ReadonlySet<string> = VALUE_FLAGS): SplitCommandLine {
  const own: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === "--") return { own, command: args.slice(i + 1), terminator: true, ownCount: i };
    if (!a.startsWith("-") || a === "-") return { own, command: args.slice(i), terminator: false, ownCount: i };
    if (a === "--network") {
      const next = args[i + 1];
      if (next !== undefined && NETWORK_WORDS.includes(next)) {
        own.push(`--network=${next}`);
        i++;
      } else {
        own.push("--network=on");
      }
    } else if (a === "--no-network") {
      own.push("--network=off");
    } else {
      own.push(a);
      if (valueFlags.has(a) && i + 1 < args.length) own.push(args[++i] as string);
    }
  }
  return { own, command: [], terminator: false, ownCount: args.length };
}

/** Whether `--help`/`-h` appears among a command's own options (before the command). */
export function wantsHelp(args: readonly string[]): boolean {
  return splitCommandLine(args).own.some((a) => a === "--help" || a === "-h");
}

/**
 * The value of `--network` after `splitCommandLine` normalised it (`--network` → on, `--no-network` → off).
 * @throws UsageError for anything but on, off, true or false.
 */
export function parseNetwork(value: string): boolean {
  if (!NETWORK_VALUES.includes(value)) throw new UsageError(`--network: expected on or off (or no value, meaning on), got ${JSON.stringify(value)}`);
  return value === "on" || value === "true";
}
