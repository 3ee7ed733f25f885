import { z } from "zod";
import { InvalidProcessSpecError } from "./errors.js";

/** Default byte cap of every output buffer (1 MiB), as in the exec spec. */
export const DEFAULT_OUTPUT_CAP_BYTES = 1024 * 1024;
/** Default timeout of a process when `timeoutMs` is absent. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** How long pipes may stay open after the process exited before we stop reading them. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 2_000;
/**
 * The longest timeout a timer can hold (2^31-1 ms, about 24.8 days). Node fires a longer one at
 * once (with a TimeoutOverflowWarning), which would kill the command as it starts; a longer
 * timeout is held to this instead.
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;
/** Time between SIGTERM and SIGKILL when a tree is terminated. */
export const DEFAULT_KILL_GRACE_MS = 500;
/** PTY size when none is given (the unified-exec default). */
export const DEFAULT_PTY_COLS = 80;
export const DEFAULT_PTY_ROWS = 24;

const noNul = (s: string) => !s.includes("\0");
// Shared by the fields that take the same thing: zod schemas are immutable, and each instance is
// built at every start of a CLI process (~20 µs apiece there).
const noNulString = z.string().refine(noNul, "must not contain NUL bytes");
const optionalMillis = z.number().int().min(0).max(60_000).optional();

/** Schema of a process to start; shared by pipes and PTYs. */
export const ProcessSpecSchema = z.object({
  argv: z.array(noNulString).min(1, "must name a program").readonly()
    .refine((a) => (a[0] ?? "") !== "", "argv[0] must not be empty"),
  cwd: z.string().refine((p) => p.startsWith("/"), "must be an absolute path").refine(noNul, "must not contain NUL bytes"),
  env: z.record(z.string().refine((k) => k !== "" && !k.includes("=") && noNul(k), "bad variable name"), noNulString),
  /**
   * Milliseconds until the tree is terminated; 0 or Infinity disable the timeout; more than
   * `MAX_TIMEOUT_MS` is `MAX_TIMEOUT_MS`. Default 10 000.
   */
  timeoutMs: z.union([z.number().min(0), z.custom<number>((v) => v === Number.POSITIVE_INFINITY)]).optional(),
  signal: z.instanceof(AbortSignal).optional(),
  stdin: z.enum(["ignore", "pipe"]).optional(),
  outputCapBytes: z.number().int().min(2).max(2 ** 31).optional(),
  /** SIGTERM → SIGKILL grace on termination. Default 500 ms. */
  killGraceMs: optionalMillis,
  /** How long to keep reading pipes after exit. Default 2 000 ms. */
  drainTimeoutMs: optionalMillis,
  /** Kill what is left of the process group when the leader exits on its own. Default true. */
  reapOnExit: z.boolean().optional(),
  /**
   * Put the tree under the host-death watchdog (a `/bin/sh` that kills it when this process dies,
   * even by SIGKILL). Default true. Pass false only for a program that guarantees itself that it
   * and every descendant die with this process — bubblewrap with `--die-with-parent` and a PID
   * namespace does — which spares a one-shot host the watchdog's process start.
   */
  hostDeathWatchdog: z.boolean().optional(),
});

/**
 * Schema of a PTY session: a process plus a terminal size and optional headless rendering. Built on
 * first use (a one-shot host that only starts pipes never builds it); `.unwrap()` is the object schema.
 */
export const PtySpecSchema = z.lazy(() =>
  ProcessSpecSchema.extend({
    cols: z.number().int().min(1).max(10_000).optional(),
    rows: z.number().int().min(1).max(10_000).optional(),
    /** Feed the output through a headless terminal so `result().rendered` holds what a person would see. */
    render: z.boolean().optional(),
    /** Scrollback lines of that headless terminal. Default 1000. */
    renderScrollback: z.number().int().min(0).max(1_000_000).optional(),
  }),
);

/** Input accepted by `spawnPipe`. */
export type ProcessSpec = z.input<typeof ProcessSpecSchema>;
/** Input accepted by `spawnPty`. */
export type PtySpec = z.input<typeof PtySpecSchema>;

/** A validated spec with every default filled in. */
export interface ResolvedSpec {
  argv: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal | undefined;
  stdin: "ignore" | "pipe";
  outputCapBytes: number;
  killGraceMs: number;
  drainTimeoutMs: number;
  reapOnExit: boolean;
  hostDeathWatchdog: boolean;
}

/** A validated PTY spec with every default filled in. */
export interface ResolvedPtySpec extends ResolvedSpec {
  cols: number;
  rows: number;
  render: boolean;
  renderScrollback: number;
}

function fail(error: z.ZodError): never {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "spec";
  throw new InvalidProcessSpecError(field, issue?.message ?? "invalid", { cause: error });
}

function base(s: z.output<typeof ProcessSpecSchema>): ResolvedSpec {
  const t = s.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    argv: s.argv,
    cwd: s.cwd,
    env: s.env,
    timeoutMs: t === 0 || !Number.isFinite(t) ? 0 : Math.min(t, MAX_TIMEOUT_MS),
    signal: s.signal,
    stdin: s.stdin ?? "ignore",
    outputCapBytes: s.outputCapBytes ?? DEFAULT_OUTPUT_CAP_BYTES,
    killGraceMs: s.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    drainTimeoutMs: s.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS,
    reapOnExit: s.reapOnExit ?? true,
    hostDeathWatchdog: s.hostDeathWatchdog ?? true,
  };
}

/** Validates a pipe spec; throws `InvalidProcessSpecError` naming the field. */
export function resolveProcessSpec(input: unknown): ResolvedSpec {
  const r = ProcessSpecSchema.safeParse(input);
  if (!r.success) fail(r.error);
  return base(r.data);
}

/** Validates a PTY spec; throws `InvalidProcessSpecError` naming the field. */
export function resolvePtySpec(input: unknown): ResolvedPtySpec {
  const r = PtySpecSchema.safeParse(input);
  if (!r.success) fail(r.error);
  return {
    ...base(r.data),
    cols: r.data.cols ?? DEFAULT_PTY_COLS,
    rows: r.data.rows ?? DEFAULT_PTY_ROWS,
    render: r.data.render ?? false,
    renderScrollback: r.data.renderScrollback ?? 1000,
  };
}
