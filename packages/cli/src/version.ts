import { readFileSync } from "node:fs";

/** The version of @shellgate/cli, read from its package.json at run time. */
export function readPackageVersion(): string {
  const pj = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pj.version;
}
