// A fake of the Win32 layer: it records every call in order and simulates results (handles,
// exit codes, failures), so that the transform's and the runner's sequences are tested on any OS.
// It proves the order and the arguments of the calls, not what Windows does with them.
import type { AceRecord, CreateProcessRequest, Win32Api, Win32Handle } from "./win32-api.js";

/** One recorded call: the method and its arguments (handles by id). */
export interface FakeCall {
  readonly call: keyof Win32Api;
  readonly args: readonly unknown[];
}

export interface FakeWin32Options {
  /** The exit code `waitForExit` returns (default 0). */
  exitCode?: number;
  /** Make a call fail: the method name, and optionally only when its first argument (a path) matches. */
  failOn?: { call: keyof Win32Api; path?: string; message?: string };
}

/** The fake, with what it recorded and the state it simulates. */
export interface FakeWin32Api extends Win32Api {
  readonly calls: FakeCall[];
  /** ACEs currently in place, as the fake's ACLs hold them. */
  readonly aces: AceRecord[];
  /** Directories and files it created and still holds. */
  readonly created: Set<string>;
  /** Job handles closed (a closed job killed its processes). */
  readonly closed: Win32Handle[];
}

/** Make a fake Win32 layer. */
export function createFakeWin32Api(options: FakeWin32Options = {}): FakeWin32Api {
  const calls: FakeCall[] = [];
  const aces: AceRecord[] = [];
  const created = new Set<string>();
  const closed: Win32Handle[] = [];
  let next = 1;
  const handle = (kind: Win32Handle["kind"]): Win32Handle => ({ kind, id: next++ });
  const record = (call: keyof Win32Api, ...args: unknown[]): void => {
    calls.push({ call, args });
    const f = options.failOn;
    if (f && f.call === call && (f.path === undefined || args[0] === f.path || (args[0] as AceRecord | undefined)?.path === f.path)) {
      throw new Error(f.message ?? `${call} failed (simulated): Access is denied.`);
    }
  };
  const same = (a: AceRecord, b: AceRecord) => a.path === b.path && a.sid === b.sid && a.mode === b.mode && a.mask === b.mask && a.inheritance === b.inheritance;
  return {
    calls, aces, created, closed,
    async addAce(ace) {
      record("addAce", ace);
      aces.push(ace);
    },
    async removeAce(ace) {
      record("removeAce", ace);
      const i = aces.findIndex((a) => same(a, ace));
      if (i >= 0) aces.splice(i, 1);
    },
    async createDirectory(p) {
      record("createDirectory", p);
      created.add(p);
    },
    async removeEmptyDirectory(p) {
      record("removeEmptyDirectory", p);
      created.delete(p);
    },
    async writeFile(p, text) {
      record("writeFile", p, text);
      created.add(p);
    },
    async createRestrictedToken(flags, sids) {
      record("createRestrictedToken", [...flags], [...sids]);
      return handle("token");
    },
    async createJobObject(limits) {
      record("createJobObject", [...limits]);
      return handle("job");
    },
    async createProcessAsUser(req: CreateProcessRequest) {
      record("createProcessAsUser", { ...req, env: { ...req.env } });
      return { process: handle("process"), thread: handle("process"), pid: 4242 };
    },
    async assignProcessToJob(job, proc) {
      record("assignProcessToJob", job, proc);
    },
    async resumeThread(thread) {
      record("resumeThread", thread);
    },
    async waitForExit(proc) {
      record("waitForExit", proc);
      return options.exitCode ?? 0;
    },
    async closeHandle(h) {
      record("closeHandle", h);
      closed.push(h);
    },
  };
}
