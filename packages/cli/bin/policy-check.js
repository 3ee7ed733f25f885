#!/usr/bin/env node
// Committed launcher: npm links a package's bins when it installs, before `prepare` has built dist/,
// and it skips bins whose file does not exist yet. This file always exists, so `npx policy-check` works
// right after `npm install` instead of falling through to the registry.
// It runs the bundled build (dist/bundle/policy-check.cjs, made by scripts/bundle.mjs: one file) and
// falls back to the plain `tsc` output (dist/bin/) when the bundle was not made.
// CommonJS (bin/package.json), like the bundle: a `policy-check` run is mostly start-up, and an ES
// module entry makes Node start its module loader first (measured 9-18 ms of CPU on this 2-core
// machine, about the whole 10 ms that `policy-check --version` may take over `node -e 0`); `require` of a CommonJS file does not.
"use strict";
let bundle;
try {
  bundle = require.resolve("../dist/bundle/policy-check.cjs");
} catch {
  // not built with the bundle: the unbundled ES modules below
}
if (bundle) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS launcher loading a CommonJS bundle
  require(bundle);
} else {
  import("../dist/bin/policy-check.js").catch((error) => {
    if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/bin/policy-check.js")) {
      process.stderr.write("policy-check: @shellgate/cli is not built yet; run `npm run build` in the repository first\n");
      process.exitCode = 1;
    } else {
      throw error;
    }
  });
}
