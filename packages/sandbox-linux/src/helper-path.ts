import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** File name of the native helper compiled by `scripts/build-helper.mjs`. */
export const HELPER_NAME = "shellgate-sandbox-helper";

/**
 * Where the compiled helper lives: `dist/native/` of this package. Looked up next to this module
 * first (the built package), then through the package's own name, which also finds it when this
 * module runs from `src/` (tests against sources) or is bundled into another package's build.
 * Only says where it is: the probe and every run check it with `checkHostBinary` before starting it.
 */
export function locateHelper(): string | undefined {
  const sibling = fileURLToPath(new URL(`./native/${HELPER_NAME}`, import.meta.url));
  if (existsSync(sibling)) return sibling;
  const pkg = packageJsonPath();
  const viaPackage = pkg ? join(dirname(pkg), "dist", "native", HELPER_NAME) : undefined;
  return viaPackage && existsSync(viaPackage) ? viaPackage : undefined;
}

let resolvedPackageJson: string | null | undefined;

/** This package's package.json, resolved once per process (the resolver's first use is not free). */
function packageJsonPath(): string | undefined {
  if (resolvedPackageJson === undefined) {
    resolvedPackageJson = null;
    try {
      resolvedPackageJson = createRequire(import.meta.url).resolve("@shellgate/sandbox-linux/package.json");
    } catch {
      // Not resolvable from here (unusual install layout): only the sibling location is known.
    }
  }
  return resolvedPackageJson ?? undefined;
}
