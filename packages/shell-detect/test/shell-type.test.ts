import { describe, expect, it } from "vitest";
import { shellTypeFromPath, trustedShellType, unsupportedShellName } from "../src/index.js";

describe("shellTypeFromPath", () => {
  it.each([
    ["zsh", "zsh"], ["/bin/zsh", "zsh"], ["/usr/local/bin/zsh", "zsh"],
    ["bash", "bash"], ["/bin/bash", "bash"], ["/opt/homebrew/bin/bash", "bash"],
    ["sh", "sh"], ["/bin/sh", "sh"],
    ["pwsh", "powershell"], ["/usr/local/bin/pwsh", "powershell"], ["pwsh.exe", "powershell"],
    ["powershell", "powershell"], ["powershell.exe", "powershell"],
    ["C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe", "powershell"],
    ["C:\\Program Files\\PowerShell\\7\\pwsh.exe", "powershell"],
    ["cmd", "cmd"], ["cmd.exe", "cmd"], ["C:\\Windows\\System32\\cmd.exe", "cmd"], ["CMD.EXE", "cmd"],
    ["C:\\Program Files\\Git\\bin\\bash.exe", "bash"],
  ] as const)("%s is %s", (path, type) => {
    expect(shellTypeFromPath(path)).toBe(type);
  });

  it.each(["fish", "/usr/bin/fish", "nu", "/usr/bin/python3", "", "/bin/", "bash-5.2", "zshell"])("%j is no shell type", (path) => {
    expect(shellTypeFromPath(path)).toBeUndefined();
  });

  it("names known unsupported shells", () => {
    expect(unsupportedShellName("/usr/bin/fish")).toBe("fish");
    expect(unsupportedShellName("C:\\tools\\nu.exe")).toBe("nu");
    expect(unsupportedShellName("/bin/bash")).toBeUndefined();
  });
});

describe("trustedShellType", () => {
  it.each([
    ["bash", "bash"], ["/bin/bash", "bash"], ["/usr/bin/bash", "bash"], ["/usr/local/bin/bash", "bash"], ["/opt/homebrew/bin/bash", "bash"],
    ["zsh", "zsh"], ["/bin/zsh", "zsh"], ["/usr/bin/zsh", "zsh"], ["/usr/local/bin/zsh", "zsh"], ["/opt/homebrew/bin/zsh", "zsh"],
    ["sh", "sh"], ["/bin/sh", "sh"], ["/usr/bin/sh", "sh"],
    ["pwsh", "powershell"], ["powershell.exe", "powershell"], ["/usr/bin/pwsh", "powershell"],
    ["C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe", "powershell"],
    ["c:\\program files\\powershell\\7\\PWSH.EXE", "powershell"],
    ["cmd", "cmd"], ["cmd.exe", "cmd"], ["C:\\Windows\\System32\\cmd.exe", "cmd"],
  ] as const)("%s is a trusted %s", (path, type) => {
    expect(trustedShellType(path)).toBe(type);
  });

  it.each(["/tmp/bash", ".poc/bash", "/tmp/bash.evil", "./bash", "bash.exe", "/usr/local/sbin/bash", "C:\\tmp\\powershell.exe", "/bin/fish", "BASH", " bash"])(
    "%j is not trusted",
    (path) => {
      expect(trustedShellType(path)).toBeUndefined();
    },
  );
});
