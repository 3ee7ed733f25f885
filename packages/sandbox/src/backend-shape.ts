import { UNSANDBOXED, type SandboxBackend } from "./backend.js";
import { InvalidSandboxBackendError } from "./errors.js";

// Checked by hand rather than with a zod schema: a backend is code, not data, and registration runs
// on every CLI start, where building and first-parsing a schema measured 4 ms.

const ERRNOS: ReadonlySet<string> = new Set(["EROFS", "EACCES", "EPERM", "EBUSY"]);

function fail(field: string, message: string): never {
  throw new InvalidSandboxBackendError(field, message);
}

function checkArray(value: unknown, field: string, item: (v: unknown) => boolean, what: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) fail(field, "must be an array");
  value.forEach((v, i) => {
    if (!item(v)) fail(`${field}.${i}`, `must be ${what}`);
  });
}

/**
 * The parts of `SandboxBackend` a manager relies on. Backends come from integrators and from
 * packages loaded by name at run time, so a wrong shape is reported at registration rather than as
 * a TypeError in the middle of a command.
 * @throws InvalidSandboxBackendError naming the first field that is wrong.
 */
export function checkBackendShape(backend: SandboxBackend): void {
  if (typeof backend !== "object" || backend === null) fail("backend", "must be an object");
  const b = backend as unknown as Record<string, unknown>;
  if (typeof b["name"] !== "string" || b["name"] === "") fail("name", "must be a non-empty string");
  if (typeof b["platform"] !== "string" || b["platform"] === "") fail("platform", "must be a process.platform value");
  if (typeof b["sandboxType"] !== "string" || b["sandboxType"] === "") fail("sandboxType", "must be a non-empty string");
  if (b["sandboxType"] === UNSANDBOXED) fail("sandboxType", `must not be "${UNSANDBOXED}", which means unsandboxed`);
  const markers = b["envMarkers"];
  if (markers !== undefined) {
    if (typeof markers !== "object" || markers === null || Array.isArray(markers)) fail("envMarkers", "must be an object of strings");
    for (const [name, value] of Object.entries(markers)) {
      if (typeof value !== "string") fail(`envMarkers.${name}`, "must be a string");
    }
  }
  const signals = b["denialSignals"];
  if (signals !== undefined) {
    if (typeof signals !== "object" || signals === null || Array.isArray(signals)) fail("denialSignals", "must be an object");
    const s = signals as Record<string, unknown>;
    checkArray(s["exitCodes"], "denialSignals.exitCodes", (v) => Number.isInteger(v), "an integer");
    checkArray(s["signals"], "denialSignals.signals", (v) => typeof v === "string", "a signal name");
    checkArray(s["keywords"], "denialSignals.keywords", (v) => typeof v === "string" && v !== "", "a non-empty string");
    checkArray(s["refusalErrnos"], "denialSignals.refusalErrnos", (v) => typeof v === "string" && ERRNOS.has(v), `one of ${[...ERRNOS].join(", ")}`);
  }
  const transport = b["proxyTransport"];
  if (transport !== undefined && transport !== "unix-socket" && transport !== "loopback-tcp") fail("proxyTransport", 'must be "unix-socket" or "loopback-tcp"');
  for (const method of ["isAvailable", "plan", "transform"]) {
    if (typeof b[method] !== "function") fail(method, "must be a function");
  }
}
