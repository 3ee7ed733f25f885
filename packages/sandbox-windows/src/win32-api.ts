// The Win32 layer: the few calls the backend makes, typed, behind one interface. The real one
// (`win32-koffi.ts`) is loaded only on Windows; tests use the fake (`win32-fake.ts`), which records
// every call. Keeping it this small is what makes the fake believable.
import type { AccessRight, Inheritance } from "./steps.js";

/** An opaque handle (a token, a job, a process) owned by the layer. */
export interface Win32Handle {
  readonly kind: "token" | "job" | "process";
  readonly id: number;
}

/** An ACE the layer added, enough to take exactly that ACE off again. */
export interface AceRecord {
  readonly path: string;
  readonly sid: string;
  readonly mode: "grant" | "deny";
  readonly mask: number;
  readonly inheritance: Inheritance;
}

export interface CreateProcessRequest {
  readonly token: Win32Handle;
  readonly commandLine: string;
  readonly cwd: string;
  /** The environment of the new process; the runner passes its own. */
  readonly env: Readonly<Record<string, string>>;
  readonly flags: readonly string[];
}

/** The Win32 calls the backend needs, host side (ACLs, placeholders) and runner side (token, job, process). */
export interface Win32Api {
  /** Add one explicit ACE for `sid` on `path` (`SetEntriesInAclW` + `SetNamedSecurityInfoW`), keeping the others. */
  addAce(ace: AceRecord): Promise<void>;
  /** Remove exactly this ACE again (same SID, mode, mask and inheritance); a missing one is not an error. */
  removeAce(ace: AceRecord): Promise<void>;
  /** Create an empty directory (a placeholder for a missing protected path). */
  createDirectory(path: string): Promise<void>;
  /** Remove a directory this layer created, only when it is still empty. */
  removeEmptyDirectory(path: string): Promise<void>;
  /** Write a small file (the deny-bin stubs). */
  writeFile(path: string, text: string): Promise<void>;
  /** `CreateRestrictedToken` from the current process token, with these flags and restricting SIDs. */
  createRestrictedToken(flags: readonly string[], restrictingSids: readonly string[]): Promise<Win32Handle>;
  /** `CreateJobObjectW` + `SetInformationJobObject` with these limits. */
  createJobObject(limits: readonly string[]): Promise<Win32Handle>;
  /** `CreateProcessAsUserW`, inheriting the standard handles; the process starts suspended when asked. */
  createProcessAsUser(request: CreateProcessRequest): Promise<{ process: Win32Handle; thread: Win32Handle; pid: number }>;
  assignProcessToJob(job: Win32Handle, process: Win32Handle): Promise<void>;
  resumeThread(thread: Win32Handle): Promise<void>;
  /** Wait for the process and return its exit code. */
  waitForExit(process: Win32Handle): Promise<number>;
  /** Close a handle; closing the job handle kills everything in it (KILL_ON_JOB_CLOSE). */
  closeHandle(handle: Win32Handle): Promise<void>;
}

/** Access masks (winnt.h). */
export const ACCESS_MASKS: Readonly<Record<AccessRight, number>> = Object.freeze({
  FILE_WRITE_DATA: 0x0002,
  FILE_APPEND_DATA: 0x0004,
  FILE_WRITE_EA: 0x0010,
  FILE_DELETE_CHILD: 0x0040,
  FILE_WRITE_ATTRIBUTES: 0x0100,
  DELETE: 0x0001_0000,
  WRITE_DAC: 0x0004_0000,
  WRITE_OWNER: 0x0008_0000,
  FILE_GENERIC_READ: 0x0012_0089,
  FILE_GENERIC_WRITE: 0x0012_0116,
  FILE_GENERIC_EXECUTE: 0x0012_00a0,
  GENERIC_READ: 0x8000_0000,
  GENERIC_EXECUTE: 0x2000_0000,
});

/** The mask of a list of rights. */
export function accessMask(rights: readonly AccessRight[]): number {
  return rights.reduce((m, r) => (m | ACCESS_MASKS[r]) >>> 0, 0);
}

/** ACE inheritance flags (`OBJECT_INHERIT_ACE` 0x1, `CONTAINER_INHERIT_ACE` 0x2, `INHERIT_ONLY_ACE` 0x8). */
export function inheritanceFlags(inheritance: Inheritance): number {
  return inheritance === "this-object-only" ? 0 : inheritance === "children-only" ? 0x1 | 0x2 | 0x8 : 0x1 | 0x2;
}
