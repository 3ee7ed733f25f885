import { defineConfig } from "vitest/config";

// Real sandboxed processes (bwrap start-up, a SIGKILLed host) take longer than the packages' fakes.
// Every reused sandbox view is also computed afresh and compared (see packages/sandbox-linux).
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 60_000, hookTimeout: 60_000, env: { SHELLGATE_PLAN_REUSE: "check" } },
});
