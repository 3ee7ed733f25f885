import type { SandboxBackend } from "../backend.js";
import { CONFORMANCE_CASES, type ConformanceCase, type ConformanceFeature } from "./cases.js";
import { runConformanceCase, type CaseRunOptions, type ConformanceResult } from "./run-case.js";

/** Options of `runConformance`. */
export interface ConformanceOptions extends CaseRunOptions {
  /** Capabilities the backend does not have; cases that need one are skipped, saying which. */
  lacks?: readonly ConformanceFeature[];
  /** Cases to skip by id, with the reason to report. */
  skip?: Readonly<Record<string, string>>;
  /** The cases to run (default `CONFORMANCE_CASES`). */
  cases?: readonly ConformanceCase[];
}

/** Every case's verdict for one backend. */
export interface ConformanceReport {
  backend: string;
  /** False when the backend is not available here; then every case is skipped with its reason. */
  available: boolean;
  results: ConformanceResult[];
  /** No case failed (skipped ones aside). */
  passed: boolean;
}

/** Why a case does not apply to this backend, or undefined when it does. */
export function skipReason(c: ConformanceCase, options: Pick<ConformanceOptions, "lacks" | "skip">): string | undefined {
  const explicit = options.skip?.[c.id];
  if (explicit !== undefined) return explicit;
  const lacking = c.needs.filter((f) => options.lacks?.includes(f));
  return lacking.length > 0 ? `the backend lacks ${lacking.join(", ")}` : undefined;
}

/**
 * Run the escape cases through `backend`, each with its unsandboxed control, one after another.
 * A backend for another platform, or unavailable here, gets every case skipped with the reason.
 */
export async function runConformance(backend: SandboxBackend, options: ConformanceOptions = {}): Promise<ConformanceReport> {
  const cases = options.cases ?? CONFORMANCE_CASES;
  const availability = backend.platform === process.platform ? await backend.isAvailable() : { available: false as const, reason: `built for ${backend.platform}, this is ${process.platform}` };
  const results: ConformanceResult[] = [];
  for (const c of cases) {
    const base = { id: c.id, title: c.title, expect: c.expect };
    if (!availability.available) {
      results.push({ ...base, status: "skipped", reason: `backend unavailable: ${availability.reason}` });
      continue;
    }
    const skip = skipReason(c, options);
    if (skip !== undefined) {
      results.push({ ...base, status: "skipped", reason: skip });
      continue;
    }
    results.push(await runConformanceCase(backend, c, options));
  }
  return { backend: backend.name, available: availability.available, results, passed: results.every((r) => r.status !== "failed") };
}
