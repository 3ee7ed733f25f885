import path from "node:path";
import { appendAllowPrefixRule, loadPolicy, type Policy } from "@shellgate/execpolicy";
import type { PolicyEvaluator } from "../admission/policy-types.js";

/** How a `PolicyStore` reads and amends rules files (execpolicy's `loadPolicy` / `appendAllowPrefixRule`). */
export interface PolicyIo<P extends PolicyEvaluator = Policy> {
  loadPolicy(files: string[]): Promise<P>;
  /** `options.sandbox` writes the rule with that sandbox (`sandbox="…"`, a shellgate extension). */
  appendAllowPrefixRule(file: string, prefix: readonly string[], options?: AmendSandbox): Promise<{ added: boolean }>;
}

/** The sandbox an "always allow" rule keeps its commands in. */
export interface AmendSandbox {
  sandbox: "read-only" | "workspace-write";
}

/** The real files: execpolicy's loader and its locked, deduplicating append. */
export const EXECPOLICY_IO: PolicyIo<Policy> = {
  loadPolicy: (files) => loadPolicy(files),
  appendAllowPrefixRule: (file, prefix, options) => appendAllowPrefixRule(file, prefix, options ? { sandbox: options.sandbox } : {}),
};

/**
 * The loaded rules and the files they came from. Amendments are serialised (one at a time), written
 * with execpolicy's safe append, and followed by a reload, so the next identical call sees the new rule.
 */
export class PolicyStore<P extends PolicyEvaluator = Policy> {
  #policy: P | null;
  #files: string[];
  readonly #io: PolicyIo<P>;
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * Wrap an already loaded policy. `files` are what `reload` re-reads; `io` defaults to the real
   * execpolicy loader and append (tests may substitute).
   */
  constructor(policy: P | null, files: readonly string[] = [], io?: PolicyIo<P>) {
    this.#io = io ?? (EXECPOLICY_IO as unknown as PolicyIo<P>);
    this.#policy = policy;
    this.#files = files.map((f) => path.resolve(f));
  }

  /**
   * Load `files` (in precedence order, lowest first); no files means no rules.
   * @throws PolicyDiagnosticError (from execpolicy) naming file:line:col of the first problem.
   */
  static async load(files: readonly string[]): Promise<PolicyStore<Policy>>;
  static async load<P extends PolicyEvaluator>(files: readonly string[], io: PolicyIo<P>): Promise<PolicyStore<P>>;
  static async load(files: readonly string[], io: PolicyIo<PolicyEvaluator> = EXECPOLICY_IO): Promise<PolicyStore<PolicyEvaluator>> {
    const resolved = files.map((f) => path.resolve(f));
    const policy = resolved.length > 0 ? await io.loadPolicy(resolved) : null;
    return new PolicyStore(policy, resolved, io);
  }

  /** The current rules, or `null` when no file is loaded. */
  get policy(): P | null {
    return this.#policy;
  }

  /** The loaded files (absolute), in load order. */
  get files(): readonly string[] {
    return [...this.#files];
  }

  /** Re-read every file. A file that fails to parse leaves the previous rules in place and throws. */
  reload(): Promise<void> {
    return this.#serial(async () => {
      this.#policy = this.#files.length > 0 ? await this.#io.loadPolicy([...this.#files]) : null;
    });
  }

  /**
   * Append `prefix` as an allow rule to `file` and reload. A file not yet loaded joins the list last
   * (highest precedence) — only after the append succeeded, so a failed write changes nothing.
   */
  amendAndReload(file: string, prefix: readonly string[], options?: AmendSandbox): Promise<{ added: boolean }> {
    return this.#serial(async () => {
      const target = path.resolve(file);
      const result = options ? await this.#io.appendAllowPrefixRule(target, prefix, options) : await this.#io.appendAllowPrefixRule(target, prefix);
      const files = this.#files.includes(target) ? [...this.#files] : [...this.#files, target];
      this.#policy = await this.#io.loadPolicy(files);
      this.#files = files;
      return result;
    });
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
