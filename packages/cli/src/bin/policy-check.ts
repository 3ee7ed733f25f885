#!/usr/bin/env node
// `policy-check` is `shellgate policy check` under its Codex-compatible name.
import { runCommandModule } from "../run-command.js";

const args = process.argv.slice(2);
if (args[0] === "--version" || args[0] === "-V") {
  const { readPackageVersion } = await import("../version.js");
  process.stdout.write(`policy-check (shellgate) ${readPackageVersion()}\n`);
} else {
  process.exitCode = await runCommandModule("policy-check", args, "policy-check");
}
