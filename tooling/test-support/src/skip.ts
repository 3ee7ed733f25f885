import { describe, it, type TestFunction } from "vitest";

/** Why a test cannot run here (a missing tool, another platform); undefined when it can. */
export type SkipReason = string | undefined;

/** Whether this run is CI's (`CI=true`), where what the tests need is installed. */
export function isCi(): boolean {
  return process.env["CI"] === "true";
}

/**
 * Under `CI=true`, a `reason` (what the tests need is missing) registers a failing test, titled
 * `check`, that names it: CI installs what these tests need, and a broken install must not turn them
 * into skips and leave the run green. Elsewhere nothing happens. Returns `reason`.
 */
export function failInCi(reason: SkipReason, check: string): SkipReason {
  if (reason !== undefined && isCi()) {
    it(check, () => {
      throw new Error(`CI=true, but tests of this file cannot run: ${reason}`);
    });
  }
  return reason;
}

/** `title`, with ` (skipped: REASON)` when there is a reason. */
export function skipTitle(title: string, reason: SkipReason): string {
  return reason === undefined ? title : `${title} (skipped: ${reason})`;
}

/** Suites and tests that run only when `reason` is undefined; skipped, they carry the reason in their title. */
export interface Skippable {
  readonly reason: SkipReason;
  describe(title: string, body: () => void): void;
  it(title: string, fn: TestFunction, timeout?: number): void;
}

/**
 * Tests that run unless `reason` says why they cannot: skipped, each title ends in
 * ` (skipped: REASON)`. With `ciCheck` (the reason is something CI installs), {@link failInCi} too.
 */
export function skipUnless(reason: SkipReason, options: { ciCheck?: string } = {}): Skippable {
  if (options.ciCheck !== undefined) failInCi(reason, options.ciCheck);
  const skipped = reason !== undefined;
  return {
    reason,
    describe: (title, body) => describe.skipIf(skipped)(skipTitle(title, reason), body),
    it: (title, fn, timeout) => it.skipIf(skipped)(skipTitle(title, reason), fn, timeout),
  };
}
