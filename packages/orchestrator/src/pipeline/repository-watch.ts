import fs from "node:fs";
import { computeWritableRoots, findRunRepositories, type DirectoryListingCache, type ExecEnv, type SandboxPolicy, type TransformOptions, type WritableRoot } from "@shellgate/sandbox";
import type { ExecRequest, RunRepositoriesReport } from "./types.js";

/**
 * Looks for the git repositories a sandboxed run leaves behind. A run may create one (`git init`,
 * an unpacked archive, a `.git` file pointing anywhere) wherever it can write, and nothing holds it:
 * the person's next git command in that directory runs its hooks and config. Only a run that could
 * write is watched (`workspace-write`, inside a sandbox), and only its workspace and configured
 * writable roots are searched.
 */
export class RepositoryWatch {
  readonly #roots: Promise<WritableRoot[] | undefined>;
  readonly #startedAt: number;
  readonly #searchRoots: string[];
  readonly #cache: DirectoryListingCache;

  private constructor(roots: Promise<WritableRoot[] | undefined>, startedAt: number, searchRoots: string[], cache: DirectoryListingCache) {
    this.#roots = roots;
    this.#startedAt = startedAt;
    this.#searchRoots = searchRoots;
    this.#cache = cache;
  }

  /**
   * Note the time and the run's writable roots before it starts; undefined for a run that cannot
   * write. `cache` holds directory listings between the runs of a session (see `findRunRepositories`).
   */
  static start(policy: SandboxPolicy, env: ExecEnv, options: TransformOptions, request: ExecRequest, cache: DirectoryListingCache): RepositoryWatch | undefined {
    if (policy.mode !== "workspace-write" || env.sandboxType === "none") return undefined;
    const startedAt = Date.now();
    // The same computation the backend made when it prepared the run; a failure here leaves the
    // search undone, and the report says it is not complete.
    const roots = computeWritableRoots(policy, {
      cwd: options.sandboxPolicyCwd,
      env: request.env,
      ...(options.protectedPaths ? { protectedPaths: options.protectedPaths } : {}),
    }).catch(() => undefined);
    // The workspace and the roots configured for it; not the shared temporary directories, where
    // other programs make repositories at any time (a workspace inside one is searched all the same).
    const searchRoots = [options.sandboxPolicyCwd, ...policy.writableRoots].flatMap((p) => {
      try {
        return [fs.realpathSync.native(p)];
      } catch {
        return [];
      }
    });
    return new RepositoryWatch(roots, startedAt, searchRoots, cache);
  }

  /** After the run, its sandbox released: what appeared or changed; undefined when there is nothing to tell. */
  async finish(): Promise<RunRepositoriesReport | undefined> {
    const roots = await this.#roots;
    if (!roots) return { repositories: [], complete: false, directories: 0, listed: 0 };
    const scan = findRunRepositories(roots, this.#startedAt, { searchRoots: this.#searchRoots, cache: this.#cache });
    return scan.repositories.length > 0 || !scan.complete ? scan : undefined;
  }
}
