import { describe, expect, it } from "vitest";
import { InvalidArgvError, isDangerousArgv, isKnownSafeArgv } from "../../src/heuristics/index.js";

const danger = (...argv: string[]) => isDangerousArgv(argv, { platform: "linux" });

describe("isDangerousArgv: forced rm", () => {
  it.each([
    [["rm", "-f", "x"]], [["rm", "-rf", "d"]], [["rm", "-fr", "d"]], [["rm", "-Rf", "d"]], [["rm", "-fR", "d"]],
    [["rm", "-r", "-f", "d"]], [["rm", "--force", "x"]], [["rm", "/tmp/x", "-f"]], [["rm", "-vfi", "x"]],
    [["/bin/rm", "-rf", "/"]], [["rm", "--forc", "x"]], [["rm", "--f", "x"]], [["rm", "-f"]],
  ])("%j is dangerous", (argv) => {
    expect(danger(...argv)).toBe(true);
  });

  it.each([
    [["rm", "-r", "d"]], [["rm", "x"]], [["rm", "--", "-f"]], [["rm", "-r", "--", "-rf"]], [["rm", "--recursive", "d"]],
    [["rm", "--interactive=never", "x"]], [["rm", "-"]], [["rm", "--forceful"]], [["rm", "--"]],
    [["ls", "-rf"]], [["echo", "rm", "-rf", "d"]], [["git", "rm", "-f", "x"]], [["git", "reset", "--hard"]], [["rmdir", "-f"]], [[]],
  ])("%j is not dangerous", (argv) => {
    expect(danger(...argv)).toBe(false);
  });

  it("matches rm by file name, and rm.exe on Windows", () => {
    expect(isDangerousArgv(["C:\\bin\\RM.EXE", "-rf", "x"], { platform: "win32" })).toBe(true);
    expect(isDangerousArgv(["RM.EXE", "-rf", "x"], { platform: "linux" })).toBe(false);
  });
});

describe("isDangerousArgv: through sudo", () => {
  it.each([
    [["sudo", "rm", "-rf", "/"]], [["/usr/bin/sudo", "rm", "--force", "x"]], [["sudo", "-u", "root", "rm", "-rf", "x"]],
    [["sudo", "-uroot", "rm", "-f", "x"]], [["sudo", "-E", "-H", "rm", "-rf", "x"]], [["sudo", "-Eu", "root", "rm", "-rf", "x"]],
    [["sudo", "--user", "root", "rm", "-rf", "x"]], [["sudo", "--user=root", "rm", "-rf", "x"]], [["sudo", "--", "rm", "-rf", "x"]],
    [["sudo", "sudo", "rm", "-rf", "x"]], [["sudo", "-g", "wheel", "-D", "/", "rm", "-f", "x"]],
  ])("%j is dangerous", (argv) => {
    expect(danger(...argv)).toBe(true);
  });

  it.each([[["sudo"]], [["sudo", "-u", "root"]], [["sudo", "rm", "-r", "x"]], [["sudo", "ls", "-f"]], [["sudo", "-u", "rm", "ls", "-f"]]])("%j is not dangerous", (argv) => {
    expect(danger(...argv)).toBe(false);
  });
});

describe("heuristics are independent halves", () => {
  it("a dangerous command is never known-safe", () => {
    for (const argv of [["rm", "-rf", "x"], ["sudo", "rm", "-f", "x"]]) {
      expect(isDangerousArgv(argv)).toBe(true);
      expect(isKnownSafeArgv(argv)).toBe(false);
    }
  });

  it("rejects non-string argv with the field named", () => {
    expect(() => isDangerousArgv([null as unknown as string])).toThrow(InvalidArgvError);
    expect(() => isDangerousArgv([null as unknown as string])).toThrow(/^argv\[0\]:/);
  });
});
