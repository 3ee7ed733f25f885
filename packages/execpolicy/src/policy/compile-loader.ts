/**
 * Loads `compile.ts` (and with it the chevrotain parser and the interpreter) only when something
 * has to be compiled, so that `policy-check` answering from the compiled-policy cache does not pay
 * for importing them. `parsePolicy` is synchronous, so the module is loaded with `require`
 * (ES modules can be required synchronously since Node 20.19); async callers preload it with a
 * dynamic `import()` first, which is also how the test runner (which cannot `require` TypeScript
 * sources) gets it — see `test/setup.ts`.
 *
 * Why the compile module is required by package name (`@shellgate/execpolicy/compiler`, declared in
 * package.json "exports") and not as "./compile.js": a bundler that inlines this loader cannot see
 * through `createRequire(...)`, so a relative path silently became a contract with every bundle (the
 * CLI's had to emit a file named exactly `compile.js` next to its chunks). A declared subpath is
 * resolved by Node from wherever this code ends up (a package may always require itself by name), it
 * is part of the package's public surface (so renaming the file cannot break a consumer unnoticed),
 * and a bundle only has to keep `@shellgate/execpolicy` external to satisfy it.
 * Unbundled, the name and "./compile.js" resolve to the same file, so `compiler()` and
 * `preloadCompiler()` share one module instance.
 */
import { createRequire } from "node:module";

type CompileModule = typeof import("./compile.js");

/** The subpath export (package.json "exports") that names the compile module. */
export const COMPILER_MODULE = "@shellgate/execpolicy/compiler";

let loaded: CompileModule | undefined;

/** The compile module, loaded synchronously on first use. */
export function compiler(): CompileModule {
  if (!loaded) loaded = createRequire(import.meta.url)(COMPILER_MODULE) as CompileModule;
  return loaded;
}

/** Load the compile module asynchronously (no-op when already loaded). */
export async function preloadCompiler(): Promise<void> {
  // Relative on purpose: under the test runner this is the TypeScript source the other modules use.
  loaded ??= await import("./compile.js");
}
