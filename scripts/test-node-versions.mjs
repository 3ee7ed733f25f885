#!/usr/bin/env node
// Runs the tests under other Node.js versions than the machine's, each taken from the npm registry
// (the `node-<os>-<arch>` package holds the official build: bin/node and include/node, the headers
// node-gyp needs), so nothing but the registry is downloaded.
//
//   node scripts/test-node-versions.mjs [VERSION...] [--in-place] [-- PACKAGE...]
//
//   VERSION   a major (22) or an exact version (22.23.5); default: 20 22 24
//   PACKAGE   a directory name under packages/ or tooling/ (execpolicy, pty, cli...); default: all
//   --in-place  rebuild the checkout's own node_modules/node-pty for each version (and for the
//             machine's Node again at the end) instead of a private copy; see below
//
// The build output (tsc, esbuild, the C helper) does not depend on the Node version, so the
// packages are built once beforehand (`npm run build`) with the machine's Node. node-pty is the
// one native addon the tests load, and its binary is tied to a Node ABI. By default each version
// gets its own copy of node-pty, rebuilt against that version's headers (npm_config_nodedir) in
// the temporary directory, and a preloaded module (`--require`, through NODE_OPTIONS) makes
// `require("node-pty")` resolve to that copy: the checkout stays untouched, so other work on the
// same checkout keeps running. A test that starts a child process with a scrubbed environment
// (no NODE_OPTIONS) would load the checkout's node-pty in that child, built for the machine's
// Node; for such suites (the CLI's) use --in-place, which rebuilds the checkout's copy per version
// and restores it for the machine's Node at the end (do not run other tests meanwhile).
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const options = dash >= 0 ? argv.slice(0, dash) : argv;
const inPlace = options.includes("--in-place");
const versions = options.filter((a) => !a.startsWith("--"));
if (versions.length === 0) versions.push("20", "22", "24");
const wanted = dash >= 0 ? argv.slice(dash + 1) : [];

const workspaces = ["packages", "tooling"].flatMap((top) =>
  fs.readdirSync(path.join(repo, top)).map((d) => path.join(repo, top, d)).filter((d) => {
    try {
      return Boolean(JSON.parse(fs.readFileSync(path.join(d, "package.json"), "utf8")).scripts?.test);
    } catch {
      return false;
    }
  }),
);
const chosen = wanted.length === 0 ? workspaces : wanted.map((w) => {
  const dir = workspaces.find((d) => path.basename(d) === w);
  if (!dir) throw new Error(`no workspace ${w} with a test script (one of ${workspaces.map((d) => path.basename(d)).join(", ")})`);
  return dir;
});
const missingBuild = chosen.filter((d) => d.includes(`${path.sep}packages${path.sep}`) && !fs.existsSync(path.join(d, "dist")));
if (missingBuild.length > 0) {
  console.error(`not built: ${missingBuild.map((d) => path.basename(d)).join(", ")}; run \`npm run build\` first`);
  process.exit(1);
}

const platformPackage = `node-${process.platform}-${process.arch}`;
// npm's own node-gyp (npm ships it), run by the target Node so it builds for that version.
const npmCli = fs.realpathSync(execFileSync("/bin/sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim());
const nodeGyp = path.join(path.dirname(npmCli), "..", "node_modules", "node-gyp", "bin", "node-gyp.js");
const checkoutPty = path.join(repo, "node_modules", "node-pty");
const vitest = path.join(repo, "node_modules", "vitest", "vitest.mjs");
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal})`);
}

/** Fetch node@version from the registry into dir; returns its root (bin/node, include/node). */
function fetchNode(version, dir) {
  const out = execFileSync("npm", ["pack", `${platformPackage}@${version}`, "--pack-destination", dir, "--silent"], { encoding: "utf8", env: baseEnv }).trim().split("\n").pop();
  sh("tar", ["-xzf", path.join(dir, out), "-C", dir]);
  const root = path.join(dir, "package");
  if (!fs.existsSync(path.join(root, "include", "node", "node.h"))) throw new Error(`${out} has no include/node headers`);
  return root;
}

/** Rebuild node-pty in `ptyDir` for the Node at `nodeRoot`. */
function rebuildPty(ptyDir, nodeRoot) {
  const node = path.join(nodeRoot, "bin", "node");
  sh(node, [nodeGyp, "rebuild", `--nodedir=${nodeRoot}`], {
    cwd: ptyDir,
    // binding.gyp asks `node -p "require('node-addon-api')"`; a copy outside the checkout finds the
    // checkout's through NODE_PATH
    env: { ...baseEnv, PATH: `${path.join(nodeRoot, "bin")}:${baseEnv.PATH}`, npm_config_nodedir: nodeRoot, NODE_PATH: path.join(repo, "node_modules") },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

const results = [];
let restoreCheckout = false;
try {
  for (const version of versions) {
    // Not under /tmp: the sandbox tests run this very node inside bubblewrap, where /tmp is private
    // (or a writable root, from which the sandbox refuses to run programs). /var/tmp is seen as it is,
    // read-only; the directory is opened to every user (the official build, nothing secret) because
    // tooling/unprivileged runs the escape suites as `nobody` with it.
    const base = fs.existsSync("/var/tmp") ? "/var/tmp" : os.tmpdir();
    const dir = fs.mkdtempSync(path.join(base, `sg-node-${version}-`));
    fs.chmodSync(dir, 0o755);
    try {
      const nodeRoot = fetchNode(version, dir);
      const node = path.join(nodeRoot, "bin", "node");
      const actual = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
      console.log(`\n=== Node ${actual} (${platformPackage}@${version} from the registry)`);
      const env = { ...baseEnv, PATH: `${path.join(nodeRoot, "bin")}:${baseEnv.PATH}` };
      if (inPlace) {
        restoreCheckout = true;
        rebuildPty(checkoutPty, nodeRoot);
      } else {
        // under a node_modules directory, as everywhere else (tests look for "/node_modules/node-pty/")
        const copy = path.join(dir, "node_modules", "node-pty");
        fs.cpSync(checkoutPty, copy, { recursive: true, filter: (src) => !src.startsWith(path.join(checkoutPty, "build")) });
        rebuildPty(copy, nodeRoot);
        const redirect = path.join(dir, "redirect-node-pty.cjs");
        fs.writeFileSync(
          redirect,
          // require("node-pty") (and its subpaths) from anywhere → the copy built for this Node
          `const Module = require("node:module");\nconst original = Module._resolveFilename;\nconst copy = ${JSON.stringify(copy)};\n` +
            `Module._resolveFilename = function (request, ...rest) {\n` +
            `  if (request === "node-pty" || request.startsWith("node-pty/")) request = copy + request.slice("node-pty".length);\n` +
            `  return original.call(this, request, ...rest);\n};\n`,
        );
        env.NODE_OPTIONS = `${baseEnv.NODE_OPTIONS ?? ""} --require=${redirect}`.trim();
      }
      for (const ws of chosen) {
        const name = path.relative(repo, ws);
        console.log(`--- ${name} under Node ${actual}`);
        const r = spawnSync(node, [vitest, "run"], { cwd: ws, env, stdio: "inherit" });
        results.push({ version: actual, name, ok: r.status === 0 });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  if (restoreCheckout) {
    console.log(`\nrebuilding the checkout's node-pty for the machine's Node ${process.version}`);
    sh("npm", ["rebuild", "node-pty"], { cwd: repo, env: baseEnv });
  }
}

console.log("\nsummary:");
for (const r of results) console.log(`  ${r.ok ? "ok  " : "FAIL"} ${r.version.padEnd(9)} ${r.name}`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
