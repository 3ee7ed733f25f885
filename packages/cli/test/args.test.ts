import { describe, expect, it } from "vitest";
import { configOverrides, CONFIG_OPTIONS, parseCommandArgs, parseProcessLimit } from "../src/args.js";
import { DEFAULT_PROCESS_LIMIT, PROCESS_LIMIT_MAX, PROCESS_LIMIT_MIN } from "../src/config/names.js";
import { DEFAULT_PROCESS_LIMIT as LINUX_DEFAULT_PROCESS_LIMIT } from "@shellgate/sandbox-linux";
import { UsageError } from "../src/index.js";
import { debugRequested, stripDebug } from "../src/run-command.js";

const options = { ...CONFIG_OPTIONS, json: { type: "boolean" as const }, help: { type: "boolean" as const } };

describe("parseCommandArgs", () => {
  it("splits options from the command after --", () => {
    const parsed = parseCommandArgs(["--json", "-r", "a.rules", "--rules", "b.rules", "--", "ls", "-la", "--json"], options);
    expect(parsed.values["json"]).toBe(true);
    expect(parsed.values["rules"]).toEqual(["a.rules", "b.rules"]);
    expect(parsed.hadTerminator).toBe(true);
    expect(parsed.command).toEqual(["ls", "-la", "--json"]);
  });

  it("starts the command at the first word that is not an option; later options are the command's", () => {
    const parsed = parseCommandArgs(["--json", "--cwd", "/tmp", "git", "status", "--short", "--json"], options);
    expect(parsed.values["json"]).toBe(true);
    expect(parsed.values["cwd"]).toBe("/tmp");
    expect(parsed.hadTerminator).toBe(false);
    expect(parsed.command).toEqual(["git", "status", "--short", "--json"]);
  });

  it("takes --network bare (on), with on|off, or as --no-network (off)", () => {
    const network = (...args: string[]) => ({ ...parseCommandArgs(args, options), overrides: configOverrides(parseCommandArgs(args, options).values) });
    expect(network("--network", "ls")).toMatchObject({ overrides: { network: true }, command: ["ls"] });
    expect(network("--network", "on", "ls")).toMatchObject({ overrides: { network: true }, command: ["ls"] });
    expect(network("--network", "off", "ls")).toMatchObject({ overrides: { network: false }, command: ["ls"] });
    expect(network("--network=on", "ls")).toMatchObject({ overrides: { network: true }, command: ["ls"] });
    expect(network("--no-network", "ls")).toMatchObject({ overrides: { network: false }, command: ["ls"] });
    // `true` is a command, not a value of a bare --network
    expect(network("--network", "true")).toMatchObject({ overrides: { network: true }, command: ["true"] });
    expect(network("--network")).toMatchObject({ overrides: { network: true }, command: [] });
  });

  it("refuses a command for a command that takes options only", () => {
    expect(() => parseCommandArgs(["--json", "ls"], options, false)).toThrow(/unexpected argument "ls"/);
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
    expect(() => configOverrides(parseCommandArgs(["--network=maybe"], options).values)).toThrow(/--network: expected on or off/);
  });
});

describe("--debug", () => {
  it("is a shellgate flag only before --", () => {
    expect(debugRequested(["--debug", "--", "x"])).toBe(true);
    expect(debugRequested(["--", "node", "--debug"])).toBe(false);
    expect(stripDebug(["--debug", "--json", "--", "x", "--debug"])).toEqual(["--json", "--", "x", "--debug"]);
    expect(stripDebug(["--debug", "--cwd", "/tmp", "node", "--debug"])).toEqual(["--cwd", "/tmp", "node", "--debug"]);
    expect(debugRequested(["node", "--debug"])).toBe(false);
  });
});

describe("--process-limit", () => {
  it("takes a whole number from 8 to 4194304, or off", () => {
    const overrides = (...args: string[]) => configOverrides(parseCommandArgs(args, options).values);
    expect(overrides("--process-limit", "8", "ls")).toMatchObject({ processLimit: 8 });
    expect(overrides("--process-limit=off", "ls")).toMatchObject({ processLimit: "off" });
    expect(parseProcessLimit("4194304")).toBe(4_194_304);
    for (const bad of ["7", "0", "-1", "4194305", "1e3", "12.5", " 8", "", "OFF", "none"]) {
      expect(() => parseProcessLimit(bad), bad).toThrow(UsageError);
      expect(() => parseProcessLimit(bad), bad).toThrow(`--process-limit: expected a whole number from 8 to 4194304, or off, got ${JSON.stringify(bad)}`);
    }
  });

  it("has the Linux backend's bounds and default", () => {
    expect(DEFAULT_PROCESS_LIMIT).toBe(LINUX_DEFAULT_PROCESS_LIMIT);
    expect([PROCESS_LIMIT_MIN, PROCESS_LIMIT_MAX]).toEqual([8, 4_194_304]);
  });
});
