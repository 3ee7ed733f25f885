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
import { BundleFormatError } from "../errors.js";
import { codeCacheDir, codeCacheFile, readCodeCache, readInto, variantOf, writeCodeCache } from "./code-cache.js";

/** What became of the code cache in one start. */
export type CodeCacheOutcome = "used" | "rejected" | "missing" | "off";

/**
 * The name under which the bundle finds the launcher's `import()`. A script that `vm` compiles from
 * a code cache loses its dynamic-import hook in Node 20, so the bundle's few `import()`s of external
 * ES modules (the build rewrites them, same length) go through the launcher's own, which Node set up.
 */
export const IMPORT_NAME = "_sgimp";

/**
 * V8 flags of a CLI run, set before the bundle is compiled (a cache made under other flags is
 * refused, so a command's flags never change between its runs). Every command: `--liftoff-only`, which
 * the dispatcher sets again (see bin/shellgate.ts for why). Every command but the long-lived `mcp`
 * server: the young generation keeps its first size (1 MB a semi-space) instead of doubling at its
 * first scavenge. A start keeps nearly everything it allocates, so a larger young generation saves
 * few scavenges (they copy the same survivors in fewer, longer pauses) and commits fresh pages, each
 * a page fault, which on a VM costs 10 µs or more. Measured (interleaved, 2-core VM, 30 runs each):
 * `exec -- /bin/true` 190 → 185 ms, `sandbox -- /bin/true` 170 → 164 ms.
 */
export function v8FlagsFor(variant: string): string {
  return variant === "mcp" ? "--liftoff-only" : "--liftoff-only --semi-space-growth-factor=1";
}

/**
 * The first line of dist/bundle/shellgate.cjs (the build writes it there, in place of a shebang):
 * the bundle is a function expression, the wrapper Node's CommonJS loader would put around it, so the
 * launcher compiles the file's text as it is. Wrapping it here instead took two more copies of the
 * ~800 KB text per start (removing the shebang, then V8 flattening the wrapper around it), each new
 * memory and so page faults: with the code cache read into the bundle's own buffer (below), ~330
 * fewer faults a start, 10 µs or more each on a VM.
 */
export const BUNDLE_HEADER = `(function (exports, require, module, __filename, __dirname, ${IMPORT_NAME}) {`;

/**
 * Compile and run the CommonJS bundle at `bundle` as Node would `require` it, from the code cache
 * when there is a usable one; when there was none (or V8 refused it), write one as the process exits,
 * so that it holds the functions this run compiled too.
 * @throws BundleFormatError when the file does not start with `BUNDLE_HEADER`.
 */
export function runBundle(bundle: string, importer: (specifier: string) => Promise<unknown>, env: NodeJS.ProcessEnv = process.env): CodeCacheOutcome {
  const variant = variantOf(process.argv.slice(2));
  v8.setFlagsFromString(v8FlagsFor(variant));
  const { text: source, buffer, stat } = readBundle(bundle);
  if (!source.startsWith(BUNDLE_HEADER)) throw new BundleFormatError(bundle);
  const dir = codeCacheDir(env);
  const file = dir === undefined ? undefined : codeCacheFile(dir, bundle, stat, variant);
  // The bundle's bytes are in `source` now; its buffer, already in memory, takes the cache.
  const cachedData = file === undefined ? undefined : readCodeCache(file, buffer);
  const script = new vm.Script(source, {
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

/**
 * The bundle's text, and the buffer it was read into. The build makes the bundle pure ASCII
 * (scripts/bundle.mjs checks), so latin1 gives the same text UTF-8 would, without decoding, as a
 * one-byte string.
 */
function readBundle(bundle: string): { text: string; buffer: Buffer; stat: fs.Stats } {
  const fd = fs.openSync(bundle, "r");
  try {
    const stat = fs.fstatSync(fd);
    const buffer = Buffer.allocUnsafeSlow(stat.size);
    const length = readInto(fd, buffer);
    return { text: buffer.toString("latin1", 0, length), buffer, stat };
  } finally {
    fs.closeSync(fd);
  }
}
