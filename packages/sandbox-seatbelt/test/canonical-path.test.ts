import { describe, expect, it } from "vitest";
import { toDarwinCanonicalPath } from "../src/testing.js";

describe("toDarwinCanonicalPath: what macOS's kernel reports to Seatbelt", () => {
  it.each([
    ["/tmp", "/private/tmp"],
    ["/tmp/x y/é", "/private/tmp/x y/é"],
    ["/var/folders/ab/T", "/private/var/folders/ab/T"],
    ["/etc/hosts", "/private/etc/hosts"],
    ["/tmp/", "/private/tmp"],
    ["/tmp//a/./b", "/private/tmp/a/b"],
  ])("%s → %s", (given, canonical) => {
    expect(toDarwinCanonicalPath(given)).toBe(canonical);
  });

  it.each(["/private/tmp/a", "/private/var", "/tmpfoo", "/variable", "/Users/me/tmp", "/", "/usr/etc"])("leaves %s as it is", (p) => {
    expect(toDarwinCanonicalPath(p)).toBe(p);
  });

  it("is idempotent and refuses relative paths", () => {
    expect(toDarwinCanonicalPath(toDarwinCanonicalPath("/var/x"))).toBe("/private/var/x");
    expect(() => toDarwinCanonicalPath("tmp/x")).toThrow(TypeError);
  });
});
