import { defineConfig } from "vitest/config";

// Each case runs a whole inner vitest run as nobody; those take a while on two cores.
export default defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 600_000 } });
