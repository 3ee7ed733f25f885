import path from "node:path";
import { z } from "zod";
import type { CommandSpec } from "./backend.js";
import { InvalidCommandSpecError } from "./errors.js";
import { firstZodIssue } from "./zod-issues.js";

/** The zod form of `CommandSpec`, for commands that arrive from outside. */
export const CommandSpecSchema = z.strictObject({
  argv: z.array(z.string()).min(1, "must name a program"),
  cwd: z
    .string()
    .min(1, "must not be empty")
    .refine((p) => path.isAbsolute(p), { message: "must be an absolute path" }),
  env: z.record(z.string(), z.string()),
});

/**
 * Validate a command spec.
 * @throws InvalidCommandSpecError naming the offending field (e.g. `argv`, `cwd`, `env.PATH`).
 */
export function parseCommandSpec(input: unknown): CommandSpec {
  const result = CommandSpecSchema.safeParse(input);
  if (result.success) return result.data;
  const { field, message } = firstZodIssue(result.error, "(command)");
  throw new InvalidCommandSpecError(field, message, { cause: result.error });
}
