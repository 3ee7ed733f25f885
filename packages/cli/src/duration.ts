import { InvalidDurationError } from "./errors.js";

/**
 * The longest duration shellgate takes, in milliseconds: Node's timers hold at most 2^31-1 ms
 * (about 24.8 days) and fire at once for anything longer.
 */
export const MAX_DURATION_MS = 2 ** 31 - 1;

const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
type Unit = keyof typeof UNIT_MS;
// Largest unit first, each at most once: `1h30m`, `1m30s`, `2.5s`, `500ms`.
const ORDER: readonly Unit[] = ["h", "m", "s", "ms"];
const PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/gy;

/** What a duration looks like, for messages and `--help`. */
export const DURATION_FORMS = "a duration such as 500ms, 30s, 2m, 1m30s or 1h, or a whole number of milliseconds";

/**
 * Parse a duration: a whole number is milliseconds (kept from before units were accepted, so
 * `--timeout 5000` still means five seconds); otherwise one or more `<number><unit>` parts, largest
 * unit first and each unit once, with units `h`, `m`, `s` and `ms` (`1m30s`, `2.5s`). The result is
 * a whole number of milliseconds from 0 to {@link MAX_DURATION_MS}; what 0 means is the caller's.
 * A config file's number is taken as milliseconds too.
 * @param source what gave the value, for the message: a flag (`--timeout`) or a config key (`timeout`).
 * @throws InvalidDurationError naming `source` and the value: no sign, no spaces, no other units, no
 * fraction of a millisecond, nothing above the maximum.
 */
export function parseDuration(source: string, value: string | number): number {
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0) throw new InvalidDurationError(source, value, `expected ${DURATION_FORMS}`);
    return checkMax(source, value, value);
  }
  if (/^\d+$/.test(value)) return checkMax(source, value, Number(value));
  let total = 0;
  let next = 0;
  PART.lastIndex = 0;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = PART.exec(value)) !== null) {
    const unit = m[2] as Unit;
    const at = ORDER.indexOf(unit);
    if (at < next) throw new InvalidDurationError(source, value, `expected ${DURATION_FORMS} (units largest first, each once)`);
    next = at + 1;
    total += Number(m[1]) * UNIT_MS[unit];
    end = PART.lastIndex;
  }
  if (value === "" || end !== value.length) throw new InvalidDurationError(source, value, `expected ${DURATION_FORMS}`);
  // `1.0005s` is no whole number of milliseconds; rounding would change what was asked for.
  const ms = Math.round(total);
  if (Math.abs(ms - total) > 1e-6) throw new InvalidDurationError(source, value, "a duration must be a whole number of milliseconds");
  return checkMax(source, value, ms);
}

function checkMax(source: string, value: string | number, ms: number): number {
  if (ms > MAX_DURATION_MS) {
    throw new InvalidDurationError(source, value, `the longest duration is ${MAX_DURATION_MS} ms (about 24 days); use 0 for none where that is allowed`);
  }
  return ms;
}

/** A duration in the shortest exact words (`600000` → `10m`, `90000` → `1m30s`), for messages and `--help`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0";
  let rest = ms;
  let out = "";
  for (const unit of ORDER) {
    const n = Math.floor(rest / UNIT_MS[unit]);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * UNIT_MS[unit];
  }
  return out;
}
