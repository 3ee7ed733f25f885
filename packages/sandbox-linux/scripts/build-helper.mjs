#!/usr/bin/env node
// Compiles the native sandbox helper with the machine's C compilers (no download, no node-gyp), once
// per supported architecture, into dist/native/<target>/ (see scripts/helper-targets.mjs). The
// published package ships both, so an installed package never needs a compiler; helper-path.ts picks
// the one for `process.arch` at run time.
//
// The host's own architecture is required for a usable build of this checkout. The other one comes
// from a cross compiler (Debian: gcc-aarch64-linux-gnu + libc6-dev-arm64-cross on x86-64,
// gcc-x86-64-linux-gnu + libc6-dev-amd64-cross on aarch64); without it the build warns and goes on,
// and `npm pack`/`npm publish` refuse (scripts/check-helpers.mjs runs as `prepack`), so a package
// missing a helper is never published. Without Linux or a host compiler the package still builds:
// the capability probe then reports "helper not built" and the backend refuses to run anything.
//
// No compiler is ever looked up on PATH (npm puts node_modules/.bin first, which a sandboxed command
// can write): /usr/bin/cc or /usr/bin/<triplet>-gcc, or $CC / $CC_LINUX_X64 / $CC_LINUX_ARM64 when
// absolute, and only when it and every directory above it pass the same ownership/permission check
// as bubblewrap. It runs with a fixed PATH and no inherited environment, so gcc's own `as`/`ld`
// lookups cannot be redirected either.
//
// `--out DIR` writes a single helper to DIR/shellgate-sandbox-helper (tests), for the host's target
// or the one `--target linux-x64|linux-arm64` names.
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HELPER_TARGETS, hostTarget, helperProblem } from "./helper-targets.mjs";

const pkg = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const source = path.join(pkg, "native", "shellgate-sandbox-helper.c");
const HELPER_NAME = "shellgate-sandbox-helper";
const flag = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : undefined;
};

if (process.platform !== "linux") {
  console.log(`sandbox-linux: not on Linux (${process.platform}); native helpers not built`);
  process.exit(0);
}

// Built by `tsc -b` just before this script runs (see the package's build script).
const { checkHostBinary, currentUid } = await import(new URL("../dist/trusted-path.js", import.meta.url).href);

const host = hostTarget();
const outFlag = flag("--out");
const targetFlag = flag("--target");
if (targetFlag !== undefined && !HELPER_TARGETS[targetFlag]) {
  console.error(`sandbox-linux: unknown --target ${JSON.stringify(targetFlag)} (one of ${Object.keys(HELPER_TARGETS).join(", ")})`);
  process.exit(1);
}
if (!host) {
  // The C file refuses anything but x86-64 and aarch64; say so instead of a compiler #error.
  console.warn(`sandbox-linux: no helper runs on this architecture (${process.arch}); the Linux sandbox will be unavailable here`);
  if (outFlag !== undefined && targetFlag === undefined) process.exit(0);
}

/** The builds to make: [target, output file]. */
const jobs = outFlag !== undefined
  ? [[targetFlag ?? host, path.join(path.resolve(outFlag), HELPER_NAME)]]
  : Object.keys(HELPER_TARGETS).map((t) => [t, path.join(pkg, "dist", "native", t, HELPER_NAME)]);

const compilerEnv = { PATH: "/usr/bin:/bin", LANG: "C", ...(process.env.TMPDIR && path.isAbsolute(process.env.TMPDIR) ? { TMPDIR: process.env.TMPDIR } : {}) };
const flags = ["-O2", "-Wall", "-Wextra", "-Werror", "-D_FORTIFY_SOURCE=2", "-fstack-protector-strong"];

/** The compiler for `target` and whether the user named it, or exits the build when it is refused. */
function compilerFor(target) {
  const spec = HELPER_TARGETS[target];
  const native = target === host;
  // $CC keeps its old meaning (the host compiler); the per-target variables name any of them.
  const envName = native && !process.env[spec.ccEnv] ? "CC" : spec.ccEnv;
  const configured = process.env[envName];
  if (configured !== undefined && configured !== "" && !path.isAbsolute(configured)) {
    console.error(`sandbox-linux: ${envName}=${JSON.stringify(configured)} must be an absolute path (the compiler is never looked up on PATH)`);
    process.exit(1);
  }
  return { compiler: configured || (native ? "/usr/bin/cc" : spec.crossCompiler), configured: Boolean(configured), native };
}

if (outFlag === undefined) {
  // Before per-architecture directories the helper was dist/native/shellgate-sandbox-helper; a stale
  // one left by an older build would otherwise be packed and published beside the real ones.
  rmSync(path.join(pkg, "dist", "native", HELPER_NAME), { force: true });
}

let failed = false;
for (const [target, out] of jobs) {
  const { compiler, configured, native } = compilerFor(target);
  const missing = (what) => {
    if (native) {
      console.warn(`sandbox-linux: ${what}; ${target} helper not built, the Linux sandbox will be unavailable`);
    } else {
      console.warn(`sandbox-linux: ${what}; ${target} helper not built (install ${HELPER_TARGETS[target].debianPackages.join(" ")}); this build cannot be packed or published`);
    }
  };
  const verdict = checkHostBinary(compiler, configured ? { alsoOwnedBy: [currentUid()] } : {});
  if (!verdict.trusted) {
    if (!configured && /does not exist/.test(verdict.reason)) {
      missing(`no C compiler at ${compiler}`);
      continue;
    }
    console.error(`sandbox-linux: refusing to run the C compiler ${compiler}: ${verdict.reason}`);
    process.exit(1);
  }
  mkdirSync(path.dirname(out), { recursive: true });
  const tmp = `${out}.tmp-${process.pid}`;
  const compile = (extra) => execFileSync(compiler, [...flags, ...extra, "-o", tmp, source], { stdio: ["ignore", "inherit", "pipe"], env: compilerEnv });
  try {
    try {
      // Static linking skips the dynamic loader on every sandboxed exec, and makes the shipped
      // helpers independent of the libc of the machine they are installed on.
      compile(["-static"]);
    } catch (error) {
      // Only the host build may fall back to a dynamic helper (it runs on this machine's libc); a
      // cross build without the target's libc.a is not worth shipping.
      if (error.code === "ENOENT" || !native) throw error;
      compile([]);
    }
    // A compiler that produced something else (wrong --target, misconfigured $CC) must not leave a
    // file that the package would then ship under the wrong architecture's name.
    const problem = helperProblem(tmp, target, { requireStatic: false });
    if (problem) throw Object.assign(new Error(`${problem}\n`), { stderr: `sandbox-linux: ${compiler} built a bad ${target} helper: ${problem}\n` });
    renameSync(tmp, out);
    console.log(`sandbox-linux: built ${path.relative(pkg, out) || out} with ${compiler}`);
  } catch (error) {
    rmSync(tmp, { force: true });
    if (error.code === "ENOENT") {
      missing(`no C compiler (${compiler}) found`);
      continue;
    }
    process.stderr.write(String(error.stderr ?? error.message));
    // A compiler the user named that fails is their misconfiguration: stop.
    if (native || configured) process.exit(1);
    // A broken Debian cross toolchain (e.g. the compiler without the target's libc) is reported like
    // a missing one: the host build stays usable, packing refuses.
    missing(`${compiler} failed`);
    failed = true;
  }
}
if (failed && process.env.CI === "true") {
  // In CI every helper must build: a silently missing one would only show up at publish time.
  console.error("sandbox-linux: CI=true and a helper failed to build");
  process.exit(1);
}
