import { describe, expect, it } from "vitest";
import { InvalidShellArgumentError, POWERSHELL_UTF8_PREFIX, deriveExecArgs, type Shell } from "../src/index.js";

const sh = (type: Shell["type"], path: string): Shell => ({ type, path, source: "test" });

describe("deriveExecArgs", () => {
  it.each(["bash", "zsh", "sh"] as const)("%s uses -lc for login and -c otherwise", (type) => {
    expect(deriveExecArgs(sh(type, `/bin/${type}`), "echo hello", { login: true })).toEqual([`/bin/${type}`, "-lc", "echo hello"]);
    expect(deriveExecArgs(sh(type, `/bin/${type}`), "echo hello", { login: false })).toEqual([`/bin/${type}`, "-c", "echo hello"]);
  });

  it("PowerShell adds -NoProfile only when not login, and the UTF-8 line once", () => {
    const pwsh = sh("powershell", "pwsh.exe");
    expect(deriveExecArgs(pwsh, "echo hello", { login: true })).toEqual(["pwsh.exe", "-Command", `${POWERSHELL_UTF8_PREFIX}echo hello`]);
    expect(deriveExecArgs(pwsh, "echo hello", { login: false })).toEqual(["pwsh.exe", "-NoProfile", "-Command", `${POWERSHELL_UTF8_PREFIX}echo hello`]);
    const already = `${POWERSHELL_UTF8_PREFIX}echo hello`;
    expect(deriveExecArgs(pwsh, already, { login: true })[2]).toBe(already);
    const legacy = "[Console]::OutputEncoding=[System.Text.Encoding]::UTF8;\necho hi";
    expect(deriveExecArgs(pwsh, legacy, { login: true })[2]).toBe(legacy);
  });

  it("PowerShell forceNoProfile wins over login (elevated Windows sandbox)", () => {
    expect(deriveExecArgs(sh("powershell", "pwsh"), "ls", { login: true, forceNoProfile: true }).slice(0, 3)).toEqual(["pwsh", "-NoProfile", "-Command"]);
  });

  it("cmd uses /c whatever login says", () => {
    const cmd = sh("cmd", "C:\\Windows\\System32\\cmd.exe");
    expect(deriveExecArgs(cmd, "dir", { login: true })).toEqual(["C:\\Windows\\System32\\cmd.exe", "/c", "dir"]);
    expect(deriveExecArgs(cmd, "dir", { login: false })).toEqual(["C:\\Windows\\System32\\cmd.exe", "/c", "dir"]);
  });

  it("names the bad field", () => {
    const bad = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidShellArgumentError);
        return (e as InvalidShellArgumentError).field;
      }
      throw new Error("did not throw");
    };
    expect(bad(() => deriveExecArgs({ type: "fish", path: "/bin/fish" } as unknown as Shell, "x", { login: true }))).toBe("shell.type");
    expect(bad(() => deriveExecArgs(sh("bash", ""), "x", { login: true }))).toBe("shell.path");
    expect(bad(() => deriveExecArgs(sh("bash", "/bin/bash"), 3 as unknown as string, { login: true }))).toBe("script");
    expect(bad(() => deriveExecArgs(sh("bash", "/bin/bash"), "x", {} as { login: boolean }))).toBe("opts.login");
  });
});
