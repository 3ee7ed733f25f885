#!/usr/bin/env node
// `policy-check` is `shellgate policy check` under its Codex-compatible name.
// Its start-up is most of what a policy check costs, so this entry stays free of top-level `await`
// (scripts/bundle.mjs builds it as one CommonJS file, which Node loads without starting its ES module
// loader), answers `--version` before loading anything else, and otherwise loads its one command
// (policy-check-main.ts) rather than `runCommandModule`'s table of every command.
import { readFileSync, writeSync } from "node:fs";

const args = process.argv.slice(2);
if (args[0] === "--version" || args[0] === "-V") {
  // What version.ts does, minus its two start-up costs (measured in-process, 4 and 3.5 ms): it finds
  // package.json by resolving the package's own name (which loads Node's ES module resolver), and
  // `process.stdout` builds a stream. This file is two directories below the package root both as
  // tsc output (dist/bin/) and bundled (dist/bundle/), and one short line needs no stream.
  const pj = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  writeSync(1, `policy-check (shellgate) ${pj.version}\n`);
} else {
  void import("./policy-check-main.js").then(async ({ main }) => {
    process.exitCode = await main(args);
  });
}
