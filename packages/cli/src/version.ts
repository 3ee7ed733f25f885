import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** The version of @shellgate/cli, read from its package.json at run time. */
export function readPackageVersion(): string {
  // Resolved through the package's own name (self-reference; "./package.json" is exported) rather than
  // relative to this module, which lives at a different depth in dist/ and in the dist/bundle/ build.
  const file = createRequire(import.meta.url).resolve("@shellgate/cli/package.json");
  const pj = JSON.parse(readFileSync(file, "utf8")) as { version: string };
  return pj.version;
}
