// The one module that wires sandbox backends into the CLI: which package provides each, what a
// missing or empty package becomes, and the options the backends are built with.
import { parseSandboxPolicy, SandboxBackendNotFoundError, SandboxError, SandboxManager, SandboxUnavailableError } from "@shellgate/sandbox";
import { describe, expect, expectTypeOf, it } from "vitest";
import { SandboxBackendPackageError } from "../src/errors.js";
import { createBackend, createSandboxManager, platformBackends, SANDBOX_BACKENDS, type PackageImporter, type SandboxBackendName } from "../src/sandbox-backends.js";

/** What Node throws for `import("<name>")` when the package is not installed. */
function notFound(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /somewhere/dist/bundle/chunk.js`), { code: "ERR_MODULE_NOT_FOUND" });
}

const missing: PackageImporter = (source) => Promise.reject(notFound(source.package));

describe("sandbox-backends: where each backend comes from", () => {
  it("knows linux, seatbelt and windows, one package each", () => {
    expect(SANDBOX_BACKENDS.map((b) => [b.name, b.package, b.platform])).toEqual([
      ["linux", "@shellgate/sandbox-linux", "linux"],
      ["seatbelt", "@shellgate/sandbox-seatbelt", "darwin"],
      ["windows", "@shellgate/sandbox-windows", "win32"],
    ]);
  });

  it("a package that is not installed is a typed CLI error naming the package to install", async () => {
    const imported: string[] = [];
    const importer: PackageImporter = (source) => (imported.push(source.package), missing(source));
    const error = await createBackend("seatbelt", {}, { importer }).catch((e: unknown) => e);
    expect(imported).toEqual(["@shellgate/sandbox-seatbelt"]);
    expect(error).toBeInstanceOf(SandboxBackendPackageError);
    expect(error).toMatchObject({ code: "CLI_SANDBOX_BACKEND_PACKAGE", backend: "seatbelt", packageName: "@shellgate/sandbox-seatbelt", problem: "not-installed" });
    expect((error as Error).message).toBe(
      'the "seatbelt" sandbox backend needs the package @shellgate/sandbox-seatbelt, which is not installed (npm install @shellgate/sandbox-seatbelt)',
    );
    expect((error as Error).cause).toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
  });

  it("the backend names are the table's (checked by tsc: a new row is a new name)", () => {
    expectTypeOf<SandboxBackendName>().toEqualTypeOf<"linux" | "seatbelt" | "windows">();
    expect(SANDBOX_BACKENDS.map((b) => b.name)).toEqual(["linux", "seatbelt", "windows"]);
  });

  it("a package that is installed but provides no backend (an older one) is a typed CLI error naming its missing export", async () => {
    const empty: PackageImporter = async () => Object.create(null);
    const error = await createBackend("seatbelt", {}, { importer: empty }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxBackendPackageError);
    expect(error).toMatchObject({ code: "CLI_SANDBOX_BACKEND_PACKAGE", backend: "seatbelt", packageName: "@shellgate/sandbox-seatbelt", problem: "no-backend" });
    expect((error as Error).message).toBe(
      'the "seatbelt" sandbox backend is not available in this version: @shellgate/sandbox-seatbelt does not provide createSeatbeltSandboxBackend yet',
    );
  });

  it("a package that is there but misses one of its own dependencies is not reported as missing", async () => {
    const broken: PackageImporter = () => Promise.reject(notFound("some-dependency"));
    const error = await createBackend("linux", {}, { importer: broken }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(SandboxBackendPackageError);
    expect((error as Error).message).toContain("'some-dependency'");
  });

  it("the real seatbelt package provides the backend, sharing the CLI's @shellgate/sandbox (instanceof holds)", async () => {
    const backend = await createBackend("seatbelt", { allowWeakerIsolation: true });
    expect(backend).toMatchObject({ name: "seatbelt", platform: "darwin", sandboxType: "seatbelt" });
    const error = await backend.plan({ argv: ["true"], cwd: "relative", env: {} }, parseSandboxPolicy({ mode: "workspace-write" }), { sandboxPolicyCwd: "relative" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
  });

  it("the real windows package provides the backend, sharing the CLI's @shellgate/sandbox (instanceof holds)", async () => {
    const backend = await createBackend("windows", { allowWeakerIsolation: true });
    expect(backend).toMatchObject({ name: "windows", platform: "win32", sandboxType: "windows" });
    const error = await backend.plan({ argv: ["true"], cwd: "relative", env: {} }, parseSandboxPolicy({ mode: "workspace-write" }), { sandboxPolicyCwd: "relative" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
  });

  it("an unknown name lists every backend the CLI knows", async () => {
    const error = await createBackend("nosuch").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxBackendNotFoundError);
    expect(error).toMatchObject({ code: "SANDBOX_BACKEND_NOT_FOUND", registered: ["linux", "seatbelt", "windows"] });
  });

  it("builds the Linux backend with the CLI's options and the disk probe cache (off for doctor)", async () => {
    const calls: unknown[] = [];
    const fake: PackageImporter = async (source) => ({
      ...(await source.load()),
      defaultProbeCacheFile: () => "/cache/shellgate/linux-sandbox-probe.json",
      createLinuxSandboxBackend: (options: unknown) => (calls.push(options), { name: "linux" }),
    });
    await createBackend("linux", { allowWeakerIsolation: true }, { importer: fake });
    await createBackend("linux", { probeCache: false }, { importer: fake });
    expect(calls).toEqual([
      { allowWeakerIsolation: true, probeCacheFile: "/cache/shellgate/linux-sandbox-probe.json" },
      { allowWeakerIsolation: false },
    ]);
  });
});

describe("sandbox-backends: the platform's backends", () => {
  it("a missing package of this platform's backend is a stand-in that is never available and names the package", async () => {
    const [standIn, ...rest] = await platformBackends({}, { importer: missing, platform: "darwin" });
    expect(rest).toEqual([]);
    const manager = new SandboxManager({ platform: "darwin" });
    manager.register(standIn!);
    const [report] = await manager.report();
    expect(report).toMatchObject({ name: "seatbelt", availability: { available: false } });
    expect(JSON.stringify(report)).toContain("npm install @shellgate/sandbox-seatbelt");
    // a policy that needs a sandbox fails with "sandbox unavailable" naming the package; one that needs none does not care
    const error = await manager.select(parseSandboxPolicy({ mode: "workspace-write" })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as Error).message).toContain("@shellgate/sandbox-seatbelt");
    expect(await manager.select(parseSandboxPolicy({ mode: "danger-full-access" }))).toBeNull();
  });

  it("none on a platform the CLI has no backend for", async () => {
    expect(await platformBackends({}, { importer: missing, platform: "freebsd" })).toEqual([]);
  });

  it("a named backend must load: no stand-in for --backend", async () => {
    await expect(createSandboxManager({ backend: "seatbelt" }, { importer: missing, platform: "darwin" })).rejects.toBeInstanceOf(SandboxBackendPackageError);
  });

  it.runIf(process.platform === "linux")("on Linux: the real Linux backend, from its package", async () => {
    const manager = await createSandboxManager();
    expect(manager.backends.map((b) => [b.name, b.platform, b.sandboxType])).toEqual([["linux", "linux", "linux"]]);
  });
});
