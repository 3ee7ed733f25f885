import { isDangerousArgv, isKnownSafeArgv } from "@shellgate/execpolicy";
import { literalCommands, splitHeredocCommand, splitShellCommand } from "@shellgate/shell-detect";
import type { AdmissionDeps } from "./assess.js";

/** The real classifiers: shell-detect's splitters and literal-command scan, execpolicy's heuristics. */
export const DEFAULT_ADMISSION_DEPS: AdmissionDeps = Object.freeze({
  splitShellCommand,
  splitHeredocCommand,
  literalCommands,
  isKnownSafeArgv: (argv: readonly string[]) => isKnownSafeArgv(argv),
  isDangerousArgv: (argv: readonly string[]) => isDangerousArgv(argv),
});
