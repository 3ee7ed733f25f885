// Second line only: the profile text itself, so that a change to it is seen in review. What the
// text enforces is proven by the evaluator (policy-shapes.test.ts), not here.
import { describe, expect, it } from "vitest";
import { buildSeatbeltProfile } from "../src/testing.js";

describe("profile text (golden)", () => {
  it("workspace-write with one carve-out, one pinned entry, one denied path, network off", () => {
    const { text, params } = buildSeatbeltProfile({
      writableRoots: ["/w"], readOnlyPaths: ["/w/.git"], pinnedPaths: ["/w"], deniedReadPaths: ["/s"], network: false,
    });
    expect(params).toEqual([
      { name: "WRITABLE_ROOT_0", value: "/w" }, { name: "READ_ONLY_0", value: "/w/.git" },
      { name: "PINNED_0", value: "/w" }, { name: "DENIED_READ_0", value: "/s" },
    ]);
    expect(text).toMatchSnapshot();
  });

  it("read-only with the network on", () => {
    const { text, params } = buildSeatbeltProfile({ writableRoots: [], readOnlyPaths: [], pinnedPaths: [], deniedReadPaths: [], network: true });
    expect(params).toEqual([]);
    expect(text).toMatchSnapshot();
  });

  it("workspace-write, network through the session proxy (ports 3128 and 1080)", () => {
    const { text, params } = buildSeatbeltProfile({
      writableRoots: ["/w"], readOnlyPaths: ["/w/.git"], pinnedPaths: ["/w"], deniedReadPaths: [], network: false, proxy: { httpPort: 3128, socksPort: 1080 },
    });
    // the ports are in the text (checked integers), never parameters
    expect(params.map((p) => p.name)).toEqual(["WRITABLE_ROOT_0", "READ_ONLY_0", "PINNED_0"]);
    expect(text).toMatchSnapshot();
  });
});
