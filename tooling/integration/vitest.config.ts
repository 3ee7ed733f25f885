import { defineConfig } from "vitest/config";

// Real sandboxed processes (bwrap start-up, a SIGKILLed host) take longer than the packages' fakes.
export default defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000 } });
