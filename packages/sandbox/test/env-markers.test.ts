import { describe, expect, it } from "vitest";
import { parseSandboxPolicy, sandboxEnvMarkers, type SandboxType } from "../src/index.js";

describe("sandboxEnvMarkers", () => {
  it("names the sandbox the way Codex does for seatbelt, and linux/windows for the others", () => {
    const policy = parseSandboxPolicy({ mode: "workspace-write", networkAccess: true });
    const values: Record<SandboxType, string | undefined> = { seatbelt: "seatbelt", linux: "linux", windows: "windows", none: undefined };
    for (const [type, value] of Object.entries(values) as Array<[SandboxType, string | undefined]>) {
      expect(sandboxEnvMarkers(policy, type)["CODEX_SANDBOX"]).toBe(value);
    }
  });

  it("sets CODEX_SANDBOX_NETWORK_DISABLED=1 whenever the policy keeps the network off, whatever the sandbox", () => {
    const cases: Array<[unknown, SandboxType, Record<string, string>]> = [
      [{ mode: "read-only" }, "seatbelt", { CODEX_SANDBOX: "seatbelt", CODEX_SANDBOX_NETWORK_DISABLED: "1" }],
      [{ mode: "workspace-write" }, "linux", { CODEX_SANDBOX: "linux", CODEX_SANDBOX_NETWORK_DISABLED: "1" }],
      [{ mode: "workspace-write", networkAccess: true }, "linux", { CODEX_SANDBOX: "linux" }],
      [{ mode: "external-sandbox" }, "none", { CODEX_SANDBOX_NETWORK_DISABLED: "1" }],
      [{ mode: "external-sandbox", networkAccess: true }, "none", {}],
      [{ mode: "danger-full-access" }, "none", {}],
    ];
    for (const [input, type, expected] of cases) {
      expect(sandboxEnvMarkers(parseSandboxPolicy(input), type), JSON.stringify(input)).toEqual(expected);
    }
  });

  it("takes the backend's own markers instead of CODEX_SANDBOX=<sandboxType>, never for an unsandboxed run", () => {
    const policy = parseSandboxPolicy({ mode: "workspace-write" });
    expect(sandboxEnvMarkers(policy, "container")).toEqual({ CODEX_SANDBOX: "container", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    expect(sandboxEnvMarkers(policy, "container", { IN_CONTAINER: "yes" })).toEqual({ IN_CONTAINER: "yes", CODEX_SANDBOX_NETWORK_DISABLED: "1" });
    expect(sandboxEnvMarkers(policy, "none", { IN_CONTAINER: "yes" })).toEqual({ CODEX_SANDBOX_NETWORK_DISABLED: "1" });
  });
});
