import { describe, expect, it } from "vitest";
import { configOverrides, CONFIG_OPTIONS, parseCommandArgs, parseMillis } from "../src/args.js";
import { UsageError } from "../src/index.js";
import { debugRequested, stripDebug } from "../src/run-command.js";

const options = { ...CONFIG_OPTIONS, json: { type: "boolean" as const }, help: { type: "boolean" as const } };

describe("parseCommandArgs", () => {
  it("splits options from the command after --", () => {
    const parsed = parseCommandArgs(["--json", "-r", "a.rules", "--rules", "b.rules", "--", "ls", "-la", "--json"], options);
    expect(parsed.values["json"]).toBe(true);
    expect(parsed.values["rules"]).toEqual(["a.rules", "b.rules"]);
    expect(parsed.hadTerminator).toBe(true);
    expect(parsed.afterTerminator).toEqual(["ls", "-la", "--json"]);
  });

  it("names an unknown option in a usage error", () => {
    expect(() => parseCommandArgs(["--jsn"], options)).toThrow(UsageError);
    expect(() => parseCommandArgs(["--jsn"], options)).toThrow(/--jsn/);
    expect(() => parseCommandArgs(["--rules"], options)).toThrow(/--rules/);
  });

  it("turns flags into configuration overrides with checked values", () => {
    const { values } = parseCommandArgs(["--approval-policy", "never", "--sandbox", "read-only", "--network", "off", "--no-default-rules", "--cwd", "/tmp"], options);
    expect(configOverrides(values)).toEqual({ approvalPolicy: "never", sandboxMode: "read-only", network: false, noDefaultRules: true, cwd: "/tmp" });
    expect(() => configOverrides(parseCommandArgs(["--approval-policy", "sometimes"], options).values)).toThrow(/--approval-policy: expected one of untrusted/);
    expect(() => configOverrides(parseCommandArgs(["--sandbox", "none"], options).values)).toThrow(/--sandbox/);
    expect(() => configOverrides(parseCommandArgs(["--network", "maybe"], options).values)).toThrow(/--network/);
  });

  it("parses milliseconds strictly", () => {
    expect(parseMillis("--timeout", "250")).toBe(250);
    expect(() => parseMillis("--timeout", "1.5")).toThrow(/--timeout/);
    expect(() => parseMillis("--timeout", "-1")).toThrow(/--timeout/);
  });
});

describe("--debug", () => {
  it("is a shellgate flag only before --", () => {
    expect(debugRequested(["--debug", "--", "x"])).toBe(true);
    expect(debugRequested(["--", "node", "--debug"])).toBe(false);
    expect(stripDebug(["--debug", "--json", "--", "x", "--debug"])).toEqual(["--json", "--", "x", "--debug"]);
  });
});
