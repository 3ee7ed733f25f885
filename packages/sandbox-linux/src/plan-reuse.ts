import { isDeepStrictEqual } from "node:util";
import { observationsHold, recordObservations, type Observations } from "@shellgate/sandbox";
import { LinuxSandboxError } from "./errors.js";

/**
 * `on`: a run's view is reused when its inputs are the same and every file-system read it was
 * computed from answers the same again. `off`: computed afresh every time. `check`: reused as with
 * `on`, and also computed afresh, failing the run when the two differ (for tests: a read that
 * escaped the recording would show there).
 */
export type PlanReuse = "on" | "off" | "check";

/** The environment variable that sets `PlanReuse` when the backend's option does not. */
export const PLAN_REUSE_ENV = "SHELLGATE_PLAN_REUSE";

/** The backend option, else the environment's value, else `on`; anything else is refused by name. */
export function planReuseFrom(option: PlanReuse | undefined, env: Readonly<Record<string, string | undefined>>): PlanReuse {
  if (option !== undefined) return option;
  const value = env[PLAN_REUSE_ENV];
  if (value === undefined || value === "") return "on";
  if (value === "on" || value === "off" || value === "check") return value;
  throw new LinuxSandboxError("invalid-options", `${PLAN_REUSE_ENV}=${JSON.stringify(value)}: expected on, off or check`);
}

interface Entry<T> {
  inputs: string;
  observations: Observations;
  value: T;
}

/**
 * The last view computed, with what it was computed from: `inputs` (everything but the file
 * system, as one string) and the file-system reads made meanwhile. The view must be a plain value
 * (it is copied in and out, so a caller's changes never reach the next run).
 */
export class PlanMemo<T> {
  #entry: Entry<T> | undefined;
  readonly #mode: PlanReuse;

  constructor(mode: PlanReuse) {
    this.#mode = mode;
  }

  /**
   * The view for `inputs`: the last one if it still holds, else `compute()`'s (then kept), with the
   * reads it was made from (to check again later, see `observationsHold`).
   */
  async view(inputs: string, compute: () => Promise<T>): Promise<{ value: T; observations: Observations }> {
    if (this.#mode === "off") return recorded(compute);
    const entry = this.#entry;
    if (entry && entry.inputs === inputs && observationsHold(entry.observations)) {
      const reused = structuredClone(entry.value);
      if (this.#mode === "check") {
        const fresh = (await this.#computeAndKeep(inputs, compute)).value;
        if (!isDeepStrictEqual(fresh, reused)) {
          throw new LinuxSandboxError("reuse-check-failed", `a reused sandbox view differs from the one computed now (${PLAN_REUSE_ENV}=check): reused ${JSON.stringify(reused)}, now ${JSON.stringify(fresh)}`);
        }
      }
      return { value: reused, observations: entry.observations };
    }
    return this.#computeAndKeep(inputs, compute);
  }

  async #computeAndKeep(inputs: string, compute: () => Promise<T>): Promise<{ value: T; observations: Observations }> {
    this.#entry = undefined;
    const made = await recorded(compute);
    this.#entry = { inputs, observations: made.observations, value: structuredClone(made.value) };
    return made;
  }

}

/** `compute()`'s value with the observed reads made meanwhile; a failure is thrown and nothing kept open. */
export async function recorded<T>(compute: () => T | Promise<T>): Promise<{ value: T; observations: Observations }> {
  const stop = recordObservations();
  let value: T;
  try {
    value = await compute();
  } catch (error) {
    stop();
    throw error;
  }
  return { value, observations: stop() };
}
