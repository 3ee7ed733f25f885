import os from "node:os";
import { describe, expect, it } from "vitest";
import { homeDir } from "../src/index.js";

describe("homeDir", () => {
  it("takes HOME first, then USERPROFILE, then the account's home", () => {
    expect(homeDir({ HOME: "/h/a", USERPROFILE: "C:\\Users\\b" })).toBe("/h/a");
    expect(homeDir({ USERPROFILE: "C:\\Users\\b" })).toBe("C:\\Users\\b");
    expect(homeDir({})).toBe(os.homedir());
  });

  it("treats an empty HOME as unset", () => {
    expect(homeDir({ HOME: "", USERPROFILE: "/h/b" })).toBe("/h/b");
  });
});
