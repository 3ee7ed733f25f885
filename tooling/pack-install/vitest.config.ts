import { defineConfig } from "vitest/config";

// Packing ten packages and an `npm install` from the registry (node-pty compiles there) take a while;
// the budget is about two minutes on the 2-core project machine, so the hooks get more than that.
export default defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 180_000, hookTimeout: 300_000 } });
