import { existsSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { LinuxSandboxError } from "./errors.js";

/** File name of the native helper compiled by `scripts/build-helper.mjs`. */
export const HELPER_NAME = "shellgate-sandbox-helper";

/**
 * The helper builds the package ships, by Node's `process.arch`: the directory under `dist/native/`
 * holding each (scripts/helper-targets.mjs builds the same list). The C file supports exactly these
 * two; anything else has no helper at all.
 */
export const HELPER_TARGETS = { x64: "linux-x64", arm64: "linux-arm64" } as const;

/** A directory name under `dist/native/`. */
export type HelperTarget = (typeof HELPER_TARGETS)[keyof typeof HELPER_TARGETS];

/**
 * This machine's architecture has no helper build (the helper supports x86-64 and aarch64 only), so
 * the Linux sandbox cannot run here. A `LinuxSandboxError` with `failure: "unavailable"` (code
 * `SANDBOX_TRANSFORM_FAILED`); `arch` is the `process.arch` value that was refused.
 */
export class LinuxHelperArchitectureError extends LinuxSandboxError {
  readonly arch: string;
  constructor(arch: string) {
    super(
      "unavailable",
      `no sandbox helper for this architecture (${arch}); the helper is built for ${Object.keys(HELPER_TARGETS).join(" and ")} only`,
    );
    this.name = "LinuxHelperArchitectureError";
    this.arch = arch;
  }
}

/** The helper build for `arch` (default: this process), or `LinuxHelperArchitectureError`. */
export function helperTarget(arch: string = process.arch): HelperTarget {
  if (Object.hasOwn(HELPER_TARGETS, arch)) return HELPER_TARGETS[arch as keyof typeof HELPER_TARGETS];
  throw new LinuxHelperArchitectureError(arch);
}

/**
 * Where the compiled helper for this machine lives: `dist/native/<target>/` of this package, with
 * the target chosen by `process.arch` (the package ships every target, so an installed package
 * needs no compiler). Looked up next to this module first (the built package), then through the
 * package's own name, which also finds it when this module runs from `src/` (tests against sources)
 * or is bundled into another package's build.
 * Only says where it is: the probe and every run check it with `checkHostBinary` (root- or
 * user-owned, not writable by others, outside the run's writable roots) before starting it.
 * On Linux on an architecture without a helper it throws `LinuxHelperArchitectureError` (the probe's
 * caller reports it as the backend's unavailability reason); elsewhere the helper is never run, so
 * there it only returns undefined.
 */
export function locateHelper(): string | undefined {
  let target: HelperTarget;
  try {
    target = helperTarget();
  } catch (error) {
    if (process.platform === "linux") throw error;
    return undefined;
  }
  const sibling = fileURLToPath(new URL(`./native/${target}/${HELPER_NAME}`, import.meta.url));
  if (existsSync(sibling)) return inRealDirectory(sibling);
  const pkg = packageJsonPath();
  const viaPackage = pkg ? join(dirname(pkg), "dist", "native", target, HELPER_NAME) : undefined;
  return viaPackage && existsSync(viaPackage) ? inRealDirectory(viaPackage) : undefined;
}

/**
 * `file` with its directory's symbolic links resolved. This module's own URL can name it through
 * the workspace link in `node_modules` (Node's loader does not always resolve it), and the trust
 * checks must hold the directory where the helper really is: a link inside a writable root cannot be
 * pinned, so a checkout under /tmp would refuse every run. The file itself stays as named: a helper
 * that is a symlink is for `checkHostBinary` to refuse.
 */
function inRealDirectory(file: string): string {
  return join(realpathSync.native(dirname(file)), basename(file));
}

let resolvedPackageJson: string | null | undefined;

/**
 * This package's package.json, found once per process: first by the `node_modules` walk Node's own
 * resolver would make (a few `stat`s), then by that resolver, whose first use in a process costs
 * about 4 ms of a CLI start (it reads and parses the `package.json` of every directory on the way)
 * and which is needed only where the walk finds nothing (`NODE_PATH`, unusual layouts).
 */
function packageJsonPath(): string | undefined {
  if (resolvedPackageJson === undefined) {
    resolvedPackageJson = walkNodeModules(dirname(fileURLToPath(import.meta.url))) ?? null;
    if (resolvedPackageJson === null) {
      try {
        resolvedPackageJson = createRequire(import.meta.url).resolve("@shellgate/sandbox-linux/package.json");
      } catch {
        // Not resolvable from here (unusual install layout): only the sibling location is known.
      }
    }
  }
  return resolvedPackageJson ?? undefined;
}

/**
 * `node_modules/@shellgate/sandbox-linux/package.json` in `from` or the nearest ancestor having it,
 * with symbolic links resolved as Node's resolver does (workspaces link packages into
 * `node_modules`), so that the trust checks see where the helper really is.
 */
function walkNodeModules(from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", "@shellgate", "sandbox-linux", "package.json");
    if (existsSync(candidate)) return realpathSync.native(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}
