import type { SandboxType } from "./backend.js";

/** Lower-case fragments that, in a failed sandboxed command's output, suggest the sandbox refused something. */
export const SANDBOX_DENIAL_KEYWORDS: readonly string[] = Object.freeze([
  "operation not permitted",
  "permission denied",
  "read-only file system",
  "seccomp",
  "sandbox",
  "landlock",
  "failed to write file",
]);

/** Exit codes of usage errors and command-not-found: without a keyword they are never blamed on the sandbox. */
export const NON_DENIAL_EXIT_CODES: readonly number[] = Object.freeze([2, 126, 127]);

/** 128 + SIGSYS (31 on Linux): the shell's exit code for a process killed by a seccomp trap. */
export const LINUX_SIGSYS_EXIT_CODE = 128 + 31;

/** The parts of a finished command the heuristic looks at. */
export interface DenialCheckInput {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Interleaved output when the spawner keeps it (PTY sessions only have this one). */
  aggregated?: string;
}

// One case-insensitive pass over the text: lower-casing megabytes of output and scanning it once
// per keyword costs ten times as much.
const KEYWORD_PATTERN = new RegExp(SANDBOX_DENIAL_KEYWORDS.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "i");

function mentionsSandbox(text: string | undefined): boolean {
  return text !== undefined && text.length > 0 && KEYWORD_PATTERN.test(text);
}

/**
 * Whether a failed command was probably stopped by the sandbox rather than failing on its own.
 * A guess, used only to offer an unsandboxed retry: it never fires for an unsandboxed run or a
 * successful exit; a keyword in any stream counts even for exit codes 2/126/127; those three are
 * otherwise ordinary failures; under the Linux sandbox a SIGSYS death (159) counts. Any other
 * non-zero exit is the program's own failure.
 */
export function isLikelySandboxDenied(result: DenialCheckInput, sandboxType: SandboxType): boolean {
  if (sandboxType === "none" || result.exitCode === 0) return false;
  if (mentionsSandbox(result.stdout) || mentionsSandbox(result.stderr) || mentionsSandbox(result.aggregated)) {
    return true;
  }
  if (NON_DENIAL_EXIT_CODES.includes(result.exitCode)) return false;
  return sandboxType === "linux" && result.exitCode === LINUX_SIGSYS_EXIT_CODE;
}
