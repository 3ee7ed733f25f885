#!/usr/bin/env node
// Committed launcher: npm links a package's bins when it installs, before `prepare` has built dist/,
// and it skips bins whose file does not exist yet. This file always exists, so `npx shellgate` works
// right after `npm install` instead of falling through to the registry.
// It runs the bundled build (dist/bundle/, made by scripts/bundle.mjs: far fewer modules to load at
// start-up) and falls back to the plain `tsc` output (dist/bin/) when the bundle was not made.
// CommonJS (bin/package.json, for policy-check's sake); the bundle it imports is ES modules.
"use strict";
const notFound = (error, file) => error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes(file);
import("../dist/bundle/shellgate.js")
  .catch((bundleError) => {
    if (!notFound(bundleError, "dist/bundle/shellgate.js")) throw bundleError;
    return import("../dist/bin/shellgate.js");
  })
  .catch((error) => {
    if (notFound(error, "dist/bin/shellgate.js")) {
      process.stderr.write("shellgate: @shellgate/cli is not built yet; run `npm run build` in the repository first\n");
      process.exitCode = 1;
    } else {
      throw error;
    }
  });
