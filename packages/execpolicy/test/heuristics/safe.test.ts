import { describe, expect, it } from "vitest";
import { InvalidArgvError, isKnownSafeArgv } from "../../src/heuristics/index.js";

const linux = { platform: "linux" as const };
const safe = (...argv: string[]) => isKnownSafeArgv(argv, linux);

describe("isKnownSafeArgv: always-safe programs", () => {
  it.each(["cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls", "nl", "paste", "pwd", "rev", "seq", "stat", "tail", "tr", "true", "uname", "wc", "which", "whoami"])(
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

  it("matches by file name in system directories, and on Windows ignores case and .exe/.cmd/.bat/.com", () => {
    for (const dir of ["/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin"]) expect(safe(`${dir}/cat`)).toBe(true);
    expect(isKnownSafeArgv(["CAT.EXE", "x"], { platform: "win32" })).toBe(true);
    expect(isKnownSafeArgv(["ls.cmd"], { platform: "win32" })).toBe(true);
    expect(isKnownSafeArgv(["grep.bat", "x"], { platform: "win32" })).toBe(true);
    expect(isKnownSafeArgv(["CAT.EXE"], linux)).toBe(false);
    expect(isKnownSafeArgv(["C:\\tools\\cat"], linux)).toBe(false);
  });
});

describe("isKnownSafeArgv: a program named like a safe tool is not that tool", () => {
  // The workspace chooses what `./cat` is; a sandboxed command may have written it.
  it.each([["./cat"], ["./bin/cat"], ["bin/cat"], ["node_modules/.bin/ls"], ["/home/u/ws/cat"], ["/tmp/cat"], ["/usr/bin/../../tmp/cat"], ["../cat", "x"]])("%j", (...argv) => {
    expect(safe(...argv)).toBe(false);
  });
  it("on Windows, any path", () => {
    for (const argv0 of ["C:\\tools\\CAT.EXE", "C:/tools/ls.cmd", ".\\cat.exe", "bin/cat"]) {
      expect(isKnownSafeArgv([argv0, "x"], { platform: "win32" })).toBe(false);
    }
  });
});

describe("isKnownSafeArgv: uniq writes its second operand", () => {
  it.each([[["uniq"]], [["uniq", "in"]], [["uniq", "-c", "in"]], [["uniq", "-f", "2", "in"]], [["uniq", "--skip-fields", "2", "-"]], [["uniq", "-w3", "in"]], [["/usr/bin/uniq", "-d"]]])("%j is safe", (argv) => {
    expect(safe(...argv)).toBe(true);
  });
  it.each([[["uniq", "in", "out"]], [["uniq", "-c", "in", "out"]], [["uniq", "-", "out"]], [["uniq", "--", "in", "out"]], [["uniq", "-f", "1", "in", "out"]], [["uniq", "in", "--", "out"]]])("%j is not", (argv) => {
    expect(safe(...argv)).toBe(false);
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
