// Runs the CLI's CommonJS bundle through V8's code cache: a start that finds the cache skips parsing
// and compiling the ~800 KB bundle and the functions the last run compiled (measured: about 50 ms of
// CPU off `shellgate exec -- /bin/true` and `shellgate sandbox -- /bin/true` on a 2-core machine).
// Node 20 has no compile cache of its own (`module.enableCompileCache` came with Node 22), so this
// does what Node's CommonJS loader would do, with `vm.Script` and `cachedData`.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { codeCacheDir, codeCacheFile, readCodeCache, variantOf, writeCodeCache } from "./code-cache.js";

/** What became of the code cache in one start. */
export type CodeCacheOutcome = "used" | "rejected" | "missing" | "off";

/**
 * The name under which the bundle finds the launcher's `import()`. A script that `vm` compiles from
 * a code cache loses its dynamic-import hook in Node 20, so the bundle's few `import()`s of external
 * ES modules (the build rewrites them, same length) go through the launcher's own, which Node set up.
 */
export const IMPORT_NAME = "_sgimp";

/**
 * V8 flags of every CLI run, set before the bundle is compiled: a cache made under other flags is
 * refused, and the dispatcher sets the same one again (see bin/shellgate.ts for why it is set).
 */
const FLAGS = "--liftoff-only";

/**
 * Compile and run the CommonJS bundle at `bundle` as Node would `require` it, from the code cache
 * when there is a usable one; when there was none (or V8 refused it), write one as the process exits,
 * so that it holds the functions this run compiled too.
 */
export function runBundle(bundle: string, importer: (specifier: string) => Promise<unknown>, env: NodeJS.ProcessEnv = process.env): CodeCacheOutcome {
  v8.setFlagsFromString(FLAGS);
  // A shebang is not JavaScript; blanking it keeps line numbers (stack traces, source maps). The
  // build makes the bundle pure ASCII (scripts/bundle.mjs checks), so latin1 reads the same text as
  // UTF-8 would, without decoding it (1-2 ms of an 800 KB file), as a one-byte string.
  const source = fs.readFileSync(bundle, "latin1").replace(/^#!.*/, "");
  const dir = codeCacheDir(env);
  const file = dir === undefined ? undefined : codeCacheFile(dir, bundle, fs.statSync(bundle), variantOf(process.argv.slice(2)));
  const cachedData = file === undefined ? undefined : readCodeCache(file);
  // The wrapper's first line is the bundle's first line, as in Node's own CommonJS wrapper.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, ${IMPORT_NAME}) {${source}\n})`, {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  const outcome: CodeCacheOutcome = file === undefined ? "off" : !cachedData ? "missing" : script.cachedDataRejected ? "rejected" : "used";
  if (file !== undefined && outcome !== "used") process.once("exit", () => writeCodeCache(file, script.createCachedData()));
  const module = { exports: {}, filename: bundle, id: bundle, loaded: false };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle), importer);
  module.loaded = true;
  return outcome;
}
