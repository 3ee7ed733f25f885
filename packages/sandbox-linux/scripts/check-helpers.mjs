#!/usr/bin/env node
// Runs as `prepack` (so before `npm pack` and `npm publish`): the package must carry a statically
// linked helper for every supported architecture, each for the machine its directory names. The
// build only warns when a cross compiler is missing (a checkout stays usable on its own machine);
// this is where a package without a helper is stopped, before anyone installs it.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HELPER_TARGETS, helperProblem } from "./helper-targets.mjs";

const pkg = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const problems = Object.keys(HELPER_TARGETS)
  .map((target) => [target, helperProblem(path.join(pkg, "dist", "native", target, "shellgate-sandbox-helper"), target)])
  .filter(([, problem]) => problem !== undefined);
if (problems.length > 0) {
  for (const [target, problem] of problems) {
    console.error(`sandbox-linux: cannot pack without the ${target} helper: ${problem}`);
    console.error(`  build it with \`npm run build --workspace @shellgate/sandbox-linux\` after installing ${HELPER_TARGETS[target].debianPackages.join(" ")} (or gcc libc6-dev for the host)`);
  }
  process.exit(1);
}
