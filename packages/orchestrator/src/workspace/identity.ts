import { realpathSync, statSync } from "node:fs";
import { OrchestratorConfigError, WorkspaceChangedError } from "../errors.js";

/** What a workspace directory is, as opposed to what it is called: its real path and its device + inode. */
export interface WorkspaceIdentity {
  /** The path the session was configured with. */
  readonly path: string;
  /** `realpath` of `path` when the identity was taken. */
  readonly realPath: string;
  readonly dev: number;
  readonly ino: number;
}

/**
 * Take the identity of the session's workspace (synchronously: the orchestrator's constructor does it).
 * @throws OrchestratorConfigError naming `cwd` when the path does not resolve to a directory.
 */
export function captureWorkspaceIdentity(cwd: string): WorkspaceIdentity {
  let realPath: string;
  try {
    realPath = realpathSync(cwd);
  } catch (error) {
    throw new OrchestratorConfigError("cwd", `${cwd} does not exist`, { cause: error });
  }
  const info = statSync(realPath, { bigint: false });
  if (!info.isDirectory()) throw new OrchestratorConfigError("cwd", `${cwd} is not a directory`);
  return Object.freeze({ path: cwd, realPath, dev: info.dev, ino: info.ino });
}

/**
 * Check that `identity.path` still names the same directory: same real path, same device and inode.
 * A workspace renamed away and replaced (by a symlink to `/`, or another directory) would otherwise
 * hand the next command whatever now sits under the old name as its writable root.
 * @throws WorkspaceChangedError with the recorded and the current identity.
 */
export async function verifyWorkspaceIdentity(identity: WorkspaceIdentity): Promise<void> {
  let realPath: string | undefined;
  let current: { dev: number; ino: number } | undefined;
  try {
    // Synchronous: checked before every command, two lookups of one local path.
    realPath = realpathSync.native(identity.path);
    const info = statSync(realPath);
    current = { dev: info.dev, ino: info.ino };
  } catch {
    // Gone (renamed away, deleted): the identity certainly changed.
  }
  if (realPath === identity.realPath && current?.dev === identity.dev && current.ino === identity.ino) return;
  throw new WorkspaceChangedError(identity, realPath !== undefined && current ? { realPath, ...current } : undefined);
}
