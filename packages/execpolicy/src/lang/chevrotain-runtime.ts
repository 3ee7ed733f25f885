/**
 * Lazy, synchronous access to chevrotain, loaded from its single-file ESM bundle.
 *
 * Why the bundle: the package entry (`lib/src/api.js`) pulls in hundreds of lodash-es modules
 * (~360 ms to import on the project machine); the bundle in the same package
 * (`lib/chevrotain.mjs`, same version and API) loads in ~25 ms.
 * Why lazy and synchronous (`require` of an ES module, available unflagged since Node 20.19):
 * `policy-check` answers from its compiled-policy cache without ever loading the parser, and
 * `parsePolicy` must stay synchronous. Types still come from the package's declarations.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

type Chevrotain = typeof import("chevrotain");

let loaded: Chevrotain | undefined;

/** The chevrotain module (bundled build), loaded on first use. */
export function chevrotain(): Chevrotain {
  if (!loaded) {
    // Resolved from this package's own directory (found through its name, "./package.json" is exported),
    // not from wherever this module sits: it may be bundled into another package's build.
    const self = createRequire(import.meta.url).resolve("@shellgate/execpolicy/package.json");
    const require = createRequire(self);
    // Resolves to <pkg>/lib/src/api.js; the bundle sits at <pkg>/lib/chevrotain.mjs.
    const entry = require.resolve("chevrotain");
    const bundle = join(dirname(dirname(entry)), "chevrotain.mjs");
    loaded = require(bundle) as Chevrotain;
  }
  return loaded;
}
