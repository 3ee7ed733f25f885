import { describe, expect, it } from "vitest";
import { InvalidArgvError, isKnownSafeArgv } from "../../src/heuristics/index.js";

const linux = { platform: "linux" as const };
const safe = (...argv: string[]) => isKnownSafeArgv(argv, linux);

describe("isKnownSafeArgv: always-safe programs", () => {
  it.each(["cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls", "nl", "paste", "pwd", "rev", "seq", "stat", "tail", "tr", "true", "uname", "uniq", "wc", "which", "whoami"])(
    "%s with any arguments",
    (name) => {
      expect(safe(name)).toBe(true);
      expect(safe(name, "-x", "--anything=1", "file")).toBe(true);
      expect(safe(`/usr/bin/${name}`, "a")).toBe(true);
    },
  );

  it("numfmt and tac only on Linux", () => {
    expect(safe("numfmt", "--to=iec", "1024")).toBe(true);
    expect(safe("tac", "log")).toBe(true);
    expect(isKnownSafeArgv(["tac", "log"], { platform: "darwin" })).toBe(false);
    expect(isKnownSafeArgv(["numfmt", "1"], { platform: "win32" })).toBe(false);
  });

  it.each([["rm", "x"], ["curl", "https://x"], ["bash", "-lc", "ls"], ["python3"], ["sh"], ["cargo", "check"], ["ls2"], ["xls"], ["cat.sh"], [""]])("%j is not safe", (...argv) => {
    expect(safe(...argv)).toBe(false);
  });

  it("empty argv is not safe", () => {
    expect(isKnownSafeArgv([], linux)).toBe(false);
  });

  it("matches by file name, and on Windows ignores case and .exe/.cmd/.bat/.com", () => {
    expect(safe("./bin/cat")).toBe(true);
    expect(isKnownSafeArgv(["C:\\tools\\CAT.EXE", "x"], { platform: "win32" })).toBe(true);
    expect(isKnownSafeArgv(["C:/tools/ls.cmd"], { platform: "win32" })).toBe(true);
    expect(isKnownSafeArgv(["grep.bat", "x"], { platform: "win32" })).toBe(true);
    expect(isKnownSafeArgv(["CAT.EXE"], linux)).toBe(false);
    expect(isKnownSafeArgv(["C:\\tools\\cat"], linux)).toBe(false);
  });
});

describe("isKnownSafeArgv: git is never known-safe", () => {
  it.each([["git", "status"], ["git", "diff", "-p"], ["git", "log", "-p", "-1"], ["git", "show", "-p", "HEAD"], ["git", "branch", "--show-current"], ["/usr/bin/git", "status"], ["git"]])("%j", (...argv) => {
    expect(safe(...argv)).toBe(false);
  });

  it("also git.exe on Windows", () => {
    expect(isKnownSafeArgv(["C:\\Program Files\\Git\\cmd\\git.exe", "status"], { platform: "win32" })).toBe(false);
  });
});

describe("isKnownSafeArgv: base64", () => {
  it.each([[["base64"]], [["base64", "file"]], [["base64", "-d", "file"]], [["base64", "-w0", "file"]], [["base64", "--decode"]]])("%j is safe", (argv) => {
    expect(safe(...argv)).toBe(true);
  });
  it.each([[["base64", "-o", "out"]], [["base64", "--output", "out"]], [["base64", "--output=out"]], [["base64", "-ob64.txt"]], [["base64", "file", "-o", "x"]], [["base64", "-Do", "x"]]])("%j is not (writes a file)", (argv) => {
    expect(safe(...argv)).toBe(false);
  });
});

describe("isKnownSafeArgv: find", () => {
  it.each([[["find", "."]], [["find", ".", "-name", "*.py"]], [["find", "/", "-type", "f", "-print"]], [["find", ".", "-name", "-exec-like"]]])("%j is safe", (argv) => {
    expect(safe(...argv)).toBe(true);
  });
  it.each(["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"])("find with %s is not", (flag) => {
    expect(safe("find", ".", "-name", "x", flag, "rm", "{}", ";")).toBe(false);
  });
});

describe("isKnownSafeArgv: rg", () => {
  it.each([[["rg", "TODO"]], [["rg", "-n", "TODO", "src"]], [["rg", "--files"]], [["rg", "--pre-glob", "*.gz", "x"]], [["rg", "-g", "*.py", "x"]]])("%j is safe", (argv) => {
    expect(safe(...argv)).toBe(true);
  });
  it.each([[["rg", "-z", "x"]], [["rg", "--search-zip", "x"]], [["rg", "--pre", "cat", "x"]], [["rg", "--pre=cat", "x"]], [["rg", "--hostname-bin", "h"]], [["rg", "--hostname-bin=h"]], [["rg", "-nz", "x"]]])(
    "%j is not (runs programs)",
    (argv) => {
      expect(safe(...argv)).toBe(false);
    },
  );
});

describe("isKnownSafeArgv: sed", () => {
  it.each([[["sed", "-n", "10p"]], [["sed", "-n", "1,5p", "file"]], [["sed", "-n", "10p", "-"]], [["/bin/sed", "-n", "0p", "f"]]])("%j is safe", (argv) => {
    expect(safe(...argv)).toBe(true);
  });
  it.each([
    [["sed", "-n", "xp", "f"]], [["sed", "-n", "1,2,3p", "f"]], [["sed", "-n", ",5p", "f"]], [["sed", "-n", "10p", "a", "b"]],
    [["sed", "-n", "10"]], [["sed", "10p", "f"]], [["sed", "-i", "10p", "f"]], [["sed", "-n"]], [["sed"]], [["sed", "-n", "1p", "-ew/tmp/x"]], [["sed", "-n", "1p", "-i"]],
    [["sed", "-n", "1pw /tmp/x"]], [["sed", "-n", "1p\n2p"]],
  ])("%j is not", (argv) => {
    expect(safe(...argv)).toBe(false);
  });
});

describe("isKnownSafeArgv: input", () => {
  it("rejects non-string argv with the field named", () => {
    expect(() => isKnownSafeArgv(["ls", 3 as unknown as string])).toThrow(InvalidArgvError);
    expect(() => isKnownSafeArgv(["ls", 3 as unknown as string])).toThrow(/^argv\[1\]:/);
    expect(() => isKnownSafeArgv("ls" as unknown as string[])).toThrow(/^argv:/);
  });
});
