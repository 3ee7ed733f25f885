/**
 * The command of a deferred (two-step) run, as the helper's `--command-fd` reads it: a 4-byte
 * little-endian length L, then L bytes holding the program and each argument, each ended by a NUL.
 * The helper refuses anything else (see read_command in the helper's source).
 */

/** The descriptor a deferred run's command arrives on (`ExecEnv.deferred`). */
export const COMMAND_FD = 3;

/** Largest command the helper accepts on its descriptor (the L of the format). */
export const MAX_COMMAND_BYTES = 1024 * 1024;

/**
 * How a deferred sandbox ends whose descriptor closed before any byte of a command: the caller
 * discarded it and nothing ran.
 */
export const DISCARDED_EXIT_CODE = 120;

const LENGTH_BYTES = 4;

/**
 * The payload that starts `argv` in a deferred sandbox, or undefined when the format cannot carry
 * it: no program name, a NUL inside an argument (it would split it in two; exec refuses it too),
 * or over `MAX_COMMAND_BYTES`. The one-step argv is then the only form of the run.
 */
export function encodeCommand(argv: readonly string[]): Uint8Array | undefined {
  if (argv.length === 0 || argv[0] === "" || argv.some((arg) => arg.includes("\0"))) return undefined;
  const parts = argv.map((arg) => Buffer.from(`${arg}\0`, "utf8"));
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  if (length > MAX_COMMAND_BYTES) return undefined;
  const payload = Buffer.alloc(LENGTH_BYTES + length);
  payload.writeUInt32LE(length, 0);
  let at = LENGTH_BYTES;
  for (const part of parts) at += part.copy(payload, at);
  return new Uint8Array(payload.buffer, payload.byteOffset, payload.length);
}
