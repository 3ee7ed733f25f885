// Network denials of proxy-routed runs: the network is not off, and a host already allowed is never
// offered its grant again.
import { describe, expect, it } from "vitest";
import { denialForAudience, explainSandboxDenial, type DenialEvidence } from "../src/index.js";
import { workspaceWrite } from "./helpers.js";

const WS = "/work/ws";
function evidence(stderr: string): DenialEvidence {
  return {
    exitCode: 1,
    stdout: "",
    stderr,
    sandboxType: "linux",
    denialSignals: { exitCodes: [159], signals: ["SIGSYS"], refusalErrnos: ["EROFS", "EBUSY"] },
    policy: workspaceWrite(),
    writableRoots: [{ root: WS, readOnlySubpaths: [], pinnedAncestors: [] }],
    cwd: WS,
    homeDir: "/home/me",
  };
}
const npmFailure = "npm error request to https://registry.example.org/ms failed, reason: getaddrinfo EAI_AGAIN registry.example.org\n";

describe("network denials of proxy-routed runs", () => {
  it("a host already allowed: no --allow-domain for it, the summary does not say the network is off", () => {
    const allowed = (h: string) => h === "registry.example.org";
    const d = explainSandboxDenial(evidence(npmFailure), { audience: "cli", network: { proxied: true, allowed } })!;
    expect(d.grant).toMatchObject({ proxied: true, allowedHosts: ["registry.example.org"] });
    expect(d.summary).toBe("registry.example.org could not be reached through shellgate's network proxy, although it is allowed");
    expect(d.suggestion).not.toContain("--allow-domain");
    expect(d.suggestion).toContain("registry.example.org is already allowed");
    expect(d.suggestion).toContain("shellgate check --host registry.example.org");
    const model = denialForAudience(d, "model");
    expect(model.suggestion).not.toMatch(/ask the user to allow registry\.example\.org/);
    expect(model.suggestion).toContain("already allowed");
    // Control: not allowed yet, the grant is the way out.
    const notYet = explainSandboxDenial(evidence(npmFailure), { audience: "cli", network: { proxied: true, allowed: () => false } })!;
    expect(notYet.suggestion).toContain("--allow-domain registry.example.org");
    expect(notYet.summary).toBe("registry.example.org could not be reached (the network goes through shellgate's proxy, which lets only allowed hosts through)");
  });

  it("only the hosts not yet allowed are suggested", () => {
    const two = "curl: (6) Could not resolve host: a.example.com\ncurl: (6) Could not resolve host: b.example.com\n";
    const d = explainSandboxDenial(evidence(two), { audience: "cli", network: { proxied: true, allowed: (h) => h === "a.example.com" } })!;
    expect(d.suggestion).toContain("--allow-domain b.example.com");
    expect(d.suggestion).not.toContain("--allow-domain a.example.com");
  });

  it("without a proxy the network is off, as before", () => {
    const d = explainSandboxDenial(evidence(npmFailure), { audience: "cli" })!;
    expect(d.summary).toBe("network access is off (registry.example.org could not be reached)");
    expect(d.suggestion).toContain("--allow-domain registry.example.org");
  });
});
