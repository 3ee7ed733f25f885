#!/usr/bin/env node
// Packs every publishable package into one directory, for installing shellgate without the npm
// registry (nothing is published there yet). The tarballs depend on each other by version, so they
// must be installed together, into one project: `npm install --prefix DIR DEST/*.tgz`.
// Usage: node scripts/pack-tarballs.mjs [--json] [DEST]   (after `npm install`, which builds)
// Prints each tarball's path, or with --json npm's pack report. DEST defaults to ./tarballs.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { packTarballs, REPO_ROOT } from "../tooling/pack-install/lib/consumer-project.mjs";

const args = process.argv.slice(2);
const json = args[0] === "--json";
if (json) args.shift();
if (args.length > 1 || args[0]?.startsWith("-")) {
  process.stderr.write("usage: node scripts/pack-tarballs.mjs [--json] [DEST]\n");
  process.exit(2);
}
const dest = path.resolve(args[0] ?? path.join(REPO_ROOT, "tarballs"));
mkdirSync(dest, { recursive: true });
const report = await packTarballs(dest);
process.stdout.write(json ? JSON.stringify(report) : report.map(({ filename }) => `${path.join(dest, filename)}\n`).join(""));
