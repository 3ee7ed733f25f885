import { describe, expect, it, vi } from "vitest";
import {
  InvalidCommandSpecError,
  InvalidSandboxPolicyError,
  parseSandboxPolicy,
  SandboxBackendConflictError,
  SandboxBackendNotFoundError,
  InvalidSandboxBackendError,
  SandboxError,
  SandboxManager,
  SandboxTransformError,
  SandboxUnavailableError,
  type BackendAvailability,
  type CommandSpec,
  type ExecEnv,
  type SandboxBackend,
  type SandboxPolicy,
  type SandboxType,
} from "../src/index.js";

/** An in-test backend: wraps the command in a fake launcher and counts probes. */
function fakeBackend(
  name: string,
  availability: BackendAvailability | (() => never),
  opts: {
    platform?: NodeJS.Platform;
    sandboxType?: SandboxType;
    transform?: SandboxBackend["transform"];
    envMarkers?: Record<string, string>;
    denialSignals?: SandboxBackend["denialSignals"];
  } = {},
): SandboxBackend & { probes: number } {
  const backend = {
    name,
    platform: opts.platform ?? "linux",
    sandboxType: opts.sandboxType ?? "linux",
    ...(opts.envMarkers ? { envMarkers: opts.envMarkers } : {}),
    ...(opts.denialSignals ? { denialSignals: opts.denialSignals } : {}),
    probes: 0,
    async plan(spec: CommandSpec) {
      return {
        backend: name,
        sandboxType: opts.sandboxType ?? "linux",
        isolation: `${name}-isolation`,
        argv: [`/fake/${name}`, "--", ...spec.argv],
        cwd: spec.cwd,
        env: { FROM_BACKEND: name },
        unsetEnv: [],
        plan: { layer: "fake" },
      };
    },
    async isAvailable(): Promise<BackendAvailability> {
      backend.probes += 1;
      if (typeof availability === "function") return availability();
      return availability;
    },
    transform:
      opts.transform ??
      (async (spec: CommandSpec): Promise<ExecEnv> => ({
        argv: [`/fake/${name}`, "--", ...spec.argv],
        cwd: spec.cwd,
        env: { ...spec.env, FROM_BACKEND: name },
        sandboxType: opts.sandboxType ?? "linux",
        isolation: `${name}-isolation`,
      })),
  };
  return backend;
}

const up: BackendAvailability = { available: true, isolation: "test" };
const down = (reason: string): BackendAvailability => ({ available: false, reason });
const boom = (): never => {
  throw new Error("probe exploded");
};

const readOnly = parseSandboxPolicy({ mode: "read-only" });
const workspace = parseSandboxPolicy({ mode: "workspace-write" });
const workspaceNet = parseSandboxPolicy({ mode: "workspace-write", networkAccess: true });
const fullAccess = parseSandboxPolicy({ mode: "danger-full-access" });
const external = parseSandboxPolicy({ mode: "external-sandbox" });
const spec: CommandSpec = { argv: ["echo", "hi"], cwd: "/", env: { PATH: "/usr/bin" } };
const options = { sandboxPolicyCwd: "/" };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
}

describe("SandboxManager.select", () => {
  it("returns null for policies that need no platform sandbox, even with no backend", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    expect(await manager.select(fullAccess)).toBeNull();
    expect(await manager.select(external)).toBeNull();
  });

  it("picks the first available backend for the platform, in registration order", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    const mac = fakeBackend("mac", up, { platform: "darwin", sandboxType: "seatbelt" });
    const broken = fakeBackend("broken", down("bwrap missing"));
    const good = fakeBackend("good", up);
    const later = fakeBackend("later", up);
    for (const b of [mac, broken, good, later]) manager.register(b);
    expect(await manager.select(workspace)).toBe(good);
    expect(await manager.select(readOnly)).toBe(good);
    expect(mac.probes).toBe(0);
    expect(later.probes).toBe(0);
  });

  it("probes each backend once and caches the answer", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    const broken = fakeBackend("broken", down("nope"));
    const good = fakeBackend("good", up);
    manager.register(broken);
    manager.register(good);
    await Promise.all([manager.select(workspace), manager.select(readOnly), manager.report()]);
    await manager.select(workspace);
    expect(broken.probes).toBe(1);
    expect(good.probes).toBe(1);
  });

  it("fails with every backend's reason and the policy mode when nothing is available", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(fakeBackend("bwrap", down("user namespaces are disabled")));
    manager.register(fakeBackend("landlock", boom));
    manager.register(fakeBackend("seatbelt", up, { platform: "darwin", sandboxType: "seatbelt" }));
    const error = await rejection(manager.select(workspace));
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    const e = error as SandboxUnavailableError;
    expect(e.code).toBe("SANDBOX_UNAVAILABLE");
    expect(e.mode).toBe("workspace-write");
    expect(e.platform).toBe("linux");
    expect(e.reasons.map((r) => r.backend)).toEqual(["bwrap", "landlock", "seatbelt"]);
    expect(e.message).toContain('"workspace-write"');
    expect(e.message).toContain("bwrap (linux): user namespaces are disabled");
    expect(e.message).toContain("landlock (linux): availability probe failed: probe exploded");
    expect(e.message).toContain("seatbelt (darwin): built for darwin, this is linux");
    expect(e.message).not.toContain("no sandbox backend is registered");
  });

  it("says so when no backend is registered for the platform", async () => {
    const empty = new SandboxManager({ platform: "win32" });
    const e1 = (await rejection(empty.select(readOnly))) as SandboxUnavailableError;
    expect(e1).toBeInstanceOf(SandboxUnavailableError);
    expect(e1.mode).toBe("read-only");
    expect(e1.message).toContain('no sandbox backend is registered for platform "win32"');

    const otherOnly = new SandboxManager({ platform: "win32" });
    otherOnly.register(fakeBackend("linux", up));
    const e2 = (await rejection(otherOnly.select(readOnly))) as SandboxUnavailableError;
    expect(e2.message).toContain("linux (linux): built for linux, this is win32");
    expect(e2.message).toContain('no sandbox backend is registered for platform "win32"');
  });

  it("rejects a malformed policy with a typed error", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    const error = await rejection(manager.select({ mode: "sandbox-please" } as unknown as SandboxPolicy));
    expect(error).toBeInstanceOf(InvalidSandboxPolicyError);
    expect((error as InvalidSandboxPolicyError).field).toBe("mode");
  });

  it("defaults to the host platform", () => {
    expect(new SandboxManager().platform).toBe(process.platform);
  });
});

describe("SandboxManager.register and report", () => {
  it("refuses two backends with the same name", () => {
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(fakeBackend("linux", up));
    expect(() => manager.register(fakeBackend("linux", up))).toThrow(SandboxBackendConflictError);
    expect(manager.backends).toHaveLength(1);
  });

  it("reports every backend with its availability and reason", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(fakeBackend("a", up));
    manager.register(fakeBackend("b", down("missing helper")));
    manager.register(fakeBackend("c", boom));
    manager.register(fakeBackend("d", up, { platform: "darwin" }));
    expect(await manager.report()).toEqual([
      { name: "a", platform: "linux", sandboxType: "linux", availability: up },
      { name: "b", platform: "linux", sandboxType: "linux", availability: down("missing helper") },
      { name: "c", platform: "linux", sandboxType: "linux", availability: down("availability probe failed: probe exploded") },
      { name: "d", platform: "darwin", sandboxType: "linux", availability: down("built for darwin, this is linux") },
    ]);
  });
});

describe("SandboxManager: backends as plug-ins", () => {
  it("checks the shape of what it registers, naming the field", () => {
    const manager = new SandboxManager({ platform: "linux" });
    const good = fakeBackend("ok", up);
    const cases: Array<[unknown, string]> = [
      [{ ...good, name: "" }, "name"],
      [{ ...good, sandboxType: "none" }, "sandboxType"],
      [{ ...good, plan: undefined }, "plan"],
      [{ ...good, transform: "bwrap" }, "transform"],
      [{ ...good, envMarkers: { CODEX_SANDBOX: 1 } }, "envMarkers.CODEX_SANDBOX"],
      [{ ...good, denialSignals: { exitCodes: ["159"] } }, "denialSignals.exitCodes.0"],
      [null, "backend"],
    ];
    for (const [backend, field] of cases) {
      const error = (() => {
        try {
          manager.register(backend as SandboxBackend);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error, field).toBeInstanceOf(InvalidSandboxBackendError);
      expect((error as InvalidSandboxBackendError).field).toBe(field);
      expect((error as InvalidSandboxBackendError).code).toBe("SANDBOX_INVALID_BACKEND");
    }
    expect(manager.backends).toHaveLength(0);
    manager.register(good);
    expect(manager.get("ok")).toBe(good);
    expect(manager.get("nope")).toBeUndefined();
  });

  it("selects a backend by name, and says which names exist when it is not there", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(fakeBackend("first", up));
    manager.register(fakeBackend("second", up, { sandboxType: "container" }));
    expect((await manager.select(workspace))?.name).toBe("first");
    expect((await manager.select(workspace, { backend: "second" }))?.name).toBe("second");
    const env = await manager.prepare(spec, workspace, { ...options, backend: "second" });
    expect(env.argv[0]).toBe("/fake/second");
    expect(env.env["CODEX_SANDBOX"]).toBe("container");
    const missing = manager.select(workspace, { backend: "seatbelt" });
    await expect(missing).rejects.toBeInstanceOf(SandboxBackendNotFoundError);
    await expect(missing).rejects.toThrow('no sandbox backend named "seatbelt" (registered: first, second)');
  });

  it("a named backend that is unavailable here fails with its reason, never falling back to another", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(fakeBackend("works", up));
    manager.register(fakeBackend("mac", up, { platform: "darwin", sandboxType: "seatbelt" }));
    const error = await manager.prepare(spec, workspace, { ...options, backend: "mac" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as SandboxUnavailableError).reasons).toEqual([{ backend: "mac", platform: "darwin", reason: "built for darwin, this is linux" }]);
  });

  it("applies the backend's own env markers and denial signals", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    const denialSignals = { exitCodes: [159], signals: ["SIGSYS"] };
    manager.register(fakeBackend("box", up, { sandboxType: "container", envMarkers: { CODEX_SANDBOX: "box", IN_BOX: "1" }, denialSignals }));
    const env = await manager.prepare(spec, workspace, options);
    expect(env.env).toMatchObject({ CODEX_SANDBOX: "box", IN_BOX: "1", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    expect(env.denialSignals).toEqual(denialSignals);
    // without any, the shared default: keywords only
    const plain = new SandboxManager({ platform: "linux" });
    plain.register(fakeBackend("plain", up));
    expect((await plain.prepare(spec, workspace, options)).denialSignals).toEqual({ exitCodes: [], signals: [], refusalErrnos: ["EROFS", "EACCES", "EPERM"], keywords: [] });
  });

  it("plans on any platform without probing, with the markers a run would get", async () => {
    const manager = new SandboxManager({ platform: "win32" });
    const mac = fakeBackend("mac", boom, { platform: "darwin", sandboxType: "seatbelt" });
    manager.register(mac);
    const plan = await manager.plan(spec, workspace, { ...options, backend: "mac" });
    expect(plan).toEqual({
      backend: "mac",
      sandboxType: "seatbelt",
      isolation: "mac-isolation",
      argv: ["/fake/mac", "--", "echo", "hi"],
      cwd: "/",
      env: { FROM_BACKEND: "mac", CODEX_SANDBOX: "seatbelt", CODEX_SANDBOX_NETWORK_DISABLED: "1" },
      unsetEnv: [],
      plan: { layer: "fake" },
    });
    expect(mac.probes).toBe(0);
    // no name: this platform's backend, and there is none for win32
    await expect(manager.plan(spec, workspace, options)).rejects.toBeInstanceOf(SandboxUnavailableError);
    // a policy without a sandbox plans the command itself
    const full = await manager.plan(spec, fullAccess, { ...options, backend: "mac" });
    expect(full).toMatchObject({ sandboxType: "none", argv: ["echo", "hi"], env: {} });
    await expect(manager.plan(spec, workspace, { ...options, backend: "nope" })).rejects.toBeInstanceOf(SandboxBackendNotFoundError);
  });
});

describe("SandboxManager.prepare", () => {
  it("returns the command unchanged, with markers, when no sandbox is needed", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    const backend = fakeBackend("linux", up);
    manager.register(backend);
    expect(await manager.prepare(spec, fullAccess, options)).toEqual({
      argv: ["echo", "hi"],
      cwd: "/",
      env: { PATH: "/usr/bin" },
      sandboxType: "none",
      isolation: "none",
    });
    const ext = await manager.prepare(spec, external, options);
    expect(ext.sandboxType).toBe("none");
    expect(ext.env).toEqual({ PATH: "/usr/bin", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    expect(backend.probes).toBe(0);
  });

  it("hands out a backend's reuseFor only for what prepare would give that backend: same checks, same selection", async () => {
    const reuseFor = vi.fn(async (s: CommandSpec) => ({ argv: ["/fake/waiting", "--", ...s.argv], payload: new Uint8Array([1]) }));
    const transform = async (s: CommandSpec): Promise<ExecEnv> => ({
      ...s, sandboxType: "linux", isolation: "x", deferred: { argv: ["/fake/waiting"], payload: new Uint8Array(), reuseKey: "k", reuseFor },
    });
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(fakeBackend("linux", up, { transform }));
    const env = await manager.prepare(spec, workspace, options);
    const standIn = env.deferred?.reuseFor;
    expect(await standIn?.({ ...spec, argv: ["ls"] }, workspace, options)).toEqual({ argv: ["/fake/waiting", "--", "ls"], payload: new Uint8Array([1]) });
    expect(reuseFor).toHaveBeenCalledTimes(1);
    // No sandbox needed, or input prepare would refuse: no stand-in, and the backend is not asked.
    expect(await standIn?.(spec, fullAccess, options)).toBeUndefined();
    expect(await standIn?.({ ...spec, cwd: "relative" }, workspace, options)).toBeUndefined();
    expect(reuseFor).toHaveBeenCalledTimes(1);
    // Control: a backend without reuseFor gets none from the manager either.
    const plain = new SandboxManager({ platform: "linux" });
    plain.register(fakeBackend("linux", up));
    expect((await plain.prepare(spec, workspace, options)).deferred).toBeUndefined();
  });

  it("wraps the command with the selected backend and applies the env markers", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(fakeBackend("linux", up));
    const env = await manager.prepare(spec, workspace, options);
    expect(env.argv).toEqual(["/fake/linux", "--", "echo", "hi"]);
    expect(env.sandboxType).toBe("linux");
    expect(env.isolation).toBe("linux-isolation");
    expect(env.env).toEqual({ PATH: "/usr/bin", FROM_BACKEND: "linux", CODEX_SANDBOX: "linux", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    const withNet = await manager.prepare(spec, workspaceNet, options);
    expect(withNet.env).not.toHaveProperty("CODEX_SANDBOX_NETWORK_DISABLED");
  });

  it("passes the spec, policy and options through to the backend", async () => {
    const transform = vi.fn(async (s: CommandSpec): Promise<ExecEnv> => ({ ...s, sandboxType: "seatbelt", isolation: "x" }));
    const manager = new SandboxManager({ platform: "darwin" });
    manager.register(fakeBackend("seatbelt", up, { platform: "darwin", sandboxType: "seatbelt", transform }));
    const opts = { sandboxPolicyCwd: "/work", protectedPaths: ["/work/.shellgate"] };
    const env = await manager.prepare(spec, readOnly, opts);
    expect(transform).toHaveBeenCalledWith(spec, readOnly, opts);
    expect(env.env["CODEX_SANDBOX"]).toBe("seatbelt");
  });

  it("never runs unsandboxed when a sandbox is needed but unavailable", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    const backend = fakeBackend("linux", down("no bwrap"));
    manager.register(backend);
    await expect(manager.prepare(spec, readOnly, options)).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(manager.prepare(spec, workspace, options)).rejects.toThrow(/no bwrap/);
  });

  it("wraps a backend crash in SandboxTransformError and passes its own SandboxErrors through", async () => {
    const crashing = new SandboxManager({ platform: "linux" });
    crashing.register(
      fakeBackend("linux", up, {
        transform: async () => {
          throw new TypeError("cannot read x");
        },
      }),
    );
    const error = (await rejection(crashing.prepare(spec, workspace, options))) as SandboxTransformError;
    expect(error).toBeInstanceOf(SandboxTransformError);
    expect(error.backend).toBe("linux");
    expect(error.cause).toBeInstanceOf(TypeError);

    const own = new SandboxTransformError("linux", "policy not expressible");
    const typed = new SandboxManager({ platform: "linux" });
    typed.register(
      fakeBackend("linux", up, {
        transform: async () => {
          throw own;
        },
      }),
    );
    expect(await rejection(typed.prepare(spec, workspace, options))).toBe(own);
  });

  it("refuses a backend result that claims to be unsandboxed, and cleans it up", async () => {
    const cleanup = vi.fn(async () => {});
    const manager = new SandboxManager({ platform: "linux" });
    manager.register(
      fakeBackend("liar", up, { transform: async (s) => ({ ...s, sandboxType: "none", isolation: "none", cleanup }) }),
    );
    const error = await rejection(manager.prepare(spec, workspace, options));
    expect(error).toBeInstanceOf(SandboxTransformError);
    expect(cleanup).toHaveBeenCalledOnce();
  });

  it("rejects a malformed command spec, naming the field", async () => {
    const manager = new SandboxManager({ platform: "linux" });
    const cases: Array<[unknown, string]> = [
      [{ ...spec, argv: [] }, "argv"],
      [{ ...spec, cwd: "relative" }, "cwd"],
      [{ ...spec, env: { PATH: 1 } }, "env.PATH"],
      [{ ...spec, shell: true }, "shell"],
    ];
    for (const [bad, field] of cases) {
      const error = await rejection(manager.prepare(bad as CommandSpec, fullAccess, options));
      expect(error, field).toBeInstanceOf(InvalidCommandSpecError);
      expect(error).toBeInstanceOf(SandboxError);
      expect((error as InvalidCommandSpecError).field).toBe(field);
      expect((error as InvalidCommandSpecError).code).toBe("SANDBOX_INVALID_COMMAND");
    }
  });
});
