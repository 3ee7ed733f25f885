/**
 * The one place the CLI names sandbox backends. `exec`, `mcp`, `doctor` and `sandbox` ask this module
 * for their backends; nothing else in the CLI imports a backend package (type-only imports aside), so
 * a new backend is one row of {@link SANDBOX_BACKENDS} and its package, not a change in every command.
 *
 * Each backend's package is loaded when a command needs it, never at start-up: `--help`, `check` and
 * `policy-check` do not pay for it. All three are dependencies of the CLI; a package that is missing
 * all the same (a trimmed install) or that provides no backend is a {@link SandboxBackendPackageError}
 * naming the package, raised only where that backend is needed.
 */
import { SandboxBackendNotFoundError, SandboxManager, type SandboxBackend } from "@shellgate/sandbox";
import type * as LinuxPackage from "@shellgate/sandbox-linux";
import { SandboxBackendPackageError } from "./errors.js";

/** The CLI's settings every backend is built with. */
export interface CliBackendOptions {
  /** Accept a weaker isolation layer where the full one cannot run (Linux: Landlock+seccomp without bwrap). */
  allowWeakerIsolation?: boolean;
  /**
   * Keep the Linux capability probe on disk between runs (default true): three process starts, most
   * of a short command's latency. `doctor` turns it off to report what a fresh probe finds.
   */
  probeCache?: boolean;
  /** The most processes one sandboxed command may run (Linux); absent or undefined, the backend's default. */
  processLimit?: number | "off" | undefined;
  /**
   * Keep the placeholders of missing protected paths from one sandboxed command to the next until the
   * process ends (Linux), instead of making and removing them per command: for the MCP server.
   */
  sessionPlaceholders?: boolean;
}

/** A package that provides a backend (or, for Linux, more than one). */
export interface PackageSource<Package> {
  /** The npm package, named in the error when it is missing. */
  readonly package: string;
  /**
   * Imports it. Each package is named literally in an `import()`, so the bundle carries it as a
   * module body of its own, run on first use and sharing the bundle's one `@shellgate/sandbox` (a
   * package resolved from node_modules would bring a second copy, and `instanceof SandboxError`
   * would fail for its errors).
   */
  readonly load: () => Promise<Package>;
}

/** Loads a backend's package; tests inject one to play a package that is missing, broken or fake. */
export type PackageImporter = <Package>(source: PackageSource<Package>) => Promise<Package>;

/** What the wiring depends on besides its arguments. */
export interface BackendWiringDeps {
  importer?: PackageImporter;
  /** The platform whose backend is the default (tests pass another one). */
  platform?: NodeJS.Platform;
}

/** One backend the CLI knows: where it comes from, and how the CLI builds it. */
export interface BackendSource<Name extends string = string> {
  /** The backend's `name`, what `shellgate sandbox --backend NAME` selects. */
  readonly name: Name;
  /** The platform it runs on (it can still plan, `--dry-run`, anywhere). */
  readonly platform: NodeJS.Platform;
  /** The npm package that provides it. */
  readonly package: string;
  /** The package's export that builds it; a package without it (an older one) provides no backend. */
  readonly factory: string;
  /**
   * Load the package (through `importer`) and build the backend with the CLI's options.
   * @throws SandboxBackendPackageError when the package is missing or provides no backend.
   */
  readonly create: (options: CliBackendOptions, importer: PackageImporter) => Promise<SandboxBackend>;
}

/** A row of {@link SANDBOX_BACKENDS}, typed by its package. */
interface BackendRow<Name extends string, Package> extends PackageSource<Package> {
  readonly name: Name;
  readonly platform: NodeJS.Platform;
  readonly factory: keyof Package & string;
  /** Builds the backend from the loaded package. */
  readonly build: (pkg: Package, options: CliBackendOptions) => SandboxBackend;
}

/** The row's package type stays inside: every backend is then a {@link BackendSource} alike. */
function backendRow<const Name extends string, Package>(row: BackendRow<Name, Package>): BackendSource<Name> {
  return {
    name: row.name,
    platform: row.platform,
    package: row.package,
    factory: row.factory,
    async create(options, importer) {
      const pkg = await loadPackage(row, importer);
      if (typeof pkg[row.factory] !== "function") throw new SandboxBackendPackageError(row, "no-backend");
      return row.build(pkg, options);
    },
  };
}

/** Whether `error` says that `specifier` itself cannot be found (not one of its own imports). */
function isMissingPackage(error: unknown, specifier: string): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : "";
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && message.includes(`'${specifier}'`);
}

/**
 * Load a backend's package.
 * @throws SandboxBackendPackageError when it is not installed; other load failures are passed on.
 */
async function loadPackage<Package>(source: PackageSource<Package> & { name: string; factory: string }, importer: PackageImporter): Promise<Package> {
  try {
    return await importer(source);
  } catch (error) {
    if (isMissingPackage(error, source.package)) throw new SandboxBackendPackageError(source, "not-installed", { cause: error });
    throw error;
  }
}

const importPackage: PackageImporter = (source) => source.load();

/** The Linux backend's package, which the CLI also uses for its probe report and its helper. */
const LINUX_PACKAGE = {
  name: "linux",
  package: "@shellgate/sandbox-linux",
  load: () => import("@shellgate/sandbox-linux"),
  factory: "createLinuxSandboxBackend",
} as const;

/** Every backend the CLI knows, in the order a platform prefers them. */
export const SANDBOX_BACKENDS = [
  // The Linux backend keeps its capability probe on disk between runs unless told not to; the
  // cache's directory stays read-only inside the sandbox.
  backendRow({
    ...LINUX_PACKAGE,
    platform: "linux",
    build: (linux, options) =>
      linux.createLinuxSandboxBackend({
        allowWeakerIsolation: options.allowWeakerIsolation === true,
        ...(options.processLimit !== undefined ? { processLimit: options.processLimit } : {}),
        ...(options.probeCache === false ? {} : { probeCacheFile: linux.defaultProbeCacheFile() }),
        ...(options.sessionPlaceholders === true ? { placeholders: "per-session" as const } : {}),
      }),
  }),
  // Seatbelt has one layer and takes no options: the policy decides what it enforces.
  backendRow({
    name: "seatbelt",
    platform: "darwin",
    package: "@shellgate/sandbox-seatbelt",
    load: () => import("@shellgate/sandbox-seatbelt"),
    factory: "createSeatbeltSandboxBackend",
    build: (seatbelt) => seatbelt.createSeatbeltSandboxBackend(),
  }),
  // Its Win32 layer (koffi) is imported only inside its transform/isAvailable on win32.
  backendRow({
    name: "windows",
    platform: "win32",
    package: "@shellgate/sandbox-windows",
    load: () => import("@shellgate/sandbox-windows"),
    factory: "createWindowsSandboxBackend",
    build: (windows, options) => windows.createWindowsSandboxBackend({ allowWeakerIsolation: options.allowWeakerIsolation === true }),
  }),
] as const;

/** The name of a backend the CLI knows (`linux`, `seatbelt`, `windows`). */
export type SandboxBackendName = (typeof SANDBOX_BACKENDS)[number]["name"];

/** The source of a backend by name, or SandboxBackendNotFoundError listing every name the CLI knows. */
export function backendSource(name: string): BackendSource<SandboxBackendName> {
  const source = SANDBOX_BACKENDS.find((s) => s.name === name);
  if (!source) throw new SandboxBackendNotFoundError(name, SANDBOX_BACKENDS.map((s) => s.name));
  return source;
}

/** The backends the CLI uses on `platform` when none is named (none on a platform it has no backend for). */
export function platformBackendSources(platform: NodeJS.Platform = process.platform): BackendSource<SandboxBackendName>[] {
  return SANDBOX_BACKENDS.filter((s) => s.platform === platform);
}

/**
 * Build one backend with the CLI's options.
 * @throws SandboxBackendNotFoundError for a name the CLI does not know.
 * @throws SandboxBackendPackageError when its package is missing or provides no backend yet.
 */
export async function createBackend(name: string, options: CliBackendOptions = {}, deps: BackendWiringDeps = {}): Promise<SandboxBackend> {
  return backendSource(name).create(options, deps.importer ?? importPackage);
}

/**
 * A stand-in for a backend whose package is missing or empty: never available, with the package error
 * as the reason. The manager then reports it (`doctor`) and a policy that needs a sandbox fails with
 * "sandbox unavailable" naming the package to install, while a policy that needs none still runs.
 */
function unavailableBackend(source: BackendSource, error: SandboxBackendPackageError): SandboxBackend {
  const refuse = () => Promise.reject(error);
  return {
    name: source.name,
    platform: source.platform,
    sandboxType: source.name,
    isAvailable: () => Promise.resolve({ available: false, reason: error.message }),
    plan: refuse,
    transform: refuse,
  };
}

/**
 * The backends for this platform (`exec`, `mcp`, and `doctor`/`sandbox` when none is named), in
 * preference order. Empty on a platform the CLI has no backend for, so a policy that needs a sandbox
 * fails there with the "sandbox unavailable" error; a backend whose package is missing is a stand-in
 * that is never available and says which package to install.
 */
export async function platformBackends(options: CliBackendOptions = {}, deps: BackendWiringDeps = {}): Promise<SandboxBackend[]> {
  const backends: SandboxBackend[] = [];
  for (const source of platformBackendSources(deps.platform)) {
    try {
      backends.push(await source.create(options, deps.importer ?? importPackage));
    } catch (error) {
      if (!(error instanceof SandboxBackendPackageError)) throw error;
      backends.push(unavailableBackend(source, error));
    }
  }
  return backends;
}

/**
 * A manager for `doctor` and `sandbox`. With `backend`, that backend alone (from any platform: it can
 * always plan), and its package must load; without, this platform's backends ({@link platformBackends}).
 * @throws SandboxBackendNotFoundError, SandboxBackendPackageError as {@link createBackend}, for a named backend.
 */
export async function createSandboxManager(
  options: CliBackendOptions & { backend?: string } = {},
  deps: BackendWiringDeps = {},
): Promise<SandboxManager> {
  const manager = new SandboxManager(deps.platform ? { platform: deps.platform } : {});
  const backends = options.backend !== undefined ? [await createBackend(options.backend, options, deps)] : await platformBackends(options, deps);
  for (const backend of backends) manager.register(backend);
  return manager;
}

/**
 * The Linux sandbox helper, for the network proxy's `tunnelSplicer` (its `--splice` mode takes over
 * bulk CONNECT/SOCKS5 tunnels, `--splice-body` large plain-HTTP bodies); undefined off Linux,
 * without the package or a built helper, or when the helper fails the check. The host runs it
 * unconfined, exactly as the backend's probe does, so it must pass the same trust check the backend
 * applies to it (`checkHostBinary`: root or this user owning it and every directory above, none
 * writable by others): the same trust then applies.
 */
export async function linuxTunnelSplicer(deps: BackendWiringDeps = {}): Promise<string | undefined> {
  if ((deps.platform ?? process.platform) !== "linux") return undefined;
  try {
    const linux = await loadPackage(LINUX_PACKAGE, deps.importer ?? importPackage);
    const helper = linux.locateHelper();
    if (helper === undefined) return undefined;
    const uid = process.geteuid?.() ?? process.getuid?.() ?? 0;
    const verdict = linux.checkHostBinary(helper, { alsoOwnedBy: [uid] });
    return verdict.trusted ? verdict.realPath : undefined;
  } catch {
    // No helper for this architecture, or no package: tunnels then stay in the proxy's JS path.
    return undefined;
  }
}

/**
 * The Linux backend's package itself, for what only it offers (`shellgate sandbox --probe`'s layer report).
 * @throws SandboxBackendPackageError when it is not installed.
 */
export async function loadLinuxSandboxPackage(deps: BackendWiringDeps = {}): Promise<typeof LinuxPackage> {
  return loadPackage(LINUX_PACKAGE, deps.importer ?? importPackage);
}
