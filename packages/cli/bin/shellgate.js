#!/usr/bin/env node
// Committed launcher: npm links a package's bins when it installs, before `prepare` has built dist/,
// and it skips bins whose file does not exist yet. This file always exists, so `npx shellgate` works
// right after `npm install` instead of falling through to the registry.
// It runs the bundled build (dist/bundle/shellgate.cjs, made by scripts/bundle.mjs) through
// dist/bundle/launch.cjs, which keeps V8's compiled code of it in a cache (src/launch/run-bundle.ts),
// and falls back to the plain `tsc` output (dist/bin/) when the bundle was not made.
// CommonJS (bin/package.json), like the bundle: an ES module entry makes Node start its module
// loader first, which costs as much as the rest of a short start.
"use strict";
let launch;
try {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS launcher loading a CommonJS bundle
  launch = require("../dist/bundle/launch.cjs");
} catch (error) {
  if (error?.code !== "MODULE_NOT_FOUND" || !String(error.message).includes("launch.cjs")) throw error;
}
if (launch) {
  launch.runShellgate();
} else {
  import("../dist/bin/shellgate.js").catch((error) => {
    if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/bin/shellgate.js")) {
      process.stderr.write("shellgate: @shellgate/cli is not built yet; run `npm run build` in the repository first\n");
      process.exitCode = 1;
    } else {
      throw error;
    }
  });
}
