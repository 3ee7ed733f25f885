#!/usr/bin/env node
// Committed launcher: npm links a package's bins when it installs, before `prepare` has built dist/,
// and it skips bins whose file does not exist yet. This file always exists, so `npx policy-check` works
// right after `npm install` instead of falling through to the registry.
// It runs the bundled build (dist/bundle/, made by scripts/bundle.mjs: far fewer modules to load at
// start-up) and falls back to the plain `tsc` output (dist/bin/) when the bundle was not made.
const notFound = (error, file) => error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes(file);
try {
  await import("../dist/bundle/policy-check.js");
} catch (bundleError) {
  if (!notFound(bundleError, "dist/bundle/policy-check.js")) throw bundleError;
  try {
    await import("../dist/bin/policy-check.js");
  } catch (error) {
    if (notFound(error, "dist/bin/policy-check.js")) {
      process.stderr.write("policy-check: @shellgate/cli is not built yet; run `npm run build` in the repository first\n");
      process.exitCode = 1;
    } else {
      throw error;
    }
  }
}
