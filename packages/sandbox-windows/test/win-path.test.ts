import { describe, expect, it } from "vitest";
import { InvalidSandboxPathError } from "@shellgate/sandbox";
import { isWithinWin, parseWinPath, quoteWindowsArg, toApiPath, windowsCommandLine } from "../src/testing.js";

describe("parseWinPath", () => {
  it.each([
    ["C:\\Users\\me\\ws", "C:\\Users\\me\\ws", "drive"],
    ["c:/Users/me/ws/", "C:\\Users\\me\\ws", "drive"],
    ["C:\\", "C:\\", "drive"],
    ["C:\\a\\..\\b\\.\\c", "C:\\b\\c", "drive"],
    ["C:\\ws. ", "C:\\ws", "drive"],
    ["\\\\server\\share\\ws", "\\\\server\\share\\ws", "unc"],
    ["//server/share/ws", "\\\\server\\share\\ws", "unc"],
    ["\\\\?\\C:\\very\\long", "C:\\very\\long", "long-drive"],
    ["\\\\?\\UNC\\server\\share\\ws", "\\\\server\\share\\ws", "long-unc"],
    ["C:\\Users\\José\\my project", "C:\\Users\\José\\my project", "drive"],
  ])("%s → %s (%s)", (input, path, form) => {
    expect(parseWinPath(input, "cwd")).toEqual({ path, form });
  });

  it.each([
    ["relative", "ws\\x"],
    ["drive-relative", "C:ws"],
    ["device path", "\\\\.\\PhysicalDrive0"],
    ["quote in a name", 'C:\\a"b'],
    ["wildcard", "C:\\a*"],
    ["no drive on Windows", "\\ws"],
    ["POSIX path on Windows", "/home/me"],
    ["long path with ..", "\\\\?\\C:\\a\\..\\b"],
  ])("refuses %s with the field named", (_what, input) => {
    const error = (() => {
      try {
        parseWinPath(input, "writableRoots.0");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(InvalidSandboxPathError);
    expect(error).toMatchObject({ code: "SANDBOX_INVALID_PATH", field: "writableRoots.0", path: input });
  });

  it("accepts a rooted path without a drive only when planning off Windows", () => {
    expect(parseWinPath("/work/main", "cwd", { allowRootedNoDrive: true })).toEqual({ path: "\\work\\main", form: "rooted-no-drive" });
  });

  it("compares case-insensitively, by whole components", () => {
    expect(isWithinWin("C:\\WS\\.Git\\hooks", "c:\\ws\\.git")).toBe(true);
    expect(isWithinWin("C:\\ws-other", "C:\\ws")).toBe(false);
    expect(isWithinWin("C:\\ws", "C:\\")).toBe(true);
  });

  it("spells paths for Win32 calls with the long-path prefix", () => {
    expect(toApiPath("C:\\ws")).toBe("\\\\?\\C:\\ws");
    expect(toApiPath("\\\\srv\\share\\ws")).toBe("\\\\?\\UNC\\srv\\share\\ws");
  });
});

describe("command line", () => {
  it.each([
    ["plain", "plain"],
    ["with space", '"with space"'],
    ["", '""'],
    ['say "hi"', '"say \\"hi\\""'],
    ["C:\\dir with space\\", '"C:\\dir with space\\\\"'],
    ["a\\\\\"b", '"a\\\\\\\\\\"b"'],
    ["C:\\no\\space", "C:\\no\\space"],
    ["ünïcödé", "ünïcödé"],
  ])("quotes %j as %s", (arg, quoted) => {
    expect(quoteWindowsArg(arg)).toBe(quoted);
  });

  it("joins argv", () => {
    expect(windowsCommandLine(["pwsh.exe", "-Command", "Write-Output 'a b'"])).toBe("pwsh.exe -Command \"Write-Output 'a b'\"");
  });
});
