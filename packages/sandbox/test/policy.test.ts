import { describe, expect, it } from "vitest";
import {
  InvalidSandboxPolicyError,
  parseSandboxPermissionRequest,
  parseSandboxPolicy,
  policyAllowsNetwork,
  policyRequiresPlatformSandbox,
} from "../src/index.js";

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSandboxPolicyError);
    expect((error as InvalidSandboxPolicyError).code).toBe("SANDBOX_INVALID_POLICY");
    return (error as InvalidSandboxPolicyError).field;
  }
  throw new Error("expected InvalidSandboxPolicyError");
}

describe("parseSandboxPolicy", () => {
  it("applies the defaults of workspace-write", () => {
    expect(parseSandboxPolicy({ mode: "workspace-write" })).toEqual({
      mode: "workspace-write",
      writableRoots: [],
      networkAccess: false,
      excludeTmpdirEnvVar: false,
      excludeSlashTmp: false,
      deniedReadPaths: [],
    });
    expect(parseSandboxPolicy({ mode: "external-sandbox" })).toEqual({ mode: "external-sandbox", networkAccess: false });
  });

  it.each<[string, unknown, string]>([
    ["an unknown mode", { mode: "yolo" }, "mode"],
    ["a missing mode", {}, "mode"],
    ["a non-object", "workspace-write", "(policy)"],
    ["a relative writable root", { mode: "workspace-write", writableRoots: ["/ok", "rel"] }, "writableRoots.1"],
    ["an empty writable root", { mode: "workspace-write", writableRoots: [""] }, "writableRoots.0"],
    ["a wrongly typed flag", { mode: "workspace-write", excludeSlashTmp: "no" }, "excludeSlashTmp"],
    ["a relative denied-read path", { mode: "read-only", deniedReadPaths: ["secrets"] }, "deniedReadPaths.0"],
    ["an unknown key", { mode: "danger-full-access", networkAccess: false }, "networkAccess"],
  ])("rejects %s, naming the field", (_title, input, field) => {
    expect(fieldOf(() => parseSandboxPolicy(input))).toBe(field);
  });

  it("answers network and sandbox questions per mode", () => {
    const p = (x: unknown) => parseSandboxPolicy(x);
    expect(policyAllowsNetwork(p({ mode: "read-only" }))).toBe(false);
    expect(policyAllowsNetwork(p({ mode: "danger-full-access" }))).toBe(true);
    expect(policyAllowsNetwork(p({ mode: "workspace-write", networkAccess: true }))).toBe(true);
    expect(policyAllowsNetwork(p({ mode: "external-sandbox" }))).toBe(false);
    expect(policyRequiresPlatformSandbox(p({ mode: "read-only" }))).toBe(true);
    expect(policyRequiresPlatformSandbox(p({ mode: "workspace-write" }))).toBe(true);
    expect(policyRequiresPlatformSandbox(p({ mode: "danger-full-access" }))).toBe(false);
    expect(policyRequiresPlatformSandbox(p({ mode: "external-sandbox", networkAccess: true }))).toBe(false);
  });
});

describe("parseSandboxPermissionRequest", () => {
  it("defaults to use_default and keeps a justification", () => {
    expect(parseSandboxPermissionRequest({})).toEqual({ permissions: "use_default" });
    expect(parseSandboxPermissionRequest({ permissions: "require_escalated", justification: "Allow npm to reach the registry?" })).toEqual({
      permissions: "require_escalated",
      justification: "Allow npm to reach the registry?",
    });
  });

  it("rejects unknown permissions and empty justifications, naming the field", () => {
    expect(fieldOf(() => parseSandboxPermissionRequest({ permissions: "root" }))).toBe("permissions");
    expect(fieldOf(() => parseSandboxPermissionRequest({ justification: "" }))).toBe("justification");
  });
});
