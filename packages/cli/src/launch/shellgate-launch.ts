// The entry of dist/bundle/launch.cjs, which bin/shellgate.js requires: runs the bundle beside it.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { runBundle, type CodeCacheOutcome } from "./run-bundle.js";

/** Run `shellgate` from dist/bundle/shellgate.cjs, through the code cache. */
export function runShellgate(): CodeCacheOutcome {
  const bundle = path.join(path.dirname(fileURLToPath(import.meta.url)), "shellgate.cjs");
  // This module's own `import()`: Node resolves from dist/bundle/, as it would from the bundle.
  return runBundle(bundle, (specifier) => import(specifier));
}
