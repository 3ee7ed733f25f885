// The compile module is normally loaded with a synchronous `require` (see src/policy/compile-loader.ts),
// which cannot load TypeScript sources; under vitest it is preloaded through `import()` instead.
import { preloadCompiler } from "../src/policy/compile-loader.js";

await preloadCompiler();
