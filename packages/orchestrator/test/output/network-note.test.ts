import { describe, expect, it } from "vitest";
import { MAX_LISTED_REFUSALS, networkNoteLines, withNetworkNote, type NetworkRefusal } from "../support/internals.js";

const report = (refusals: NetworkRefusal[], note?: string) => ({ refusals: () => refusals, note: () => note });

describe("withNetworkNote", () => {
  it("lists refused hosts after freeform output, with the reason and how to grant them", () => {
    const text = withNetworkNote("npm ERR! 403\n", report([{ host: "evil.test", port: 443, reason: "no rule or grant allows this host", hint: "re-run with --allow-domain evil.test" }]), "freeform");
    expect(text).toBe("npm ERR! 403\n[shellgate] network: refused evil.test:443: no rule or grant allows this host; to allow it: re-run with --allow-domain evil.test");
  });

  it("adds a shellgate_network array to structured output and says why a run had no network", () => {
    const text = withNetworkNote(JSON.stringify({ output: "x" }), report([], "the network proxy could not start (EMFILE), so this command ran without network"), "structured");
    expect(JSON.parse(text)).toEqual({ output: "x", shellgate_network: ["network: the network proxy could not start (EMFILE), so this command ran without network"] });
  });

  it("escapes host names (they come from the command) and caps the list", () => {
    const many = Array.from({ length: MAX_LISTED_REFUSALS + 5 }, (_, i) => ({ host: `h${i}.test`, port: 80, reason: "r" }));
    const lines = networkNoteLines(report([{ host: "x\u001b]0;pwned\u0007.test", port: 80, reason: "r" }, ...many]));
    expect(lines[0]).not.toContain("\u001b");
    expect(lines).toHaveLength(MAX_LISTED_REFUSALS + 1);
    expect(lines.at(-1)).toBe("network: 6 more hosts were refused");
    expect(withNetworkNote("out", undefined, "freeform")).toBe("out");
  });
});
