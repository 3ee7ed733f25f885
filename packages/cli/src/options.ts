// Kept free of imports so that `--help` loads nothing heavy.
import type { ParseArgsConfig } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The options every command that runs commands shares (exec, mcp, doctor). */
export const CONFIG_OPTIONS = {
  rules: { type: "string", multiple: true },
  "no-default-rules": { type: "boolean" },
  "approval-policy": { type: "string" },
  sandbox: { type: "string" },
  "writable-root": { type: "string", multiple: true },
  network: { type: "string" },
  cwd: { type: "string" },
  "allow-broad-workspace": { type: "boolean" },
} as const satisfies Options;

/** The help lines of {@link CONFIG_OPTIONS}. */
export const CONFIG_OPTIONS_HELP = `  -r, --rules FILE           add a rules file (repeatable; after the configured ones)
      --no-default-rules     use only the --rules files (skip user, Codex and config rules)
      --approval-policy P    untrusted | on-failure | on-request | never   (default on-request)
      --sandbox MODE         read-only | workspace-write | danger-full-access | external-sandbox
                             (default workspace-write)
      --writable-root DIR    another writable directory under workspace-write (repeatable)
      --network on|off       network access for workspace-write / external-sandbox (default off)
      --cwd DIR              working directory (default: the current directory)
      --allow-broad-workspace
                             let the workspace or a writable root be / or your home directory
                             under workspace-write (refused otherwise; config: allow_broad_workspace)`;

/** The help paragraph on configuration files and project trust. */
export const CONFIG_FILES_HELP = `Configuration: ~/.config/shellgate/config.toml (yours), then <workspace>/.shellgate/config.toml
(the project's, read in the workspace itself only, never above it). Flags win over both. A project
file may only make the policy stricter unless your own config trusts the project:
  [projects."/abs/path/to/project"]
  trust_level = "trusted"`;

/** Whether `--help`/`-h` appears among a command's own options (before any `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === "--") return false;
    if (a === "--help" || a === "-h") return true;
  }
  return false;
}
