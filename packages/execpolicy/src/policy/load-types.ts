/** Types and limits shared by loading and compiling. */

/** Largest policy file accepted (bytes of text). */
export const MAX_POLICY_FILE_BYTES = 16 * 1024 * 1024;

/** Options for loading/parsing. */
export interface LoadOptions {
  /** Evaluation step budget per file (default `DEFAULT_MAX_STEPS`). */
  maxSteps?: number;
  /** Use the literal-calls fast path when a file qualifies (default true; tests compare both paths). */
  fastPath?: boolean;
  /** Run `match`/`not_match` checks at the end of each file (default true). */
  validateExamples?: boolean;
  /**
   * `loadPolicy` only: directory of the compiled-policy cache (see `defaultPolicyCacheDir()`).
   * When set, an unchanged set of files is answered from the cache without parsing.
   */
  cacheDir?: string;
}

/** One source to parse: its identifier (shown in diagnostics) and text. */
export interface PolicySource {
  path: string;
  source: string;
}

/** Outcome of one example of one `prefix_rule` call (see `collectExampleResults`). */
export interface ExampleResult {
  kind: "match" | "not_match";
  example: string[];
  passed: boolean;
}

/** All example outcomes of one `prefix_rule` call. */
export interface RuleExampleReport {
  source: { file: string; line: number; column: number };
  pattern: string[];
  results: ExampleResult[];
}

