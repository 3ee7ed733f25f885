import { defineConfig } from "vitest/config";

// Every reused sandbox view is also computed afresh and compared (a read that escaped the
// recording would fail the run): the tests change files between runs more than any user does.
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 20_000, hookTimeout: 20_000, env: { SHELLGATE_PLAN_REUSE: "check" } },
});
