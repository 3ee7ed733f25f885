import { createRequire } from "node:module";
import type { Parser } from "web-tree-sitter";
import { GrammarLoadError } from "./errors.js";

let loading: Promise<Parser> | undefined;

async function load(): Promise<Parser> {
  let wasmPath: string;
  try {
    // Resolved from this package's own directory (found through its name, "./package.json" is exported),
    // not from wherever this module sits: it may be bundled into another package's build.
    const require = createRequire(createRequire(import.meta.url).resolve("@shellgate/shell-detect/package.json"));
    // Resolved from node_modules: the grammar is never fetched over the network.
    wasmPath = require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
  } catch (cause) {
    throw new GrammarLoadError("tree-sitter-bash is not installed (cannot resolve tree-sitter-bash/tree-sitter-bash.wasm)", { cause });
  }
  try {
    // Imported here, not at the top: a process that never splits a script (most one-shot argv
    // commands) should not pay for loading the runtime.
    const { Language, Parser } = await import("web-tree-sitter");
    await Parser.init();
    const language = await Language.load(wasmPath);
    const parser = new Parser();
    parser.setLanguage(language);
    // The first parse compiles most of the grammar's wasm (~50-100 ms here); pay it during the load so
    // that the first real command does not, and so that one number says when splitting is ready.
    parser.parse("true")?.delete();
    return parser;
  } catch (cause) {
    throw new GrammarLoadError(`could not load the bash grammar from ${wasmPath}: ${String(cause)}`, { cause });
  }
}

/**
 * The one bash parser of this process, created on first use. A failed load is not cached, so a
 * later call retries rather than failing forever.
 * @throws GrammarLoadError
 * @internal Not in the published declarations (`stripInternal`): its type is web-tree-sitter's, whose
 * own declarations do not compile for a consumer with `skipLibCheck: false` (they need emscripten's).
 */
export function bashParser(): Promise<Parser> {
  loading ??= load().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

/** Load (and warm up) the grammar now, e.g. at startup, so the first split does not pay for it. */
export async function preloadBashGrammar(): Promise<void> {
  await bashParser();
}
