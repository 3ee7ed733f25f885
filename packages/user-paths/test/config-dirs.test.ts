import path from "node:path";
import { describe, expect, it } from "vitest";
import { codexRulesDir, gitGlobalConfigFiles, userConfigDir, userRulesDir } from "../src/index.js";

describe("userConfigDir", () => {
  it("prefers SHELLGATE_CONFIG_DIR, resolved", () => {
    expect(userConfigDir({ SHELLGATE_CONFIG_DIR: "rel/cfg", XDG_CONFIG_HOME: "/x", HOME: "/h" }, "linux")).toBe(path.resolve("rel/cfg"));
  });

  it("uses an absolute XDG_CONFIG_HOME and ignores a relative one", () => {
    expect(userConfigDir({ XDG_CONFIG_HOME: "/x", HOME: "/h" }, "linux")).toBe("/x/shellgate");
    expect(userConfigDir({ XDG_CONFIG_HOME: "x", HOME: "/h" }, "linux")).toBe("/h/.config/shellgate");
  });

  it("uses APPDATA on Windows only", () => {
    expect(userConfigDir({ APPDATA: "/appdata", HOME: "/h" }, "win32")).toBe(path.join("/appdata", "shellgate"));
    expect(userConfigDir({ APPDATA: "/appdata", HOME: "/h" }, "linux")).toBe("/h/.config/shellgate");
  });

  it("puts the user's rules in <config>/rules", () => {
    expect(userRulesDir({ HOME: "/h" }, "linux")).toBe("/h/.config/shellgate/rules");
  });
});

describe("codexRulesDir", () => {
  it("is $CODEX_HOME/rules, else ~/.codex/rules", () => {
    expect(codexRulesDir({ CODEX_HOME: "/c", HOME: "/h" })).toBe("/c/rules");
    expect(codexRulesDir({ HOME: "/h" })).toBe("/h/.codex/rules");
  });
});

describe("gitGlobalConfigFiles", () => {
  it("is $GIT_CONFIG_GLOBAL alone, else the XDG file (an absolute XDG_CONFIG_HOME) and ~/.gitconfig, as git reads them", () => {
    expect(gitGlobalConfigFiles({ GIT_CONFIG_GLOBAL: "/g/cfg", HOME: "/h" })).toEqual(["/g/cfg"]);
    expect(gitGlobalConfigFiles({ XDG_CONFIG_HOME: "/x", HOME: "/h" })).toEqual(["/x/git/config", "/h/.gitconfig"]);
    expect(gitGlobalConfigFiles({ XDG_CONFIG_HOME: "rel", HOME: "/h" })).toEqual(["/h/.config/git/config", "/h/.gitconfig"]);
  });
});
