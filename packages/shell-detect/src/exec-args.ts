import { z } from "zod";
import { InvalidShellArgumentError } from "./errors.js";
import type { Shell } from "./types.js";

/** The line PowerShell scripts start with so that the console writes UTF-8 (what we decode output as). */
export const POWERSHELL_UTF8_PREFIX = "try { [Console]::OutputEncoding=[System.Text.Encoding]::UTF8 } catch {}\n";
export const LEGACY_UTF8_PREFIX = "[Console]::OutputEncoding=[System.Text.Encoding]::UTF8;\n";

/** Options for {@link deriveExecArgs}. */
export interface ExecArgsOptions {
  /** Run bash/zsh/sh as a login shell (`-lc`) and let PowerShell load its profile. */
  login: boolean;
  /** Force PowerShell's `-NoProfile` even for a login run (the elevated Windows sandbox needs this). */
  forceNoProfile?: boolean;
}

const ShellSchema = z.object({
  type: z.enum(["bash", "zsh", "sh", "powershell", "cmd"]),
  path: z.string().min(1),
});
const OptsSchema = z.object({ login: z.boolean(), forceNoProfile: z.boolean().optional() });

function fieldOf(prefix: string, issue: z.ZodError["issues"][number]): string {
  return [prefix, ...issue.path.map(String)].join(".");
}

/**
 * The argv that runs `script` in `shell`: bash/zsh/sh `[path, "-lc"|"-c", script]`; PowerShell
 * `[path, ("-NoProfile",)? "-Command", prefix + script]` (UTF-8 output line added once); cmd
 * `[path, "/c", script]` (login has no meaning for cmd).
 * @throws InvalidShellArgumentError naming the bad field.
 */
export function deriveExecArgs(shell: Shell, script: string, opts: ExecArgsOptions): string[] {
  const s = ShellSchema.safeParse(shell);
  if (!s.success) throw new InvalidShellArgumentError(fieldOf("shell", s.error.issues[0]!), s.error.issues[0]!.message);
  if (typeof script !== "string") throw new InvalidShellArgumentError("script", "must be a string");
  const o = OptsSchema.safeParse(opts);
  if (!o.success) throw new InvalidShellArgumentError(fieldOf("opts", o.error.issues[0]!), o.error.issues[0]!.message);
  const { path, type } = s.data;
  switch (type) {
    case "bash":
    case "zsh":
    case "sh":
      return [path, o.data.login ? "-lc" : "-c", script];
    case "powershell": {
      const body = script.startsWith(POWERSHELL_UTF8_PREFIX) || script.startsWith(LEGACY_UTF8_PREFIX)
        ? script
        : POWERSHELL_UTF8_PREFIX + script;
      return o.data.login && !o.data.forceNoProfile
        ? [path, "-Command", body]
        : [path, "-NoProfile", "-Command", body];
    }
    case "cmd":
      return [path, "/c", script];
  }
}
