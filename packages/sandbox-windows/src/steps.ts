// The ordered steps of a Windows run, as data: the plan prints them, the transform and the runner
// carry them out through the Win32 layer, and the tests compare the two. Capability SIDs are
// named by role (`workspace`, `cwd`, `readonly`) so a plan needs no SID store.
import type { WinWritableRoot } from "./roots.js";

/**
 * Who an ACE is for: a capability SID the restricted token carries, by role, or (elevated mode
 * only) the sandbox user account's SID.
 */
export type Capability = "workspace" | "cwd" | "readonly" | "sandbox-user";

/** Access rights as the Win32 constants name them (masks in `win32-api.ts`). */
export type AccessRight =
  | "FILE_GENERIC_READ" | "FILE_GENERIC_WRITE" | "FILE_GENERIC_EXECUTE"
  | "FILE_WRITE_DATA" | "FILE_APPEND_DATA" | "FILE_WRITE_EA" | "FILE_WRITE_ATTRIBUTES"
  | "DELETE" | "FILE_DELETE_CHILD" | "WRITE_DAC" | "WRITE_OWNER" | "GENERIC_READ" | "GENERIC_EXECUTE";

/** Where an ACE applies: the object alone, its descendants alone, or both. */
export type Inheritance = "this-object-only" | "children-only" | "this-and-children";

/** One ACE added for a run (and revoked after it unless kept). */
export interface AceStep {
  readonly step: "grant-ace" | "deny-ace";
  readonly phase: "host-before";
  readonly path: string;
  readonly capabilities: readonly Capability[];
  readonly rights: readonly AccessRight[];
  readonly inheritance: Inheritance;
  readonly why: string;
}

export type WinStep =
  | { readonly step: "capability-sids"; readonly phase: "host-before"; readonly capabilities: readonly Capability[]; readonly store: string }
  | { readonly step: "create-placeholder"; readonly phase: "host-before"; readonly path: string; readonly protects: string }
  | AceStep
  | { readonly step: "write-denybin"; readonly phase: "host-before"; readonly dir: string; readonly files: readonly string[] }
  | {
      readonly step: "firewall-block";
      readonly phase: "host-before";
      readonly rule: string;
      readonly direction: "outbound";
      readonly identity: "sandbox-user";
      /** Proxy mode: the only destinations left open (the session proxy's loopback ports). */
      readonly except?: ReadonlyArray<{ readonly protocol: "TCP"; readonly remoteAddress: "127.0.0.1"; readonly remotePort: number }>;
    }
  | { readonly step: "create-restricted-token"; readonly phase: "runner"; readonly api: "CreateRestrictedToken"; readonly flags: readonly string[]; readonly restrictingSids: readonly Capability[] }
  | { readonly step: "create-job-object"; readonly phase: "runner"; readonly limits: readonly string[] }
  | { readonly step: "create-process"; readonly phase: "runner"; readonly api: "CreateProcessAsUserW"; readonly flags: readonly string[]; readonly commandLine: string; readonly cwd: string; readonly stdio: "inherited" }
  | { readonly step: "assign-to-job"; readonly phase: "runner" }
  | { readonly step: "resume-thread"; readonly phase: "runner" }
  | { readonly step: "wait-for-exit"; readonly phase: "runner"; readonly exitCode: "the command's" }
  | { readonly step: "revoke-aces"; readonly phase: "host-after"; readonly count: number; readonly kept: boolean }
  | { readonly step: "remove-placeholders"; readonly phase: "host-after"; readonly paths: readonly string[] };

/** Flags of `CreateRestrictedToken`: every privilege but SeChangeNotify dropped, LUA (filtered admin), write-restricted. */
export const TOKEN_FLAGS: readonly string[] = Object.freeze(["DISABLE_MAX_PRIVILEGE", "LUA_TOKEN", "WRITE_RESTRICTED"]);

/** Job limits: the whole tree dies when the runner's handle closes (timeout, cancel, host exit). */
export const JOB_LIMITS: readonly string[] = Object.freeze(["JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE", "JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION"]);

/** Created suspended so it joins the job before it runs a single instruction (no child escapes the job). */
export const PROCESS_FLAGS: readonly string[] = Object.freeze(["CREATE_SUSPENDED", "CREATE_UNICODE_ENVIRONMENT", "CREATE_NO_WINDOW"]);

/** The Win32 path of the null device. */
export const NUL_DEVICE = "\\\\.\\NUL";

const ROOT_SELF: readonly AccessRight[] = ["FILE_GENERIC_READ", "FILE_GENERIC_WRITE", "FILE_GENERIC_EXECUTE"];
const ROOT_CHILDREN: readonly AccessRight[] = ["FILE_GENERIC_READ", "FILE_GENERIC_WRITE", "FILE_GENERIC_EXECUTE", "DELETE"];
const PROTECTED_DENY: readonly AccessRight[] = [
  "FILE_WRITE_DATA", "FILE_APPEND_DATA", "FILE_WRITE_EA", "FILE_WRITE_ATTRIBUTES", "DELETE", "FILE_DELETE_CHILD", "WRITE_DAC", "WRITE_OWNER",
];

/**
 * The ACL steps for the writable roots, in order: placeholders for missing protected paths, the
 * grants on each root, the denies on each protected path, the pins, the null device. Deny ACEs
 * are explicit, so Windows orders them before the inherited grants; a root's own grant has no
 * DELETE (the root cannot be renamed away) and nothing grants FILE_DELETE_CHILD, so an object
 * whose DELETE is denied cannot be removed through its parent either.
 */
export function aclSteps(roots: readonly WinWritableRoot[], capabilities: readonly Capability[]): WinStep[] {
  const steps: WinStep[] = [];
  const placed = new Set<string>();
  for (const r of roots) {
    for (const c of r.readOnly) {
      if (c.exists !== false || !c.placeholder || placed.has(c.placeholder.toLowerCase())) continue;
      placed.add(c.placeholder.toLowerCase());
      steps.push({ step: "create-placeholder", phase: "host-before", path: c.placeholder, protects: c.path });
    }
  }
  for (const r of roots) {
    const cap: Capability = r.capability;
    steps.push({ step: "grant-ace", phase: "host-before", path: r.path, capabilities: [cap], rights: ROOT_SELF, inheritance: "this-object-only", why: `writable root (${r.source}); no DELETE on the root itself` });
    steps.push({ step: "grant-ace", phase: "host-before", path: r.path, capabilities: [cap], rights: ROOT_CHILDREN, inheritance: "children-only", why: `everything below the writable root (${r.source})` });
  }
  const denied = new Set<string>();
  for (const r of roots) {
    for (const c of r.readOnly) {
      const target = c.exists === false && c.placeholder ? c.placeholder : c.path;
      if (denied.has(target.toLowerCase())) continue;
      denied.add(target.toLowerCase());
      steps.push({ step: "deny-ace", phase: "host-before", path: target, capabilities, rights: PROTECTED_DENY, inheritance: "this-and-children", why: c.exists === false ? `placeholder holding the missing ${c.reason} path ${c.path}` : `${c.reason} path stays read-only` });
    }
  }
  for (const r of roots) {
    for (const d of r.pinned) {
      if (denied.has(d.toLowerCase())) continue;
      denied.add(d.toLowerCase());
      steps.push({ step: "deny-ace", phase: "host-before", path: d, capabilities, rights: ["DELETE"], inheritance: "this-object-only", why: "holds a protected path or nested root: cannot be renamed" });
    }
  }
  steps.push({ step: "grant-ace", phase: "host-before", path: NUL_DEVICE, capabilities, rights: ["FILE_GENERIC_READ", "FILE_GENERIC_WRITE"], inheritance: "this-object-only", why: "writes to NUL must work under a write-restricted token" });
  return steps;
}
