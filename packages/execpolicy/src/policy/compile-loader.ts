/**
 * Loads `compile.ts` (and with it the chevrotain parser and the interpreter) only when something
 * has to be compiled, so that `policy-check` answering from the compiled-policy cache does not pay
 * for importing them. `parsePolicy` is synchronous, so the module is loaded with `require`
 * (ES modules can be required synchronously since Node 20.19); async callers preload it with a
 * dynamic `import()` first, which is also how the test runner (which cannot `require` TypeScript
 * sources) gets it — see `test/setup.ts`.
 * The path stays relative to this module on purpose: it loads the same module instances as the rest of
 * this build. A bundler that inlines this module must emit the compile module as `compile.js` next to
 * it (the CLI bundle does: `packages/cli/scripts/bundle.mjs`).
 */
import { createRequire } from "node:module";

type CompileModule = typeof import("./compile.js");

let loaded: CompileModule | undefined;

/** The compile module, loaded synchronously on first use. */
export function compiler(): CompileModule {
  if (!loaded) loaded = createRequire(import.meta.url)("./compile.js") as CompileModule;
  return loaded;
}

/** Load the compile module asynchronously (no-op when already loaded). */
export async function preloadCompiler(): Promise<void> {
  loaded ??= await import("./compile.js");
}
