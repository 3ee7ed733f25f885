#!/usr/bin/env node
// `policy-check` is `shellgate policy check` under its Codex-compatible name.
// Its start-up is most of what a policy check costs, so this entry stays free of top-level `await`
// (scripts/bundle.mjs builds it as one CommonJS file, which Node loads without starting its ES module
// loader) and imports its command directly rather than through `runCommandModule`'s table of commands.
import { runCommand } from "./command-runner.js";
import { readPackageVersion } from "../version.js";

const args = process.argv.slice(2);
if (args[0] === "--version" || args[0] === "-V") {
  process.stdout.write(`policy-check (shellgate) ${readPackageVersion()}\n`);
} else {
  void runCommand("policy-check", args, "policy-check", () => import("../commands/policy-check/index.js")).then((code) => {
    process.exitCode = code;
  });
}
