import { defineConfig } from "vitest/config";

// The fixtures are run by the tests, in a vitest of their own (test/fixtures/vitest.config.ts).
export default defineConfig({ test: { include: ["test/**/*.test.ts"], exclude: ["test/fixtures/**"], testTimeout: 60_000 } });
