#!/usr/bin/env node
// Compiles the native sandbox helper with the machine's C compiler (no download, no node-gyp).
// Without Linux or a compiler the package still builds: the capability probe then reports
// "helper not built" and the backend refuses to run anything.
//
// The compiler is never looked up on PATH (npm puts node_modules/.bin first, which a sandboxed
// command can write): /usr/bin/cc, or $CC when it is an absolute path, and only when it and every
// directory above it pass the same ownership/permission check as bubblewrap. It runs with a fixed
// PATH and no inherited environment, so gcc's own `as`/`ld` lookups cannot be redirected either.
// `--out DIR` writes the helper elsewhere (tests).
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkg = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const source = path.join(pkg, "native", "shellgate-sandbox-helper.c");
const outFlag = process.argv.indexOf("--out");
const outDir = outFlag > 0 && process.argv[outFlag + 1] ? path.resolve(process.argv[outFlag + 1]) : path.join(pkg, "dist", "native");
const out = path.join(outDir, "shellgate-sandbox-helper");

if (process.platform !== "linux") {
  console.log(`sandbox-linux: not on Linux (${process.platform}); native helper not built`);
  process.exit(0);
}

// Built by `tsc -b` just before this script runs (see the package's build script).
const { checkHostBinary, currentUid } = await import(new URL("../dist/trusted-path.js", import.meta.url).href);

const configured = process.env.CC;
if (configured !== undefined && configured !== "" && !path.isAbsolute(configured)) {
  console.error(`sandbox-linux: CC=${JSON.stringify(configured)} must be an absolute path (the compiler is never looked up on PATH)`);
  process.exit(1);
}
const compiler = configured || "/usr/bin/cc";
const verdict = checkHostBinary(compiler, configured ? { alsoOwnedBy: [currentUid()] } : {});
if (!verdict.trusted) {
  if (!configured && /does not exist/.test(verdict.reason)) {
    console.warn(`sandbox-linux: no C compiler at ${compiler}; native helper not built, the Linux sandbox will be unavailable`);
    process.exit(0);
  }
  console.error(`sandbox-linux: refusing to run the C compiler ${compiler}: ${verdict.reason}`);
  process.exit(1);
}
const compilerEnv = { PATH: "/usr/bin:/bin", LANG: "C", ...(process.env.TMPDIR && path.isAbsolute(process.env.TMPDIR) ? { TMPDIR: process.env.TMPDIR } : {}) };
const flags = ["-O2", "-Wall", "-Wextra", "-Werror", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong"];
mkdirSync(outDir, { recursive: true });
const tmp = `${out}.tmp-${process.pid}`;

function compile(extra) {
  execFileSync(compiler, [...flags, ...extra, "-o", tmp, source], { stdio: ["ignore", "inherit", "pipe"], env: compilerEnv });
}

try {
  try {
    // Static linking skips the dynamic loader on every sandboxed exec.
    compile(["-static"]);
  } catch (error) {
    if (error.code === "ENOENT") throw error;
    compile([]);
  }
  renameSync(tmp, out);
  console.log(`sandbox-linux: built ${path.relative(pkg, out) || out} with ${compiler}`);
} catch (error) {
  rmSync(tmp, { force: true });
  if (error.code === "ENOENT") {
    console.warn(`sandbox-linux: no C compiler (${compiler}) found; native helper not built, the Linux sandbox will be unavailable`);
    process.exit(0);
  }
  process.stderr.write(String(error.stderr ?? error.message));
  process.exit(1);
}
