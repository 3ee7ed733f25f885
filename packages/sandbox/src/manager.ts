import type { BackendAvailability, CommandSpec, ExecEnv, SandboxBackend, TransformOptions } from "./backend.js";
import { parseCommandSpec } from "./command-spec.js";
import { sandboxEnvMarkers } from "./env-markers.js";
import {
  SandboxBackendConflictError,
  SandboxError,
  SandboxTransformError,
  SandboxUnavailableError,
  type BackendUnavailableReason,
} from "./errors.js";
import { parseSandboxPolicy, policyRequiresPlatformSandbox, type SandboxPolicy } from "./policy.js";

/** One line of `SandboxManager#report()`. */
export interface BackendReport {
  name: string;
  platform: NodeJS.Platform;
  availability: BackendAvailability;
}

/** Options of `SandboxManager`. */
export interface SandboxManagerOptions {
  /** Platform to select for; defaults to `process.platform` (tests pass another one). */
  platform?: NodeJS.Platform;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Holds the registered sandbox backends and turns a command into the command that must be spawned.
 * The first registered, available backend for this platform is used. When the policy needs a
 * sandbox and none is available, it throws: there is no silent unsandboxed fallback.
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
   * @throws SandboxBackendConflictError when a backend with the same name is already registered.
   */
  register(backend: SandboxBackend): void {
    if (this.#backends.some((b) => b.name === backend.name)) throw new SandboxBackendConflictError(backend.name);
    this.#backends.push(backend);
  }

  /** The registered backends, in preference order. */
  get backends(): readonly SandboxBackend[] {
    return [...this.#backends];
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
      this.#backends.map(async (b) => ({ name: b.name, platform: b.platform, availability: await this.availability(b) })),
    );
  }

  /**
   * The backend that will enforce `policy`, or `null` when the policy needs no platform sandbox
   * (`danger-full-access`, `external-sandbox`).
   * @throws InvalidSandboxPolicyError for a malformed policy.
   * @throws SandboxUnavailableError naming the policy mode and every backend's reason.
   */
  async select(policy: SandboxPolicy): Promise<SandboxBackend | null> {
    const valid = parseSandboxPolicy(policy);
    if (!policyRequiresPlatformSandbox(valid)) return null;
    const reasons: BackendUnavailableReason[] = [];
    for (const backend of this.#backends) {
      const availability = await this.availability(backend);
      if (availability.available) return backend;
      reasons.push({ backend: backend.name, platform: backend.platform, reason: availability.reason });
    }
    throw new SandboxUnavailableError(valid.mode, this.platform, reasons);
  }

  /**
   * Select a backend and let it wrap the command. Without a needed sandbox, the command comes
   * back unchanged with `sandboxType: "none"`. The env markers of `sandboxEnvMarkers` are always
   * applied on top of what the backend returns.
   * @throws InvalidCommandSpecError, InvalidSandboxPolicyError for bad input.
   * @throws SandboxUnavailableError when a sandbox is needed and none is available.
   * @throws SandboxTransformError when the backend fails or returns an unsandboxed command.
   */
  async prepare(spec: CommandSpec, policy: SandboxPolicy, options: TransformOptions): Promise<ExecEnv> {
    const command = parseCommandSpec(spec);
    const valid = parseSandboxPolicy(policy);
    const backend = await this.select(valid);
    if (!backend) {
      return {
        argv: [...command.argv],
        cwd: command.cwd,
        env: { ...command.env, ...sandboxEnvMarkers(valid, "none") },
        sandboxType: "none",
        isolation: "none",
      };
    }
    let env: ExecEnv;
    try {
      env = await backend.transform(command, valid, options);
    } catch (error) {
      if (error instanceof SandboxError) throw error;
      throw new SandboxTransformError(backend.name, describe(error), { cause: error });
    }
    if (env.sandboxType === "none") {
      await env.cleanup?.();
      throw new SandboxTransformError(backend.name, `returned an unsandboxed command for policy "${valid.mode}"`);
    }
    return { ...env, env: { ...env.env, ...sandboxEnvMarkers(valid, env.sandboxType) } };
  }
}
