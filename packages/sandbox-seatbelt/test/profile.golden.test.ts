// Second line only: the profile text itself, so that a change to it is seen in review. What the
// text enforces is proven by the evaluator (policy-shapes.test.ts), not here.
import { describe, expect, it } from "vitest";
import { buildSeatbeltProfile } from "../src/index.js";

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
});
