import {
  DEFAULT_DENIAL_SIGNALS,
  UNSANDBOXED,
  type BackendAvailability,
  type CommandSpec,
  type DeferredLaunch,
  type ExecEnv,
  type SandboxBackend,
  type SandboxPlan,
  type TransformOptions,
} from "./backend.js";
import { checkBackendShape } from "./backend-shape.js";
import { parseCommandSpec } from "./command-spec.js";
import { sandboxEnvMarkers } from "./env-markers.js";
import {
  SandboxBackendConflictError,
  SandboxBackendNotFoundError,
  SandboxError,
  SandboxProxyUnsupportedError,
  SandboxTransformError,
  SandboxUnavailableError,
  type BackendUnavailableReason,
} from "./errors.js";
import { networkModeOf } from "./network-route.js";
import { parseSandboxPolicy, policyRequiresPlatformSandbox, type SandboxPolicy } from "./policy.js";

/** One line of `SandboxManager#report()`. */
export interface BackendReport {
  name: string;
  platform: NodeJS.Platform;
  sandboxType: string;
  availability: BackendAvailability;
}

/** Options of `SandboxManager`. */
export interface SandboxManagerOptions {
  /** Platform to select for; defaults to `process.platform` (tests pass another one). */
  platform?: NodeJS.Platform;
}

/** Picks one registered backend by name instead of the first available one. */
export interface BackendChoice {
  /** The backend's `name`; unknown names throw `SandboxBackendNotFoundError`. */
  backend?: string;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Holds the registered sandbox backends and turns a command into the command that must be spawned.
 * The first registered, available backend for this platform is used, or the one named. When the
 * policy needs a sandbox and none is available, it throws: there is no silent unsandboxed fallback.
 */
export class SandboxManager {
  /** The platform backends are selected for. */
  readonly platform: NodeJS.Platform;
  readonly #backends: SandboxBackend[] = [];
  readonly #availability = new Map<SandboxBackend, Promise<BackendAvailability>>();

  constructor(opts: SandboxManagerOptions = {}) {
    this.platform = opts.platform ?? process.platform;
  }

  /**
   * Add a backend; earlier registrations are preferred.
   * @throws InvalidSandboxBackendError when it lacks part of the `SandboxBackend` shape.
   * @throws SandboxBackendConflictError when a backend with the same name is already registered.
   */
  register(backend: SandboxBackend): void {
    checkBackendShape(backend);
    if (this.#backends.some((b) => b.name === backend.name)) throw new SandboxBackendConflictError(backend.name);
    this.#backends.push(backend);
  }

  /** The registered backends, in preference order. */
  get backends(): readonly SandboxBackend[] {
    return [...this.#backends];
  }

  /** The registered backend of that name, if any. */
  get(name: string): SandboxBackend | undefined {
    return this.#backends.find((b) => b.name === name);
  }

  /**
   * Availability of one backend, probed once per manager. A backend for another platform is
   * reported unavailable without being probed; a probe that throws counts as unavailable.
   */
  availability(backend: SandboxBackend): Promise<BackendAvailability> {
    let cached = this.#availability.get(backend);
    if (!cached) {
      cached =
        backend.platform !== this.platform
          ? Promise.resolve({ available: false, reason: `built for ${backend.platform}, this is ${this.platform}` })
          : Promise.resolve()
              .then(() => backend.isAvailable())
              .catch((error: unknown): BackendAvailability => ({
                available: false,
                reason: `availability probe failed: ${describe(error)}`,
              }));
      this.#availability.set(backend, cached);
    }
    return cached;
  }

  /** Every registered backend with its availability (and the reason when unavailable). */
  async report(): Promise<BackendReport[]> {
    return Promise.all(
      this.#backends.map(async (b) => ({
        name: b.name,
        platform: b.platform,
        sandboxType: b.sandboxType,
        availability: await this.availability(b),
      })),
    );
  }

  /** The named backend, or SandboxBackendNotFoundError listing the registered names. */
  #named(name: string): SandboxBackend {
    const backend = this.get(name);
    if (!backend) throw new SandboxBackendNotFoundError(name, this.#backends.map((b) => b.name));
    return backend;
  }

  /**
   * The backend that will enforce `policy`, or `null` when the policy needs no platform sandbox
   * (`danger-full-access`, `external-sandbox`). With `choice.backend`, that backend or an error.
   * @throws InvalidSandboxPolicyError for a malformed policy.
   * @throws SandboxBackendNotFoundError when the named backend is not registered.
   * @throws SandboxUnavailableError naming the policy mode and every candidate's reason.
   */
  async select(policy: SandboxPolicy, choice: BackendChoice = {}): Promise<SandboxBackend | null> {
    const valid = parseSandboxPolicy(policy);
    const candidates = choice.backend === undefined ? this.#backends : [this.#named(choice.backend)];
    if (!policyRequiresPlatformSandbox(valid)) return null;
    const reasons: BackendUnavailableReason[] = [];
    for (const backend of candidates) {
      const availability = await this.availability(backend);
      if (availability.available) return backend;
      reasons.push({ backend: backend.name, platform: backend.platform, reason: availability.reason });
    }
    throw new SandboxUnavailableError(valid.mode, this.platform, reasons);
  }

  /**
   * Select a backend and let it wrap the command. Without a needed sandbox, the command comes
   * back unchanged with `sandboxType: "none"`. The env markers (the backend's own, or
   * `CODEX_SANDBOX=<sandboxType>`, plus the network marker) are always applied on top of what the
   * backend returns, and `denialSignals` defaults to the backend's.
   * @throws InvalidCommandSpecError, InvalidSandboxPolicyError for bad input.
   * @throws SandboxBackendNotFoundError when `choice.backend` names no registered backend.
   * @throws SandboxUnavailableError when a sandbox is needed and none is available.
   * @throws SandboxProxyUnsupportedError when the run is to be proxy-routed and the backend cannot do it.
   * @throws SandboxTransformError when the backend fails or returns an unsandboxed command.
   */
  async prepare(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions & BackendChoice): Promise<ExecEnv> {
    const command = parseCommandSpec(spec);
    const valid = parseSandboxPolicy(policy);
    const backend = await this.select(valid, options);
    if (!backend) {
      return {
        argv: [...command.argv],
        cwd: command.cwd,
        env: { ...command.env, ...sandboxEnvMarkers(valid, UNSANDBOXED) },
        sandboxType: UNSANDBOXED,
        isolation: "none",
      };
    }
    checkProxyRoute(backend, valid, options);
    let env: ExecEnv;
    try {
      env = await backend.transform(command, valid, transformOptions(options));
    } catch (error) {
      if (error instanceof SandboxError) throw error;
      throw new SandboxTransformError(backend.name, describe(error), { cause: error });
    }
    if (env.sandboxType === UNSANDBOXED) {
      await env.cleanup?.();
      throw new SandboxTransformError(backend.name, `returned an unsandboxed command for policy "${valid.mode}"`);
    }
    const reuseFor = env.deferred?.reuseFor;
    return {
      ...env,
      env: { ...env.env, ...sandboxEnvMarkers(valid, env.sandboxType, backend.envMarkers) },
      denialSignals: env.denialSignals ?? backend.denialSignals ?? DEFAULT_DENIAL_SIGNALS,
      ...(env.deferred ? { deferred: { ...env.deferred, ...(reuseFor ? { reuseFor: this.#standInFor(backend, reuseFor) } : {}) } } : {}),
    };
  }

  /**
   * A backend's `reuseFor`, answered only for what `prepare` would give to the same backend: the
   * same checks of the input, the same selection, and nothing for a proxy route this backend refuses.
   */
  #standInFor(backend: SandboxBackend, reuseFor: NonNullable<DeferredLaunch["reuseFor"]>): NonNullable<DeferredLaunch["reuseFor"]> {
    return async (spec, policy, options) => {
      try {
        const command = parseCommandSpec(spec);
        const valid = parseSandboxPolicy(policy);
        if ((await this.select(valid, options as TransformOptions & BackendChoice)) !== backend) return undefined;
        checkProxyRoute(backend, valid, options);
        return await reuseFor(command, valid, transformOptions(options));
      } catch {
        // Whatever would make `prepare` fail makes the caller prepare, and see that failure there.
        return undefined;
      }
    };
  }

  /**
   * What would run, without running or creating anything, on any platform: the named backend's
   * plan, or the first registered backend's for this platform. A policy that needs no sandbox
   * plans the command as it is (`sandboxType: "none"`).
   * @throws InvalidCommandSpecError, InvalidSandboxPolicyError for bad input.
   * @throws SandboxBackendNotFoundError when `choice.backend` names no registered backend.
   * @throws SandboxUnavailableError when no backend is registered for this platform.
   * @throws SandboxTransformError when the backend's planning fails for another reason than bad input.
   */
  async plan(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions & BackendChoice): Promise<SandboxPlan> {
    const command = parseCommandSpec(spec);
    const valid = parseSandboxPolicy(policy);
    const backend =
      options.backend !== undefined ? this.#named(options.backend) : this.#backends.find((b) => b.platform === this.platform);
    if (!policyRequiresPlatformSandbox(valid)) {
      return {
        backend: backend?.name ?? UNSANDBOXED,
        sandboxType: UNSANDBOXED,
        isolation: "none",
        argv: [...command.argv],
        cwd: command.cwd,
        env: sandboxEnvMarkers(valid, UNSANDBOXED),
        unsetEnv: [],
        plan: { sandboxed: false, reason: `policy "${valid.mode}" needs no platform sandbox` },
      };
    }
    if (!backend) throw new SandboxUnavailableError(valid.mode, this.platform, []);
    checkProxyRoute(backend, valid, options);
    let plan: SandboxPlan;
    try {
      plan = await backend.plan(command, valid, transformOptions(options));
    } catch (error) {
      if (error instanceof SandboxError) throw error;
      throw new SandboxTransformError(backend.name, describe(error), { cause: error });
    }
    // The markers are the manager's to apply at run time, so a plan shows them the same way.
    return { ...plan, env: { ...plan.env, ...sandboxEnvMarkers(valid, plan.sandboxType, backend.envMarkers) } };
  }
}

/** A proxy route the backend's runs cannot use is refused before the backend sees it. */
function checkProxyRoute(backend: SandboxBackend, policy: SandboxPolicy, options: TransformOptions): void {
  const route = options.networkProxy;
  if (networkModeOf(policy, route) !== "proxy" || route === undefined) return;
  if (backend.proxyTransport === undefined) throw new SandboxProxyUnsupportedError(backend.name, "it does not support proxy-routed network");
  if (backend.proxyTransport !== route.transport) {
    throw new SandboxProxyUnsupportedError(backend.name, `it needs a ${backend.proxyTransport} route, got ${route.transport}`);
  }
}

/** The transform options without the manager's own `backend` choice. */
function transformOptions(options: TransformOptions & BackendChoice): TransformOptions {
  const { backend: _backend, ...rest } = options;
  return rest;
}
