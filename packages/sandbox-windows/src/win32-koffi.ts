// The real Win32 layer, through the koffi FFI package (prebuilt binaries for Windows ship inside
// its npm packages: no compiler on the user's machine). Loaded only on win32, lazily, so that a
// Linux install and the CLI's start-up never load a native module. NOT RUN ON WINDOWS IN THIS
// REPOSITORY'S CI: the calls follow the Win32 documentation and are typed by hand.
import fs from "node:fs/promises";
import { createRequire } from "node:module";
import { WindowsSandboxError } from "./errors.js";
import { inheritanceFlags, type AceRecord, type CreateProcessRequest, type Win32Api, type Win32Handle } from "./win32-api.js";

/** The bit of koffi this layer uses. */
interface KoffiFn {
  (...args: unknown[]): unknown;
}
interface KoffiLib {
  func(signature: string): KoffiFn;
}
interface Koffi {
  load(name: string): KoffiLib;
  struct(name: string, fields: Record<string, unknown>): unknown;
  alloc(type: unknown, count: number): unknown;
  sizeof(type: unknown): number;
  address(ptr: unknown): bigint;
}

const TOKEN_FLAG_BITS: Readonly<Record<string, number>> = { DISABLE_MAX_PRIVILEGE: 0x1, SANDBOX_INERT: 0x2, LUA_TOKEN: 0x4, WRITE_RESTRICTED: 0x8 };
const JOB_LIMIT_BITS: Readonly<Record<string, number>> = { JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: 0x2000, JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION: 0x400 };
const PROCESS_FLAG_BITS: Readonly<Record<string, number>> = { CREATE_SUSPENDED: 0x4, CREATE_UNICODE_ENVIRONMENT: 0x400, CREATE_NO_WINDOW: 0x0800_0000 };

const bits = (table: Readonly<Record<string, number>>, names: readonly string[]): number =>
  names.reduce((m, n) => {
    const b = table[n];
    if (b === undefined) throw new WindowsSandboxError("setup-failed", `unknown Win32 flag ${n}`);
    return (m | b) >>> 0;
  }, 0);

/** Load koffi from this package's dependencies (the CLI bundle's own location may not see them). */
function requireKoffi(): Koffi {
  const here = createRequire(import.meta.url);
  try {
    return here("koffi") as Koffi;
  } catch {
    const own = here.resolve("@shellgate/sandbox-windows/package.json");
    return createRequire(own)("koffi") as Koffi;
  }
}

/**
 * The real layer. Throws `WindowsSandboxError("unavailable")` off Windows or when koffi (an optional
 * dependency of this package) or its Windows prebuilt is missing.
 */
export async function loadKoffiWin32Api(): Promise<Win32Api> {
  if (process.platform !== "win32") throw new WindowsSandboxError("unavailable", `the Win32 layer runs on Windows only (this is ${process.platform})`);
  let koffi: Koffi;
  try {
    koffi = requireKoffi();
  } catch (error) {
    throw new WindowsSandboxError("unavailable", `cannot load koffi (an optional dependency of @shellgate/sandbox-windows; install it, e.g. npm install koffi): ${(error as Error).message}`, { cause: error });
  }
  return bindWin32(koffi);
}

function bindWin32(koffi: Koffi): Win32Api {
  const kernel32 = koffi.load("kernel32.dll");
  const advapi32 = koffi.load("advapi32.dll");
  const TRUSTEE_W = koffi.struct("TRUSTEE_W", { pMultipleTrustee: "void *", MultipleTrusteeOperation: "int", TrusteeForm: "int", TrusteeType: "int", ptstrName: "void *" });
  koffi.struct("EXPLICIT_ACCESS_W", { grfAccessPermissions: "uint32_t", grfAccessMode: "int", grfInheritance: "uint32_t", Trustee: TRUSTEE_W });
  // Registered by name: the signatures below refer to it.
  koffi.struct("SID_AND_ATTRIBUTES", { Sid: "void *", Attributes: "uint32_t" });
  const STARTUPINFOW = koffi.struct("STARTUPINFOW", {
    cb: "uint32_t", lpReserved: "void *", lpDesktop: "void *", lpTitle: "void *", dwX: "uint32_t", dwY: "uint32_t", dwXSize: "uint32_t", dwYSize: "uint32_t",
    dwXCountChars: "uint32_t", dwYCountChars: "uint32_t", dwFillAttribute: "uint32_t", dwFlags: "uint32_t", wShowWindow: "uint16_t", cbReserved2: "uint16_t",
    lpReserved2: "void *", hStdInput: "void *", hStdOutput: "void *", hStdError: "void *",
  });
  koffi.struct("PROCESS_INFORMATION", { hProcess: "void *", hThread: "void *", dwProcessId: "uint32_t", dwThreadId: "uint32_t" });
  const BASIC_LIMIT = koffi.struct("JOBOBJECT_BASIC_LIMIT_INFORMATION", {
    PerProcessUserTimeLimit: "int64_t", PerJobUserTimeLimit: "int64_t", LimitFlags: "uint32_t", MinimumWorkingSetSize: "size_t", MaximumWorkingSetSize: "size_t",
    ActiveProcessLimit: "uint32_t", Affinity: "uintptr_t", PriorityClass: "uint32_t", SchedulingClass: "uint32_t",
  });
  const IO_COUNTERS = koffi.struct("IO_COUNTERS", { a: "uint64_t", b: "uint64_t", c: "uint64_t", d: "uint64_t", e: "uint64_t", f: "uint64_t" });
  const EXTENDED_LIMIT = koffi.struct("JOBOBJECT_EXTENDED_LIMIT_INFORMATION", {
    BasicLimitInformation: BASIC_LIMIT, IoInfo: IO_COUNTERS, ProcessMemoryLimit: "size_t", JobMemoryLimit: "size_t", PeakProcessMemoryUsed: "size_t", PeakJobMemoryUsed: "size_t",
  });

  const GetLastError = kernel32.func("uint32_t __stdcall GetLastError()");
  const CloseHandle = kernel32.func("bool __stdcall CloseHandle(void *h)");
  const LocalFree = kernel32.func("void * __stdcall LocalFree(void *p)");
  const GetCurrentProcess = kernel32.func("void * __stdcall GetCurrentProcess()");
  const GetStdHandle = kernel32.func("void * __stdcall GetStdHandle(int32_t n)");
  const SetHandleInformation = kernel32.func("bool __stdcall SetHandleInformation(void *h, uint32_t mask, uint32_t flags)");
  const CreateJobObjectW = kernel32.func("void * __stdcall CreateJobObjectW(void *attrs, const char16_t *name)");
  const SetInformationJobObject = kernel32.func("bool __stdcall SetInformationJobObject(void *job, int cls, _In_ JOBOBJECT_EXTENDED_LIMIT_INFORMATION *info, uint32_t len)");
  const AssignProcessToJobObject = kernel32.func("bool __stdcall AssignProcessToJobObject(void *job, void *proc)");
  const ResumeThread = kernel32.func("uint32_t __stdcall ResumeThread(void *thread)");
  const WaitForSingleObject = kernel32.func("uint32_t __stdcall WaitForSingleObject(void *h, uint32_t ms)");
  const GetExitCodeProcess = kernel32.func("bool __stdcall GetExitCodeProcess(void *h, _Out_ uint32_t *code)");
  const OpenProcessToken = advapi32.func("bool __stdcall OpenProcessToken(void *proc, uint32_t access, _Out_ void **token)");
  const ConvertStringSidToSidW = advapi32.func("bool __stdcall ConvertStringSidToSidW(const char16_t *s, _Out_ void **sid)");
  const CreateRestrictedToken = advapi32.func(
    "bool __stdcall CreateRestrictedToken(void *existing, uint32_t flags, uint32_t nDisable, void *disable, uint32_t nPriv, void *privs, uint32_t nRestrict, _In_ SID_AND_ATTRIBUTES *restrict, _Out_ void **token)",
  );
  const GetNamedSecurityInfoW = advapi32.func(
    "uint32_t __stdcall GetNamedSecurityInfoW(const char16_t *name, int type, uint32_t info, void *owner, void *group, _Out_ void **dacl, void *sacl, _Out_ void **sd)",
  );
  const SetEntriesInAclW = advapi32.func("uint32_t __stdcall SetEntriesInAclW(uint32_t n, _In_ EXPLICIT_ACCESS_W *entries, void *old, _Out_ void **acl)");
  const SetNamedSecurityInfoW = advapi32.func("uint32_t __stdcall SetNamedSecurityInfoW(const char16_t *name, int type, uint32_t info, void *owner, void *group, void *dacl, void *sacl)");
  const CreateProcessAsUserW = advapi32.func(
    "bool __stdcall CreateProcessAsUserW(void *token, void *app, void *cmd, void *pa, void *ta, bool inherit, uint32_t flags, void *env, const char16_t *cwd, _In_ STARTUPINFOW *si, _Out_ PROCESS_INFORMATION *pi)",
  );

  const SE_FILE_OBJECT = 1;
  const DACL_SECURITY_INFORMATION = 4;
  const fail = (what: string, code?: number): never => {
    throw new WindowsSandboxError("setup-failed", `${what} failed (Win32 error ${code ?? (GetLastError() as number)})`);
  };

  const handles = new Map<number, unknown>();
  let nextId = 1;
  const wrap = (kind: Win32Handle["kind"], raw: unknown): Win32Handle => {
    const h = { kind, id: nextId++ };
    handles.set(h.id, raw);
    return h;
  };
  const raw = (h: Win32Handle): unknown => {
    const r = handles.get(h.id);
    if (r === undefined) throw new WindowsSandboxError("setup-failed", `unknown ${h.kind} handle ${h.id}`);
    return r;
  };

  function withSid<T>(sid: string, use: (psid: unknown) => T): T {
    const out: unknown[] = [null];
    if (!ConvertStringSidToSidW(sid, out)) fail(`ConvertStringSidToSidW(${sid})`);
    try {
      return use(out[0]);
    } finally {
      LocalFree(out[0]);
    }
  }

  /** Read the DACL, merge one entry (grant, deny or revoke), write it back. */
  function changeAcl(path: string, sid: string, accessMode: number, mask: number, inheritance: number): void {
    withSid(sid, (psid) => {
      const dacl: unknown[] = [null];
      const sd: unknown[] = [null];
      const got = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, null, null, dacl, null, sd) as number;
      if (got !== 0) fail(`GetNamedSecurityInfoW(${path})`, got);
      try {
        const entry = { grfAccessPermissions: mask, grfAccessMode: accessMode, grfInheritance: inheritance, Trustee: { pMultipleTrustee: null, MultipleTrusteeOperation: 0, TrusteeForm: 0, TrusteeType: 0, ptstrName: psid } };
        const next: unknown[] = [null];
        const merged = SetEntriesInAclW(1, [entry], dacl[0], next) as number;
        if (merged !== 0) fail(`SetEntriesInAclW(${path})`, merged);
        try {
          const set = SetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, null, null, next[0], null) as number;
          if (set !== 0) fail(`SetNamedSecurityInfoW(${path})`, set);
        } finally {
          LocalFree(next[0]);
        }
      } finally {
        LocalFree(sd[0]);
      }
    });
  }

  return {
    async addAce(ace: AceRecord) {
      // GRANT_ACCESS = 1, DENY_ACCESS = 3
      changeAcl(ace.path, ace.sid, ace.mode === "grant" ? 1 : 3, ace.mask, inheritanceFlags(ace.inheritance));
    },
    async removeAce(ace: AceRecord) {
      // REVOKE_ACCESS = 4 removes every ACE of the SID on the object; the SIDs are shellgate's own.
      changeAcl(ace.path, ace.sid, 4, 0, 0);
    },
    createDirectory: (p) => fs.mkdir(p).then(() => undefined),
    removeEmptyDirectory: (p) => fs.rmdir(p).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e))),
    writeFile: (p, text) => fs.writeFile(p, text),
    async createRestrictedToken(flags, sids) {
      const current: unknown[] = [null];
      // TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY | TOKEN_ADJUST_DEFAULT | TOKEN_ADJUST_SESSIONID
      if (!OpenProcessToken(GetCurrentProcess(), 0x0002 | 0x0008 | 0x0001 | 0x0080 | 0x0100, current)) fail("OpenProcessToken");
      const converted: unknown[] = [];
      try {
        const entries = sids.map((s) => {
          const out: unknown[] = [null];
          if (!ConvertStringSidToSidW(s, out)) fail(`ConvertStringSidToSidW(${s})`);
          converted.push(out[0]);
          return { Sid: out[0], Attributes: 0 };
        });
        const token: unknown[] = [null];
        if (!CreateRestrictedToken(current[0], bits(TOKEN_FLAG_BITS, flags), 0, null, 0, null, entries.length, entries, token)) fail("CreateRestrictedToken");
        return wrap("token", token[0]);
      } finally {
        for (const p of converted) LocalFree(p);
        CloseHandle(current[0]);
      }
    },
    async createJobObject(limits) {
      const job = CreateJobObjectW(null, null);
      if (!job) fail("CreateJobObjectW");
      const info = {
        BasicLimitInformation: { PerProcessUserTimeLimit: 0, PerJobUserTimeLimit: 0, LimitFlags: bits(JOB_LIMIT_BITS, limits), MinimumWorkingSetSize: 0, MaximumWorkingSetSize: 0, ActiveProcessLimit: 0, Affinity: 0, PriorityClass: 0, SchedulingClass: 0 },
        IoInfo: { a: 0, b: 0, c: 0, d: 0, e: 0, f: 0 }, ProcessMemoryLimit: 0, JobMemoryLimit: 0, PeakProcessMemoryUsed: 0, PeakJobMemoryUsed: 0,
      };
      // JobObjectExtendedLimitInformation = 9
      if (!SetInformationJobObject(job, 9, info, koffi.sizeof(EXTENDED_LIMIT))) {
        CloseHandle(job);
        fail("SetInformationJobObject");
      }
      return wrap("job", job);
    },
    async createProcessAsUser(req: CreateProcessRequest) {
      const std = [GetStdHandle(-10), GetStdHandle(-11), GetStdHandle(-12)];
      // HANDLE_FLAG_INHERIT = 1: the command writes straight into the pipes the host gave the runner.
      for (const h of std) if (h) SetHandleInformation(h, 1, 1);
      const si = {
        cb: koffi.sizeof(STARTUPINFOW), lpReserved: null, lpDesktop: null, lpTitle: null, dwX: 0, dwY: 0, dwXSize: 0, dwYSize: 0, dwXCountChars: 0, dwYCountChars: 0,
        dwFillAttribute: 0, dwFlags: 0x100 /* STARTF_USESTDHANDLES */, wShowWindow: 0, cbReserved2: 0, lpReserved2: null, hStdInput: std[0], hStdOutput: std[1], hStdError: std[2],
      };
      const pi: Record<string, unknown> = {};
      // The command line buffer must be writable (CreateProcessW may change it in place).
      const cmd = Buffer.from(`${req.commandLine}\0`, "utf16le");
      const names = Object.keys(req.env).sort((a, b) => a.toUpperCase().localeCompare(b.toUpperCase()));
      const block = Buffer.from(`${names.map((k) => `${k}=${req.env[k]}`).join("\0")}\0\0`, "utf16le");
      if (!CreateProcessAsUserW(raw(req.token), null, cmd, null, null, true, bits(PROCESS_FLAG_BITS, req.flags), block, req.cwd, si, pi)) fail("CreateProcessAsUserW");
      return { process: wrap("process", pi["hProcess"]), thread: wrap("process", pi["hThread"]), pid: Number(pi["dwProcessId"]) };
    },
    async assignProcessToJob(job, proc) {
      if (!AssignProcessToJobObject(raw(job), raw(proc))) fail("AssignProcessToJobObject");
    },
    async resumeThread(thread) {
      if ((ResumeThread(raw(thread)) as number) === 0xffff_ffff) fail("ResumeThread");
    },
    async waitForExit(proc) {
      // INFINITE; the runner has nothing else to do, and a kill of the runner closes the job.
      WaitForSingleObject(raw(proc), 0xffff_ffff);
      const code: number[] = [0];
      if (!GetExitCodeProcess(raw(proc), code)) fail("GetExitCodeProcess");
      return code[0] ?? 1;
    },
    async closeHandle(h) {
      const r = handles.get(h.id);
      if (r !== undefined) CloseHandle(r);
      handles.delete(h.id);
    },
  };
}
