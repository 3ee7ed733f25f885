/** Loading policy files into a `Policy`: read, answer from the cache or compile. */
import { InvalidArgumentError, PolicyReadError } from "../errors.js";
import { cacheInputs, readCache, writeCache } from "./cache.js";
import { compiler, preloadCompiler } from "./compile-loader.js";
import type { LoadOptions, PolicySource, RuleExampleReport } from "./load-types.js";
import { Policy } from "./policy.js";
import { readRegularFileSync } from "./regular-file.js";

export { MAX_POLICY_FILE_BYTES } from "./load-types.js";
export type { ExampleResult, LoadOptions, PolicySource, RuleExampleReport } from "./load-types.js";

/**
 * Parse policy sources in order into one `Policy`. Rules accumulate across files; examples are
 * validated at the end of each file. Throws `PolicyDiagnosticError` (with file:line:col) on the
 * first problem.
 */
export function parsePolicy(sources: PolicySource[], options: LoadOptions = {}): Policy {
  return new Policy(compiler().compileSources(sources, options));
}

/**
 * Read policy files as UTF-8 text, in order. Throws `PolicyReadError` naming the file; one that is
 * not a regular file (a FIFO would block the read) is refused unread, its `cause` a
 * `NotRegularFileError` saying what was found.
 * Reads are synchronous on purpose: rules files are small, read once per load, and a thread-pool
 * round trip per file was a measurable part of `policy-check` start-up on a busy machine.
 */
export async function readPolicySources(files: string[]): Promise<PolicySource[]> {
  if (!Array.isArray(files) || files.some((f) => typeof f !== "string")) throw new InvalidArgumentError("files", "expected an array of file paths");
  return files.map((path) => {
    try {
      return { path, source: readRegularFileSync(path).toString("utf8") };
    } catch (e) {
      throw new PolicyReadError(path, e);
    }
  });
}

/** Read and parse policy files in order (see `parsePolicy`). */
export async function loadPolicy(files: string[], options: LoadOptions = {}): Promise<Policy> {
  const sources = await readPolicySources(files);
  const { cacheDir } = options;
  // Only complete, validated loads are cached; non-default budgets or skipped checks are not.
  const cacheable = cacheDir !== undefined && options.validateExamples !== false && options.maxSteps === undefined;
  const inputs = cacheable ? cacheInputs(sources) : "";
  if (cacheable) {
    const hit = await readCache(cacheDir, inputs);
    if (hit) return new Policy(hit);
  }
  await preloadCompiler();
  const contents = compiler().compileSources(sources, options);
  if (!cacheable) return new Policy(contents);
  await writeCache(cacheDir, inputs, contents);
  return new Policy(contents);
}

/**
 * Run every `match`/`not_match` example of every `prefix_rule` call and report each outcome
 * instead of failing at the first one (for `policy-check test`). Syntax and evaluation errors
 * still throw.
 */
export function collectExampleResults(sources: PolicySource[], options: LoadOptions = {}): RuleExampleReport[] {
  return compiler().collectExampleResults(sources, options);
}
