import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** File name of the native helper compiled by `scripts/build-helper.mjs`. */
export const HELPER_NAME = "shellgate-sandbox-helper";

/**
 * Where the compiled helper lives: next to the built modules (`dist/native/`). When this module
 * runs from `src/` (tests against sources) the sibling `dist/` build is used.
 */
export function locateHelper(): string | undefined {
  const candidates = [
    new URL(`./native/${HELPER_NAME}`, import.meta.url),
    new URL(`../dist/native/${HELPER_NAME}`, import.meta.url),
  ];
  for (const url of candidates) {
    const file = fileURLToPath(url);
    if (existsSync(file)) return file;
  }
  return undefined;
}
