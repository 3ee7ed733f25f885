import { DEFAULT_DENIAL_SIGNALS, UNSANDBOXED, type DenialSignals, type SandboxType } from "./backend.js";

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

/** The parts of a finished command the heuristic looks at. */
export interface DenialCheckInput {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Interleaved output when the spawner keeps it (PTY sessions only have this one). */
  aggregated?: string;
  /** The signal that killed the command, when one did (`"SIGSYS"`). */
  signal?: string | null;
}

/** The run a result came from: its `ExecEnv`, or the parts of it the heuristic reads. */
export interface DenialRun {
  sandboxType: SandboxType;
  /** The backend's signals for this run; {@link DEFAULT_DENIAL_SIGNALS} when absent. */
  denialSignals?: DenialSignals;
}

// One case-insensitive pass over the text: lower-casing megabytes of output and scanning it once
// per keyword costs ten times as much.
const KEYWORD_PATTERN = new RegExp(SANDBOX_DENIAL_KEYWORDS.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "i");

const ownPatterns = new WeakMap<readonly string[], RegExp | undefined>();

/** One case-insensitive pattern for a backend's own keywords, built once per list. */
function backendKeywords(keywords: readonly string[] | undefined): RegExp | undefined {
  if (!keywords || keywords.length === 0) return undefined;
  if (!ownPatterns.has(keywords)) {
    ownPatterns.set(keywords, new RegExp(keywords.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "i"));
  }
  return ownPatterns.get(keywords);
}

function mentionsSandbox(text: string | undefined): boolean {
  return text !== undefined && text.length > 0 && KEYWORD_PATTERN.test(text);
}

/**
 * Whether a failed command was probably stopped by the sandbox rather than failing on its own.
 * A guess, used only to offer an unsandboxed retry: it never fires for an unsandboxed run or a
 * successful exit; a keyword in any stream (the shared ones, or the run's backend's own
 * `denialSignals.keywords`) counts even for exit codes 2/126/127; those three are
 * otherwise ordinary failures; an exit code or a killing signal the run's backend names as its own
 * (`denialSignals`: the Linux backend's seccomp SIGSYS, exit 159 through a shell) counts. Any other
 * non-zero exit is the program's own failure.
 */
export function isLikelySandboxDenied(result: DenialCheckInput, run: DenialRun): boolean {
  if (run.sandboxType === UNSANDBOXED || result.exitCode === 0) return false;
  const signals = run.denialSignals ?? DEFAULT_DENIAL_SIGNALS;
  const own = backendKeywords(signals.keywords);
  const texts = [result.stdout, result.stderr, result.aggregated];
  if (texts.some((t) => mentionsSandbox(t) || (own !== undefined && t !== undefined && own.test(t)))) return true;
  if (result.signal && (signals.signals ?? []).includes(result.signal)) return true;
  if (NON_DENIAL_EXIT_CODES.includes(result.exitCode)) return false;
  return (signals.exitCodes ?? []).includes(result.exitCode);
}
