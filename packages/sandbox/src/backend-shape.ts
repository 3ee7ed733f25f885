import { z } from "zod";
import { UNSANDBOXED, type SandboxBackend } from "./backend.js";
import { InvalidSandboxBackendError } from "./errors.js";
import { firstZodIssue } from "./zod-issues.js";

/**
 * The parts of `SandboxBackend` a manager relies on. Backends come from integrators and from
 * packages loaded by name at run time, so a wrong shape is reported at registration rather than as
 * a TypeError in the middle of a command.
 */
function buildSchema(): z.ZodType {
  const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", { message: "must be a function" });
  return z.looseObject({
    name: z.string().min(1, "must be a non-empty string"),
    platform: z.string().min(1, "must be a process.platform value"),
    sandboxType: z
      .string()
      .min(1, "must be a non-empty string")
      .refine((t) => t !== UNSANDBOXED, `must not be "${UNSANDBOXED}", which means unsandboxed`),
    envMarkers: z.record(z.string(), z.string()).optional(),
    denialSignals: z
      .looseObject({
        exitCodes: z.array(z.number().int()).optional(),
        signals: z.array(z.string()).optional(),
        refusalErrnos: z.array(z.enum(["EROFS", "EACCES", "EPERM", "EBUSY"])).optional(),
      })
      .optional(),
    isAvailable: fn,
    plan: fn,
    transform: fn,
  });
}

// Built on first registration, not at import: every CLI start imports this package.
let schema: z.ZodType | undefined;

/** @throws InvalidSandboxBackendError naming the first field that is wrong. */
export function checkBackendShape(backend: SandboxBackend): void {
  if (typeof backend !== "object" || backend === null) throw new InvalidSandboxBackendError("backend", "must be an object");
  schema ??= buildSchema();
  const parsed = schema.safeParse(backend);
  if (parsed.success) return;
  const { field, message } = firstZodIssue(parsed.error, "backend");
  throw new InvalidSandboxBackendError(field, message);
}
