import { assessWith, isKnownSafeWith, type Admission, type AdmissionDeps, type AdmissionInput } from "./assess.js";
import { DEFAULT_ADMISSION_DEPS } from "./default-deps.js";

/**
 * Decide what must happen before `input.argv` may run, with the real classifiers (shell-detect's
 * splitters, execpolicy's heuristics) unless `deps` substitutes them. Runs nothing.
 */
export async function assessCommand(input: AdmissionInput, deps: AdmissionDeps = DEFAULT_ADMISSION_DEPS): Promise<Admission> {
  return assessWith(deps, input);
}

/**
 * Whether `argv` is a known-safe read-only command; a `bash|zsh|sh -c/-lc` wrapper is safe when its
 * script splits into plain commands that are all safe. Used to mark tool calls as non-mutating.
 */
export async function isKnownSafeCommand(argv: readonly string[], deps: AdmissionDeps = DEFAULT_ADMISSION_DEPS): Promise<boolean> {
  return isKnownSafeWith(deps, argv);
}
