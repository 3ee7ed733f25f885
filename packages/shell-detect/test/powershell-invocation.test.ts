import { describe, expect, it } from "vitest";
import { splitShellCommand } from "../src/index.js";
import { powerShellInvocation } from "../src/powershell-invocation.js";
import { POWERSHELL_UTF8_PREFIX, deriveExecArgs } from "../src/index.js";

describe("powerShellInvocation: the script PowerShell would run", () => {
  it.each([
    [["pwsh", "-Command", "git status"], "pwsh", "git status"],
    [["pwsh", "-c", "git status"], "pwsh", "git status"],
    [["pwsh", "-C", "git status"], "pwsh", "git status"],
    [["pwsh", "-command", "git status"], "pwsh", "git status"],
    [["pwsh", "-Command:git status"], "pwsh", "git status"],
    [["pwsh", "-NoLogo", "-NoProfile", "-NonInteractive", "-Command", "ls"], "pwsh", "ls"],
    [["pwsh", "-nol", "-nop", "-noni", "-MTA", "-sta", "-c", "ls"], "pwsh", "ls"],
    // Both editions join every word after -Command with spaces.
    [["pwsh", "-Command", "git", "status", "-s"], "pwsh", "git status -s"],
    [["powershell.exe", "-Command", "Get-Item 'a b'", "x"], "powershell", "Get-Item 'a b' x"],
    [["pwsh.exe", "/NoProfile", "/Command", "ls"], "pwsh", "ls"],
    [["PWSH.EXE", "-NoProfile", "-Command", "ls"], "pwsh", "ls"],
    [["PowerShell.exe", "-NoProfile", "-Command", "ls"], "powershell", "ls"],
    [["C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe", "/c", "ls"], "powershell", "ls"],
    [["C:\\Program Files\\PowerShell\\7\\pwsh.exe", "-Command", "ls"], "pwsh", "ls"],
    [["/usr/bin/pwsh", "-Command", "ls"], "pwsh", "ls"],
    [["/opt/microsoft/powershell/7/pwsh", "-c", "ls"], "pwsh", "ls"],
    // Windows PowerShell reads the remaining words as the script when there is no -Command.
    [["powershell", "-NoProfile", "Get-ChildItem", "-Path", "."], "powershell", "Get-ChildItem -Path ."],
  ])("%j", (argv, edition, script) => {
    expect(powerShellInvocation(argv)).toEqual({ edition, script });
  });

  it("drops shellgate's own UTF-8 first line, so a derived argv is judged by the caller's script", () => {
    const argv = deriveExecArgs({ type: "powershell", path: "pwsh", source: "PATH" }, "git status", { login: false });
    expect(argv[3]).toBe(`${POWERSHELL_UTF8_PREFIX}git status`);
    expect(powerShellInvocation(argv)).toEqual({ edition: "pwsh", script: "git status" });
  });

  it("is undefined for what is not a trusted PowerShell", () => {
    for (const argv of [["/tmp/pwsh", "-c", "ls"], ["./pwsh.exe", "-c", "ls"], ["C:\\work\\pwsh.exe", "-c", "ls"], ["PWSH", "-c", "ls"], ["bash", "-c", "ls"], []]) {
      expect(powerShellInvocation(argv)).toBeUndefined();
    }
  });
});

describe("powerShellInvocation: refused invocations", () => {
  const encoded = Buffer.from("Remove-Item -Recurse -Force C:\\", "utf16le").toString("base64");
  it.each([
    [["pwsh", "-EncodedCommand", encoded], /-EncodedCommand/],
    [["pwsh", "-ec", encoded], /-EncodedCommand/],
    [["powershell.exe", "-e", encoded], /-EncodedCommand/],
    [["pwsh", "-File", "x.ps1"], /-File runs a script file/],
    [["pwsh", "-f", "x.ps1"], /-f runs a script file/],
    [["pwsh", "-ExecutionPolicy", "Bypass", "-Command", "ls"], /switch -ExecutionPolicy/],
    [["pwsh", "-ep", "Bypass", "-Command", "ls"], /switch -ExecutionPolicy/],
    [["powershell.exe", "-WindowStyle", "Hidden", "-Command", "ls"], /switch -WindowStyle/],
    [["pwsh", "-NoExit", "-Command", "ls"], /unknown PowerShell switch "-NoExit"/],
    [["pwsh", "-NoProf", "-Command", "ls"], /unknown PowerShell switch "-NoProf"/],
    [["pwsh", "-NoProfile:true", "-Command", "ls"], /unknown PowerShell switch/],
    [["pwsh", "--Command", "ls"], /unknown PowerShell switch "--Command"/],
    // `/` introduces a switch only on a Windows command line; elsewhere it is refused, never guessed.
    [["pwsh", "/Command", "ls"], /as a script file/],
    // PowerShell 7 runs its first positional word as a script file.
    [["pwsh", "Get-ChildItem"], /pwsh runs its first positional argument "Get-ChildItem" as a script file/],
    [["pwsh", "-Command"], /-Command without a script/],
    [["pwsh", "-Command", " "], /-Command without a script/],
    [["pwsh", "-Command", "-"], /standard input/],
    [["pwsh", "-NoProfile"], /without a script/],
  ])("%j", (argv, reason) => {
    const got = powerShellInvocation(argv);
    expect(got?.refusal).toMatch(reason);
  });

  it("still finds the script behind refused switches, for the dangerous-command scan", () => {
    expect(powerShellInvocation(["pwsh", "-ExecutionPolicy", "Bypass", "-Command", "rm -r -fo C:\\"])?.script).toBe("rm -r -fo C:\\");
    expect(powerShellInvocation(["pwsh", "-ex:Bypass", "-c", "ls"])?.script).toBe("ls");
    expect(powerShellInvocation(["pwsh", "-EncodedCommand", encoded])?.script).toBe("Remove-Item -Recurse -Force C:\\");
    expect(powerShellInvocation(["pwsh", "-EncodedCommand", "not base64!"])?.script).toBeUndefined();
    expect(powerShellInvocation(["pwsh", "-NoExit", "-Command", "ls"])?.script).toBeUndefined();
  });

  it("reports the refusal as not plain in the PowerShell dialect", async () => {
    expect(await splitShellCommand(["pwsh", "-File", "x.ps1"])).toEqual({ kind: "not-plain", reason: "-File runs a script file", dialect: "powershell" });
  });
});

describe("cmd.exe", () => {
  it.each([
    [["cmd", "/c", "dir"]],
    [["cmd.exe", "/C", "dir"]],
    [["CMD.EXE", "/d", "/s", "/c", "del /s /q x"]],
    [["C:\\Windows\\System32\\cmd.exe", "/c", "rd /s /q x"]],
    [["c:\\windows\\system32\\CMD.exe", "/k", "dir"]],
  ])("%j is judged as one command, with no dialect", async (argv) => {
    expect(await splitShellCommand(argv)).toEqual({ kind: "not-plain", reason: "cmd.exe scripts are not parsed: judged as one command" });
  });

  it("a cmd.exe outside the system directory is argv to judge", async () => {
    expect(await splitShellCommand(["C:\\work\\cmd.exe", "/c", "dir"])).toEqual({ kind: "not-a-shell" });
  });
});
