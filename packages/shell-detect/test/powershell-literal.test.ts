import { describe, expect, it } from "vitest";
import { literalCommands, splitShellCommand } from "../src/index.js";

const RM = ["Remove-Item", "-Recurse", "-Force", "C:\\"];

describe("literalCommands: PowerShell scripts", () => {
  it.each([
    ["Get-Item x > $(Remove-Item -Recurse -Force C:\\)", [["Get-Item", "x"], RM]],
    ["echo $(Remove-Item -Recurse -Force C:\\)", [["echo", "$(Remove-Item -Recurse -Force C:\\)"], RM]],
    ["echo \"$(Remove-Item -Recurse -Force C:\\)\"", [["echo", "\"$(Remove-Item -Recurse -Force C:\\)\""], RM]],
    ["Remove-Item -Recurse -Force C:\\ 2>&1 > log.txt", [RM]],
    ["$x = @(Remove-Item -Recurse -Force C:\\)", [RM]],
    ["(Remove-Item -Recurse -Force C:\\).Count", [RM]],
    ["Get-ChildItem | ForEach-Object { Remove-Item -Recurse -Force C:\\ }", [["Get-ChildItem"], ["ForEach-Object", "{ Remove-Item -Recurse -Force C:\\ }"], RM]],
    ["if (Test-Path x) { Remove-Item -Recurse -Force C:\\ }", [["Test-Path", "x"], RM]],
    ["function f { Remove-Item -Recurse -Force C:\\ }; f", [RM, ["f"]]],
    ["& 'Remove-Item' -Recurse -Force C:\\", [RM]],
    ["& Remove-Item -Recurse -Force C:\\", [RM]],
    ["Remove-Item -Recurse -Force $target", [["Remove-Item", "-Recurse", "-Force", "$target"]]],
    ["echo 'Remove-Item -Recurse -Force C:\\'", [["echo", "Remove-Item -Recurse -Force C:\\"]]],
    ["rm -r -fo C:\\; del /s /q x", [["rm", "-r", "-fo", "C:\\"], ["del", "/s", "/q", "x"]]],
  ])("%j", async (script, commands) => {
    for (const argv0 of ["pwsh", "powershell.exe"]) {
      expect(await literalCommands([argv0, "-NoProfile", "-Command", script])).toEqual(commands);
    }
  });

  it("skips commands whose name is computed", async () => {
    expect(await literalCommands(["pwsh", "-c", "& $cmd -Recurse x; & \"$a\" y"])).toEqual([]);
  });

  it("looks behind refused switches and inside an encoded command", async () => {
    const argv = ["powershell.exe", "-ExecutionPolicy", "Bypass", "-Command", "Get-Item x > $(Remove-Item -Recurse -Force C:\\)"];
    expect(await splitShellCommand(argv)).toMatchObject({ kind: "not-plain", reason: /-ExecutionPolicy/ });
    expect(await literalCommands(argv)).toEqual([["Get-Item", "x"], RM]);
    const encoded = Buffer.from("Remove-Item -Recurse -Force C:\\", "utf16le").toString("base64");
    expect(await literalCommands(["pwsh", "-EncodedCommand", encoded])).toEqual([RM]);
  });

  it("is undefined for a script that does not parse, a script file, or a script too long to split", async () => {
    expect(await literalCommands(["pwsh", "-c", "Remove-Item (("])).toBeUndefined();
    expect(await literalCommands(["pwsh", "-File", "x.ps1"])).toBeUndefined();
    expect(await literalCommands(["pwsh", "-c", "ls; ".repeat(20_000)])).toBeUndefined();
    expect(await literalCommands(["cmd.exe", "/c", "rd /s /q C:\\"])).toBeUndefined();
  });
});
