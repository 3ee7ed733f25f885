import { createRequire } from "node:module";
import type { Parser } from "web-tree-sitter";
import { GrammarLoadError } from "./errors.js";

/** A grammar this package parses with: its npm package, how to find its `.wasm`, a script for the warm-up parse. */
interface GrammarSpec {
  label: string;
  pkg: string;
  // Each spec names its file literally so that dependency checkers see the package in use.
  resolveWasm: (require: NodeJS.Require) => string;
  warmUp: string;
}

const BASH: GrammarSpec = {
  label: "bash",
  pkg: "tree-sitter-bash",
  resolveWasm: (require) => require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"),
  warmUp: "true",
};
const POWERSHELL: GrammarSpec = {
  label: "PowerShell",
  pkg: "tree-sitter-powershell",
  resolveWasm: (require) => require.resolve("tree-sitter-powershell/tree-sitter-powershell.wasm"),
  warmUp: "Get-Item 'a' | Select-Object -First 1; git status",
};

async function load(spec: GrammarSpec): Promise<Parser> {
  let wasmPath: string;
  try {
    // Resolved from this package's own directory (found through its name, "./package.json" is exported),
    // not from wherever this module sits: it may be bundled into another package's build.
    const require = createRequire(createRequire(import.meta.url).resolve("@shellgate/shell-detect/package.json"));
    // Resolved from node_modules: the grammar is never fetched over the network.
    wasmPath = spec.resolveWasm(require);
  } catch (cause) {
    throw new GrammarLoadError(`${spec.pkg} is not installed (cannot resolve its .wasm grammar)`, { cause });
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
    parser.parse(spec.warmUp)?.delete();
    return parser;
  } catch (cause) {
    throw new GrammarLoadError(`could not load the ${spec.label} grammar from ${wasmPath}: ${String(cause)}`, { cause });
  }
}

/** One parser per grammar and process, created on first use; a failed load is not cached. */
function lazyParser(spec: GrammarSpec): () => Promise<Parser> {
  let loading: Promise<Parser> | undefined;
  return () => {
    loading ??= load(spec).catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}

/**
 * The one bash parser of this process, created on first use. A failed load is not cached, so a
 * later call retries rather than failing forever.
 * @throws GrammarLoadError
 * @internal Not in the published declarations (`stripInternal`): its type is web-tree-sitter's, whose
 * own declarations do not compile for a consumer with `skipLibCheck: false` (they need emscripten's).
 */
export const bashParser: () => Promise<Parser> = lazyParser(BASH);

/**
 * The one PowerShell parser of this process, loaded like {@link bashParser} and only when a PowerShell
 * script is first split: a process that only sees bash never pays for it.
 * @throws GrammarLoadError
 * @internal Not in the published declarations, for the same reason as `bashParser`.
 */
export const powershellParser: () => Promise<Parser> = lazyParser(POWERSHELL);

/** Load (and warm up) the grammar now, e.g. at startup, so the first split does not pay for it. */
export async function preloadBashGrammar(): Promise<void> {
  await bashParser();
}

/** Load (and warm up) the PowerShell grammar now, so the first PowerShell split does not pay for it. */
export async function preloadPowerShellGrammar(): Promise<void> {
  await powershellParser();
}
