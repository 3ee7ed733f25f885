import { describe, expect, it } from "vitest";
import { formatDuration, InvalidDurationError, MAX_DURATION_MS, parseDuration, UsageError } from "../src/index.js";

function failure(value: string | number, source = "--timeout"): InvalidDurationError {
  try {
    parseDuration(source, value);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidDurationError);
    return error as InvalidDurationError;
  }
  throw new Error(`${JSON.stringify(value)} was accepted`);
}

describe("parseDuration", () => {
  it.each([
    ["500ms", 500], ["30s", 30_000], ["2m", 120_000], ["1m30s", 90_000], ["1h", 3_600_000], ["1h2m3s4ms", 3_723_004],
    ["2.5s", 2500], ["0.5m", 30_000], ["0s", 0], ["0", 0],
    // a bare number is milliseconds, as it was before units were accepted
    ["3", 3], ["5000", 5000],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration("--timeout", text)).toBe(ms);
  });

  it("takes a config file's number as milliseconds", () => {
    expect(parseDuration("timeout", 600_000)).toBe(600_000);
    expect(parseDuration("timeout", 0)).toBe(0);
    expect(failure(-1, "timeout").message).toMatch(/^timeout: expected a duration such as 500ms, 30s, 2m, 1m30s or 1h.*, got -1$/);
    expect(failure(1.5, "timeout").source).toBe("timeout");
  });

  it.each(["", "soon", "-1", "-5s", "+5s", "5 s", " 5s", "5S", "5d", "1.5", "s", "1s1m", "1s1s", "1m30", "1.0005s", "5sec"])(
    "refuses %j, naming the flag and the value",
    (text) => {
      const e = failure(text);
      expect(e.code).toBe("CLI_INVALID_DURATION");
      expect(e).toBeInstanceOf(UsageError);
      expect(e.message.startsWith("--timeout: ")).toBe(true);
      expect(e.message.endsWith(`got ${JSON.stringify(text)}`)).toBe(true);
      expect(e.value).toBe(text);
    },
  );

  it("holds at most 2^31-1 ms, what a timer can (control: the maximum itself passes)", () => {
    expect(MAX_DURATION_MS).toBe(2_147_483_647);
    expect(parseDuration("--timeout", String(MAX_DURATION_MS))).toBe(MAX_DURATION_MS);
    expect(failure(String(MAX_DURATION_MS + 1)).message).toMatch(/the longest duration is 2147483647 ms/);
    expect(failure("600h").message).toMatch(/the longest duration/);
    expect(failure(2 ** 40, "timeout_ms").message).toMatch(/^timeout_ms: the longest duration/);
  });

  it("formats back in the shortest exact words", () => {
    expect(formatDuration(600_000)).toBe("10m");
    expect(formatDuration(90_000)).toBe("1m30s");
    expect(formatDuration(3_723_004)).toBe("1h2m3s4ms");
    expect(formatDuration(0)).toBe("0");
    for (const ms of [1, 999, 61_001, MAX_DURATION_MS]) expect(parseDuration("x", formatDuration(ms))).toBe(ms);
  });
});
