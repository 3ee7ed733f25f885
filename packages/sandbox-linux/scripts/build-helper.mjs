#!/usr/bin/env node
// Compiles the native sandbox helper with the machine's C compiler (no download, no node-gyp).
// Without Linux or a compiler the package still builds: the capability probe then reports
// "helper not built" and the backend refuses to run anything.
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkg = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const source = path.join(pkg, "native", "shellgate-sandbox-helper.c");
const outDir = path.join(pkg, "dist", "native");
const out = path.join(outDir, "shellgate-sandbox-helper");

if (process.platform !== "linux") {
  console.log(`sandbox-linux: not on Linux (${process.platform}); native helper not built`);
  process.exit(0);
}

const compiler = process.env.CC || "cc";
const flags = ["-O2", "-Wall", "-Wextra", "-Werror", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong"];
mkdirSync(outDir, { recursive: true });
const tmp = `${out}.tmp-${process.pid}`;

function compile(extra) {
  execFileSync(compiler, [...flags, ...extra, "-o", tmp, source], { stdio: ["ignore", "inherit", "pipe"] });
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
  console.log(`sandbox-linux: built ${path.relative(pkg, out)} with ${compiler}`);
} catch (error) {
  rmSync(tmp, { force: true });
  if (error.code === "ENOENT") {
    console.warn(`sandbox-linux: no C compiler (${compiler}) found; native helper not built, the Linux sandbox will be unavailable`);
    process.exit(0);
  }
  process.stderr.write(String(error.stderr ?? error.message));
  process.exit(1);
}
